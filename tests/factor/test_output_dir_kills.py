"""`factor --output-dir DIR --force` killed at every rename or removal, then run again: DIR is the factored tree,
and nothing is left beside it (issue 22). The swap is ``build --output-dir``'s (``output.folder.replacing``);
here it takes its two-rename path, whose every step the driver can count (the atomic exchange is one call,
killed before or after in tests/output/test_folder_kills.py)."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from pathlib import Path

from factor_fleet import fleet, listing
from test_in_place_kills import DRIVER as IN_PLACE_DRIVER
from use_cases import factor_shown

from omerender.commands.factor import Choices

DRIVER = IN_PLACE_DRIVER.replace(
    "from omerender.cli import main",
    "os.rename = wrap(os.rename)\nfrom omerender.output import folder\nfolder._exchange = lambda *a: False\n"
    "from omerender.cli import main",
)


def _factor(tree: Path, out: Path, count: Path, at: int) -> int:
    args = [sys.executable, "-c", DRIVER, str(count), str(at), str(signal.SIGKILL), "factor", str(tree)]
    args += ["--output-dir", str(out), "--force"]
    return subprocess.run(args, capture_output=True, check=False, cwd=tree.parent).returncode


def test_killed_at_every_point_then_run_again(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    reference = tmp_path / "reference"
    assert _factor(tree, reference, tmp_path / "count", 0) == 0
    expected = {p: (reference / p).read_bytes() for p in listing(reference) if (reference / p).is_file()}
    shutil.copytree(reference, tmp_path / "again")
    assert _factor(tree, tmp_path / "again", tmp_path / "count-again", 0) == 0
    points = (tmp_path / "count-again").stat().st_size
    assert points >= 3  # the old folder aside, the staging into place, the old folder removed
    for at in range(1, points + 1):
        work = tmp_path / f"at-{at}"
        out = work / "out"
        shutil.copytree(reference, out)  # a previous result, which --force replaces
        (out / "stale.txt").write_text("from before\n", encoding="utf-8")
        code = _factor(tree, out, work / "count", at)
        assert code in (0, -signal.SIGKILL), (at, code)
        assert out.is_dir() or (work / ".out.old").is_dir(), at  # one of the two is always whole
        result = factor_shown(tree, Choices(force=True), output_dir=str(out))
        assert result.exit_code == 0, (at, str(result))
        got = {p: (out / p).read_bytes() for p in listing(out) if (out / p).is_file()}
        assert got == expected, at
        assert sorted(listing(work)) == sorted(["count", "out", *(f"out/{p}" for p in listing(out))]), at
