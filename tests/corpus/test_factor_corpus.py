"""Issue 14's acceptance on OME's own runtimes: factor, then build the old and the new tree."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RUNTIMES = REPO.parent / "shared" / "ome" / "runtimes"

pytestmark = pytest.mark.skipif(not RUNTIMES.is_dir(), reason="needs OME's runtimes in ../shared/ome")


def test_factor_on_ome_runtimes(run_cli, tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "bench"))
    from factor import corpus_copy  # bench/factor.py: first copy of each duplicated name

    old, new = tmp_path / "in", tmp_path / "out"
    assert corpus_copy(RUNTIMES, old) == 203
    result = run_cli("factor", str(old), "--output-dir", str(new), "-o", "json", "--kube-version", "none")
    assert result.exit_code == 0, str(result)
    report = json.loads(result.stdout)
    flattened = [run_cli("build", str(tree), "--emit", "flattened", "--kube-version", "none") for tree in (old, new)]
    assert flattened[0].exit_code == flattened[1].exit_code == 0
    assert flattened[0].stdout == flattened[1].stdout
    auto = [f for f in report["flat"] if f["reason"].startswith("autoSelect: true")]
    others = report["totals"]["runtimes"] - len(auto)
    assert report["totals"]["children"] >= 0.9 * others
    for entry in auto:
        name = entry["runtime"].rsplit("/", 1)[-1]
        files = [p for p in old.rglob("*.yaml") if f"\n  name: {name}\n" in p.read_text(encoding="utf-8")]
        assert files and all((new / p.relative_to(old)).read_bytes() == p.read_bytes() for p in files)
    totals = report["totals"]
    assert totals["linesAfter"] <= 0.4 * totals["linesBefore"]
