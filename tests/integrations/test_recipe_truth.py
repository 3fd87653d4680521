"""Issue 33 through the GitHub recipe (integrations/github/action.yml, its shell steps run as GitHub runs them) on
the issue's repository with the documented setup (``paths: apps``, the search path in ``.omerender.yaml``): a
profile change is reported with what it rolls out and what drifts (never "No changes."), every annotation names a
file of the checked-out tree (none of the base ref's ``main:`` copies), and a tree that does not build fails the
step with its errors quoted in the log, not only its exit code."""

from __future__ import annotations

from pathlib import Path

import pytest
from recipe_harness import issue33_scratch, needs_ome, not_imported, run_action, workflow_commands

pytestmark = needs_ome


def _annotations(log: str) -> list[tuple[str, str]]:
    found = workflow_commands(log)
    return [(c.name, c.properties.get("file", "")) for c in found if c.name in ("error", "warning", "notice")]


def test_the_comment_tells_the_truth_about_a_profile_change(tmp_path: Path) -> None:
    work = issue33_scratch(tmp_path / "x", "profile")
    ran = run_action(work, tmp_path / "a", {"paths": "apps"})
    assert ran.outputs["exit-code"] == "1", ran
    body = Path(ran.outputs["body-file"]).read_text()
    assert "No changes." not in body
    assert "team-a/platform-3b" in body and "ClusterServingRuntime/sglang-profile" in body
    assert "team-a/batch" in body.split("drifting", 1)[1], "the pinned InferenceService drifts"
    annotations = _annotations(ran.step("omerender diff against the base branch").stdout)
    assert annotations, "the diagnostics are annotations"
    assert all((work / file).is_file() for _, file in annotations), annotations
    not_imported(work)


def test_a_broken_tree_fails_with_its_errors_in_the_log(tmp_path: Path) -> None:
    work = issue33_scratch(tmp_path / "x", "break")
    ran = run_action(work, tmp_path / "a", {"paths": "apps"})
    assert ran.codes[-1] == ("Fail on errors", 4), ran
    log = ran.step("Fail on errors").stdout
    assert "omerender diff exited 4: the tree does not build" in log
    child = "apps/team-b/runtimes/team-b-llama-3-1-8b.yaml"
    assert f"{child}:" in log and ": error: " in log, "the log quotes the errors"
    annotations = _annotations(ran.step("omerender diff against the base branch").stdout)
    assert ("error", child) in annotations
    assert all((work / file).is_file() for _, file in annotations), annotations


@pytest.mark.parametrize("paths", ["apps", "apps platform"])
def test_no_annotation_names_the_base_refs_copy(tmp_path: Path, paths: str) -> None:
    work = issue33_scratch(tmp_path / "x", "profile")
    ran = run_action(work, tmp_path / "a", {"paths": paths})
    log = ran.step("omerender diff against the base branch").stdout
    assert "main:" not in "".join(file for _, file in _annotations(log))
    assert "origin/main:" not in log
