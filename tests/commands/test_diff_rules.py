"""``commands.diff``: git extraction, the skip sets, the two builds and the verdict, through ``run()``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from demo_trees import ISVC, KEY, NS, replace
from use_cases import diff, lock, said

from omerender.commands.outcome import Verdict
from omerender.errors import UsageError

RUNTIME = f"ServingRuntime/{NS}/sglang-llama-3-2-3b"
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(cwd), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        check=True,
        capture_output=True,
    )


def _committed(tree: Path) -> None:
    _git(tree, "init", "-q", "-b", "main")
    _git(tree, "add", "-A")
    _git(tree, "commit", "-q", "-m", "base")


def test_no_change_passes_and_a_change_is_a_finding(demo: Path, tmp_path: Path) -> None:
    same = diff([demo, demo])
    assert same.verdict is Verdict.OK and same.payload is not None and not same.payload.report.changed
    new = tmp_path / "new"
    shutil.copytree(demo, new)
    replace(new / "runtime.yaml", "--mem-frac=0.9", "--mem-frac=0.8")
    changed = diff([demo, new])
    assert changed.verdict is Verdict.FINDINGS and changed.payload is not None
    assert [r.inference_service for r in changed.payload.report.rollouts] == [KEY]
    assert [r.runtime for r in changed.payload.report.runtimes] == [RUNTIME]
    assert len(changed.builds) == 2 and changed.builds[1] is changed.payload.new  # the new side is counted last


def test_a_side_that_does_not_build_breaks_the_tree_yet_is_reported(demo: Path, tmp_path: Path) -> None:
    new = tmp_path / "new"
    shutil.copytree(demo, new)
    (new / "profile.yaml").unlink()
    outcome = diff(old=[demo], new=[new])
    assert outcome.verdict is Verdict.TREE_BROKEN and outcome.payload is not None
    assert [b.inference_service for b in outcome.payload.report.broken] == [KEY]
    assert "ParentNotFound" in {d.code for d in outcome.diagnostics}


def test_each_side_reads_the_lock_beside_its_own_paths(demo: Path, tmp_path: Path) -> None:
    replace(
        demo / "isvc.yaml", "    name: sglang-llama-3-2-3b\n", "    name: sglang-llama-3-2-3b\n    autoSync: false\n"
    )
    new = tmp_path / "new"
    shutil.copytree(demo, new)
    assert lock(demo).verdict is Verdict.OK  # only the old side is locked
    replace(new / "runtime.yaml", "--mem-frac=0.9", "--mem-frac=0.8")
    outcome = diff([demo, new])
    assert outcome.payload is not None
    # unlocked, the new side renders its live runtime: the pinned snapshot of the old side's lock is not read there
    assert [r.inference_service for r in outcome.payload.report.rollouts] == [KEY]


def test_sides_are_two_paths_or_old_and_new_never_both() -> None:
    with pytest.raises(UsageError, match="give --old PATH and --new PATH"):
        diff(["a"], old=["b"], new=["c"])
    with pytest.raises(UsageError, match="--against compares PATHS with GIT_REF"):
        diff(["a"], old=["b"], git_ref="HEAD")
    with pytest.raises(UsageError, match="give two paths"):
        diff(["a"])


def test_what_a_search_path_covering_both_sides_reaches_under_the_other_side_is_skipped(
    demo: Path, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    shutil.move(demo, repo / "app")
    (repo / "shared").mkdir()
    shutil.move(repo / "app" / "profile.yaml", repo / "shared" / "profile.yaml")
    shutil.copytree(repo / "app", repo / "app2")
    replace(repo / "app2" / "runtime.yaml", "--mem-frac=0.9", "--mem-frac=0.8")
    outcome = diff([repo / "app", repo / "app2"], search_path=(str(repo),))
    assert outcome.verdict is Verdict.FINDINGS, said(outcome)  # no duplicate: app2 is never the old side's
    assert outcome.payload is not None and [r.inference_service for r in outcome.payload.report.rollouts] == [KEY]


def test_inference_services_only_on_a_search_path_are_not_compared(demo: Path, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    other = (demo / "isvc.yaml").read_text().replace(f"  name: {ISVC}\n  namespace", "  name: other\n  namespace")
    (shared / "other.yaml").write_text(other)
    new = tmp_path / "new"
    shutil.copytree(demo, new)
    replace(new / "runtime.yaml", "--mem-frac=0.9", "--mem-frac=0.8")
    outcome = diff([demo, new], search_path=(str(shared),))
    assert outcome.payload is not None
    report = outcome.payload.report
    assert [r.inference_service for r in report.rollouts] == [KEY]  # not NS/other
    assert (report.created, report.deleted) == ((), ())  # NS/other is on no side's PATHS


@needs_git
def test_against_extracts_the_paths_at_the_ref_and_names_its_files_so(demo: Path) -> None:
    _committed(demo)
    replace(demo / "runtime.yaml", "--mem-frac=0.9", "--mem-frac=0.8")
    outcome = diff([demo], git_ref="HEAD")
    assert outcome.verdict is Verdict.FINDINGS and outcome.payload is not None
    assert [r.inference_service for r in outcome.payload.report.rollouts] == [KEY]
    assert len(outcome.builds) == 1 and outcome.builds[0] is outcome.payload.new  # the ref's side is not counted
    (demo / "model.yaml").unlink()
    _git(demo, "add", "-A")
    _git(demo, "commit", "-q", "-m", "no model")
    replace(demo / "runtime.yaml", "--mem-frac=0.8", "--mem-frac=0.7")
    broken = diff([demo], git_ref="HEAD")
    old_side = [d.path for d in broken.diagnostics if d.path.startswith("HEAD:")]
    assert old_side and all(p == "HEAD:isvc.yaml" for p in old_side), said(broken)


@needs_git
def test_a_ref_git_cannot_read_is_a_usage_note_and_nothing_is_built(demo: Path) -> None:
    _committed(demo)
    outcome = diff([demo], git_ref="no-such-ref")
    assert outcome.verdict is Verdict.USAGE and outcome.payload is None and outcome.builds == ()
    [note] = outcome.notes
    assert note.line().startswith("omerender: --against no-such-ref: ")


def test_diagnostics_at_one_place_come_in_one_order_in_every_process(demo: Path, tmp_path: Path) -> None:
    # two errors at one line and column: the order once hung on the hash seed of the process
    replace(demo / "isvc.yaml", "  model:\n", "  modelRef:\n")
    new = tmp_path / "new"
    shutil.copytree(demo, new)
    command = [sys.executable, "-m", "omerender", "diff", str(demo), str(new)]
    seeds = ("1", "2", "3", "4", "5", "6")
    runs = [
        subprocess.run(command, check=False, capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": s})
        for s in seeds
    ]
    stderrs = {done.stderr for done in runs}
    assert len(stderrs) == 1 and "[unknown-field]" in runs[0].stderr, stderrs
