"""Two `factor --in-place` processes on one tree (issue 31): one holds the tree's lock from before it reads until
its change is in place, the other says the tree is busy, naming the locked folder, and exits 1 having written
nothing (it used to read a tree half rewritten: IndexError, exit 3, or "a bug in factor")."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from factor_fleet import build_output, fleet, listing

HOLDING = """
import sys
from omerender.factor import run
inner = run.factor
def held(*args, **kwargs):  # called under the lock, before the tree is read: wait for the test's word
    sys.stderr.write("holding\\n")
    sys.stderr.flush()
    sys.stdin.readline()
    return inner(*args, **kwargs)
run.factor = held
from omerender.cli import main
main(sys.argv[1:])
"""


def _factor(tree: Path) -> list[str]:
    return [sys.executable, "-m", "omerender", "factor", str(tree), "--in-place"]


def _busy(code: int, stdout: str, stderr: str, tree: Path) -> bool:
    assert "Traceback" not in stderr and "internal error" not in stderr and "a bug in factor" not in stderr, stderr
    if code == 0:
        return False
    assert code == 1 and stdout == "", (code, stdout, stderr)
    assert stderr == (
        f"omerender: error: {tree}: busy: another factor --in-place of this tree is running (it holds an exclusive "
        f"flock on the folder {tree}); run again when it has finished\n"
    )
    return True


def test_a_second_run_while_the_first_holds_the_tree_is_told_it_is_busy(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    before, built = {p: (tree / p).read_bytes() for p in listing(tree) if (tree / p).is_file()}, build_output(tree)
    first = subprocess.Popen(
        [sys.executable, "-c", HOLDING, *_factor(tree)[3:]],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    try:
        assert first.stderr is not None and first.stderr.readline() == "holding\n"
        second = subprocess.run(_factor(tree), capture_output=True, text=True, check=False, cwd=tmp_path)
        assert _busy(second.returncode, second.stdout, second.stderr, tree)
        assert {p: (tree / p).read_bytes() for p in listing(tree) if (tree / p).is_file()} == before
        out, err = first.communicate("\n")
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 0, err
    assert "sglang-profile" in out and (tree / "profiles" / "sglang-profile.yaml").is_file()
    assert build_output(tree) == built


def test_runs_started_together_either_factor_or_are_busy(tmp_path: Path) -> None:
    # the race of the issue, as it was found: no stepping in, two processes started at once, a few times
    pristine = fleet(tmp_path / "pristine")
    built = build_output(pristine)
    for n in range(3):
        tree = tmp_path / f"tree-{n}"
        shutil.copytree(pristine, tree)
        runs = [
            subprocess.Popen(_factor(tree), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in "ab"
        ]
        outputs = [run.communicate() for run in runs]
        results = [(run.returncode, out, err) for run, (out, err) in zip(runs, outputs, strict=True)]
        busy = [_busy(code, out, err, tree) for code, out, err in results]
        assert busy.count(False) >= 1, results  # at least one factored (both, when they did not overlap)
        assert (tree / "profiles" / "sglang-profile.yaml").is_file() and build_output(tree) == built
        assert not (tree / ".omerender-factor.journal").exists()
