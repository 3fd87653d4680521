"""`factor --in-place` killed at every point where it renames, changes a mode or removes its journal, then run
again: the tree builds byte for byte as before or as after, and nothing is left behind (issue 22).

The kill is injected in a subprocess that wraps ``os.replace``, ``os.chmod`` and ``shutil.rmtree``: the Nth call
sends the signal to the process itself, so no hook exists in omerender for it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from factor_fleet import build_output, fleet, killed_after_commit, listing
from use_cases import factor_shown

from omerender.commands.factor import Choices

DRIVER = textwrap.dedent(
    """
    import os, shutil, signal, sys
    count_file, at, signum = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    def wrap(fn):
        def wrapped(*args, **kwargs):
            with open(count_file, "a") as fh:
                fh.write("x")
            if os.path.getsize(count_file) == at:
                os.kill(os.getpid(), signum)
            return fn(*args, **kwargs)
        return wrapped
    os.replace, os.chmod, shutil.rmtree = wrap(os.replace), wrap(os.chmod), wrap(shutil.rmtree)
    from omerender.cli import main
    main(sys.argv[4:])
    """
)


def _run(tree: Path, count: Path, at: int, signum: int) -> int:
    args = [sys.executable, "-c", DRIVER, str(count), str(at), str(signum), "factor", str(tree), "--in-place"]
    return subprocess.run(args, capture_output=True, check=False, cwd=tree.parent).returncode


@pytest.fixture(scope="module")
def states(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str, int]:
    """The pristine tree, its build before and after factor, and how many points a clean run passes."""
    base = tmp_path_factory.mktemp("kills")
    pristine = fleet(base / "pristine")
    before = build_output(pristine)
    done = base / "done"
    shutil.copytree(pristine, done)
    assert _run(done, base / "count", 0, signal.SIGKILL) == 0
    after = build_output(done)
    return pristine, before, after, (base / "count").stat().st_size


def test_a_clean_run_passes_several_points(states: tuple[Path, str, str, int]) -> None:
    _, before, after, points = states
    assert before == after  # factor's own promise
    assert points >= 5  # the staged files' modes, the commit, one rename per file, the journal's removal


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_killed_at_every_point_then_run_again(tmp_path: Path, states: tuple[Path, str, str, int], signum: int) -> None:
    pristine, before, _, points = states
    original = listing(pristine)
    for at in range(1, points + 1):
        tree = tmp_path / f"at-{at}" / "tree"
        shutil.copytree(pristine, tree)
        code = _run(tree, tmp_path / f"at-{at}" / "count", at, signum)
        assert code in (0, -signum, 130), (at, code)  # the CLI exits 130 on SIGTERM, as on Ctrl-C
        again = factor_shown(tree, Choices(in_place=True))
        assert again.exit_code == 0, (at, str(again))
        assert build_output(tree) == before, at
        names = listing(tree)
        leftovers = [n for n in names if n.endswith((".tmp", ".old")) or "journal" in n or "lock" in n]
        assert not leftovers, (at, leftovers)
        assert set(names) - set(original) == {"profiles", "profiles/sglang-profile.yaml"}, at
        assert not os.path.exists(tree / ".omerender-factor.journal")


def test_killed_while_finishing_a_journal_then_run_again(tmp_path: Path, states) -> None:
    # recovery is itself a run that can be killed: at each of its renames and at the journal's removal
    pristine, before, _, _ = states
    original = listing(pristine)
    at, finished = 1, False
    while not finished:
        tree = tmp_path / f"at-{at}" / "tree"
        shutil.copytree(pristine, tree)
        killed_after_commit(tree)
        count = tmp_path / f"at-{at}" / "count"
        code = _run(tree, count, at, signal.SIGKILL)
        finished = code == 0
        assert code in (0, -signal.SIGKILL), (at, code)
        again = factor_shown(tree, Choices(in_place=True))
        assert again.exit_code == 0, (at, str(again))
        assert build_output(tree) == before, at
        assert set(listing(tree)) - set(original) == {"profiles", "profiles/sglang-profile.yaml"}, at
        assert not os.path.exists(tree / ".omerender-factor.journal"), at
        at += 1
    assert at > 4  # three renames and the removal were each killed
