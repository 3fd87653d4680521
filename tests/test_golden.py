"""Golden cases: tests/cases/<name>/ holds input/, optional args (one CLI argument per line) and expected/.

expected/ holds stdout (the exact bytes printed), stderr and exit_code. Run pytest with
--update-golden to rewrite them from the current output, then review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

CASES = Path(__file__).parent / "cases"
NAMES = sorted(p.name for p in CASES.iterdir() if (p / "input").is_dir()) if CASES.is_dir() else []


@pytest.mark.parametrize("name", NAMES)
def test_golden_case(name: str, run_golden) -> None:
    run_golden(CASES / name, CASES / name)
