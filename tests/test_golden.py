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
def test_golden_case(name: str, run_cli, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    case = CASES / name
    args_file = case / "args"
    args = args_file.read_text(encoding="utf-8").split("\n") if args_file.exists() else ["build", "input"]
    args = [a for a in args if a]
    monkeypatch.chdir(case)
    result = run_cli(*args)
    expected = case / "expected"
    actual = {"stdout": result.stdout, "stderr": result.stderr, "exit_code": f"{result.exit_code}\n"}
    if request.config.getoption("--update-golden"):
        expected.mkdir(exist_ok=True)
        for key, text in actual.items():
            (expected / key).write_text(text, encoding="utf-8")
    for key, text in actual.items():
        assert (expected / key).read_text(encoding="utf-8") == text, f"{name}: {key} differs\n{result}"
