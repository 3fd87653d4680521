"""Issue 33 through the pull-request recipes, with the recommended setup exactly as docs/integrations.md ("The
recommended setup") and the integrations' READMEs show it (the settings file, the GitHub workflow's inputs, the
GitLab job's variables), on the issue's repository (``tests/ome_repository.py``) whose pull request changes
``NCCL_DEBUG`` in a profile: the comment reports what rolls out and what drifts (never "No changes."), every
annotation and Code Quality finding names a file of the checked-out tree (none of the base ref's copies), and a
tree that does not build fails the step with its errors quoted in the log, not only its exit code."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from recipe_harness import (
    REPO,
    issue33_scratch,
    needs_ome,
    not_imported,
    run_action,
    run_gitlab,
    workflow_commands,
)

pytestmark = needs_ome
PAGES = (REPO / "docs" / "integrations.md", REPO / "integrations" / "github" / "README.md")
GITLAB_PAGES = (REPO / "docs" / "integrations.md", REPO / "integrations" / "gitlab" / "README.md")


def _blocks(page: Path) -> dict[str, str]:
    """The YAML blocks of ``page`` by their first line (a comment naming the file they go to)."""
    text = page.read_text()
    if page.name == "integrations.md":
        text = text[text.index("### The recommended setup") :]
    return {block.splitlines()[0]: block for block in re.findall(r"```yaml\n(.*?)```", text, re.S)}


def _documented(first_line: str, pages: tuple[Path, ...]) -> str:
    """The block whose first line starts with ``first_line``, the same on every page that shows it."""
    found = {next((b for line, b in _blocks(page).items() if line.startswith(first_line)), None) for page in pages}
    assert len(found) == 1 and None not in found, f"{first_line!r} differs between {[p.name for p in pages]}"
    return found.pop() or ""


def _settings() -> str:
    return _documented("# .omerender.yaml, committed at the repository root", (*PAGES, GITLAB_PAGES[1]))


def _github_inputs() -> dict[str, str]:
    workflow = yaml.safe_load(_documented("# GitHub: .github/workflows/omerender.yml", PAGES))
    [step] = [s for s in workflow["jobs"]["diff"]["steps"] if "integrations/github@" in s.get("uses", "")]
    return {k: str(v) for k, v in step["with"].items()}


def _gitlab_variables() -> dict[str, str]:
    job: dict[str, Any] = yaml.safe_load(_documented("# GitLab: .gitlab-ci.yml", GITLAB_PAGES))["omerender-diff"]
    return {k: str(v) for k, v in job["variables"].items() if k != "OMERENDER_REVISION"}


def _annotations(log: str) -> list[tuple[str, str]]:
    found = workflow_commands(log)
    return [(c.name, c.properties.get("file", "")) for c in found if c.name in ("error", "warning", "notice")]


def _truthful(body: str) -> None:
    assert "No changes." not in body
    assert "team-a/platform-3b" in body and "ClusterServingRuntime/sglang-profile" in body
    assert "team-a/batch" in body.split("drifting", 1)[1], "the pinned InferenceService drifts"
    assert "platform-phi-3-mini" not in body, "no app uses it"


def test_the_documented_github_setup_tells_the_truth_about_a_profile_change(tmp_path: Path) -> None:
    work = issue33_scratch(tmp_path / "x", "profile", _settings())
    ran = run_action(work, tmp_path / "a", _github_inputs())
    assert ran.outputs["exit-code"] == "1", ran
    _truthful(Path(ran.outputs["body-file"]).read_text())
    annotations = _annotations(ran.step("omerender diff against the base branch").stdout)
    assert annotations, "the diagnostics are annotations"
    assert all((work / file).is_file() for _, file in annotations), annotations
    not_imported(work)


def test_the_documented_gitlab_setup_tells_the_truth_about_a_profile_change(tmp_path: Path) -> None:
    work = issue33_scratch(tmp_path / "x", "profile", _settings())
    code, _, done = run_gitlab(work, tmp_path / "a", **_gitlab_variables())
    assert (code, "omerender diff exited 1") == (0, done.stdout.splitlines()[0]), done.stdout + done.stderr
    _truthful((work / "omerender-diff-comment.md").read_text())
    findings = json.loads((work / "omerender-codequality.json").read_text())
    assert findings and all((work / f["location"]["path"]).is_file() for f in findings), findings
    not_imported(work)


def test_a_broken_tree_fails_with_its_errors_in_the_log(tmp_path: Path) -> None:
    work = issue33_scratch(tmp_path / "x", "break", _settings())
    ran = run_action(work, tmp_path / "a", _github_inputs())
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
