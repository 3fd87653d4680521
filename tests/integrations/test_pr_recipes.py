"""The pull-request recipes (integrations/github/action.yml, integrations/gitlab/omerender-diff.gitlab-ci.yml):
their shell steps (and the Python they run) run here, in a scratch git repository with two commits whose
root holds hostile pip.py, json.py, venv.py and omerender.py, with stand-ins for venv, pip, gh and curl.
The comment body is produced, exit codes follow `omerender diff` (0 no change, 1 changes, 2 a usage error,
4 a tree that does not build), and none of the hostile modules is ever imported: every Python runs
isolated. The stand-ins for venv and pip import the real module with the flags they were called with,
so a call without -I from the pull request's tree would import the hostile one."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from recipe_harness import (
    GITHUB,
    GITLAB,
    MARKER,
    REPO,
    env,
    needs_jq,
    not_imported,
    run_action,
    run_gitlab,
    scratch,
    stubs,
)


@pytest.mark.parametrize(("change", "code"), [("bump", 1), ("none", 0), ("break", 4)])
def test_comment_body_script_follows_diff_exit_codes(tmp_path, change, code):
    work = scratch(tmp_path, change)
    folder, _ = stubs(tmp_path)
    body, summary = tmp_path / "body.md", tmp_path / "summary.md"
    run_env = env(
        folder,
        BASE_REF="main",
        OMERENDER_PATHS="manifests",
        BODY_FILE=str(body),
        GITHUB_STEP_SUMMARY=str(summary),
        OMERENDER_PYTHON=sys.executable,
    )
    done = subprocess.run(
        ["bash", str(GITHUB / "comment-body.sh")], cwd=work, env=run_env, capture_output=True, text=True, check=False
    )
    assert done.returncode == code, done.stderr
    text = body.read_text()
    assert text.startswith(MARKER + "\n")
    assert summary.read_text() == text, "the job summary holds the comment (fork pull requests get no comment)"
    if code == 1:
        assert "```mermaid\nflowchart TD\n" in text and "sglang-profile" in text
        assert "llama-demo/llama-3-2-3b-instruct" in text
    elif code == 0:
        assert "No changes." in text
    else:
        assert "omerender diff failed (exit 4)" in text and 'inherit-from parent "sglang-profile" not found' in text
        assert "InferenceServices that no longer render" in text  # the report follows the diagnostics
    not_imported(work)


def test_diagnostics_cannot_close_their_fence(tmp_path):
    work = scratch(tmp_path, "break")
    (work / "manifests" / "runtime.yaml").write_text(
        (work / "manifests" / "runtime.yaml").read_text().replace("sglang-llama-3-2-3b\n", "sglang-llama-3-2-3b\n", 1)
    )
    runtime = work / "manifests" / "extra.yaml"
    runtime.write_text("apiVersion: ome.io/v1beta1\nkind: ServingRuntime\nmetadata: {name: 'x````y @octocat'}\n")
    folder, _ = stubs(tmp_path)
    body = tmp_path / "body.md"
    run_env = env(
        folder, BASE_REF="main", OMERENDER_PATHS="manifests", BODY_FILE=str(body), OMERENDER_PYTHON=sys.executable
    )
    subprocess.run(["bash", str(GITHUB / "comment-body.sh")], cwd=work, env=run_env, capture_output=True, check=False)
    text = body.read_text()
    assert "x````y" in text and "\n`````\n" in text  # the fence is longer than the longest run inside


@needs_jq
def test_action_posts_one_comment_then_updates_it(tmp_path):
    work = scratch(tmp_path, "bump")
    first = run_action(work, tmp_path / "a", {"paths": "manifests"}, STUB_VIEWER="github-actions[bot]")
    assert [c for _, c in first.codes] == [0, 0, 0, 0], first
    assert first.outputs["exit-code"] == "1"
    body = Path(first.outputs["body-file"]).read_text()
    assert body.startswith(MARKER) and "```mermaid" in body and "sglang-profile" in body
    [venv, pip, viewer, listing, post] = first.calls
    assert venv == f"venv -I {tmp_path / 'a' / 'omerender-venv'}"
    assert pip == f"pip -I -m pip install --quiet --disable-pip-version-check {REPO}", "from the action's checkout"
    assert viewer.startswith("gh api graphql -f query=query { viewer { login } }")
    assert "repos/acme/models/issues/7/comments" in listing
    assert post.startswith("gh api --method POST repos/acme/models/issues/7/comments -F body=@")
    bot = "github-actions[bot]"
    posted = json.dumps([[{"id": 42, "user": {"login": bot}, "body": f"{MARKER}\nold"}]])
    again = run_action(work, tmp_path / "b", {"paths": "manifests"}, STUB_VIEWER=bot, STUB_COMMENTS=posted)
    assert again.calls[-1].startswith("gh api --method PATCH repos/acme/models/issues/comments/42 -F body=@")
    not_imported(work)


def test_a_fork_token_that_cannot_comment_does_not_fail_the_step(tmp_path):
    work = scratch(tmp_path, "bump")
    summary = tmp_path / "summary.md"
    ran = run_action(work, tmp_path / "a", {"paths": "manifests"}, STUB_GH_WRITE="1", GITHUB_STEP_SUMMARY=str(summary))
    assert [c for _, c in ran.codes] == [0, 0, 0, 0], ran
    assert "could not comment on #7" in ran.stderr and summary.read_text().startswith(MARKER)


def test_action_fails_on_errors_and_optionally_on_change(tmp_path):
    broken = run_action(scratch(tmp_path / "x", "break"), tmp_path / "a", {"paths": "manifests"})
    assert broken.codes[-1] == ("Fail on errors", 4) and broken.outputs["exit-code"] == "4"
    assert "omerender diff failed" in Path(broken.outputs["body-file"]).read_text()
    assert any("--method POST" in c for c in broken.calls), "the errors are posted too"
    strict = run_action(
        scratch(tmp_path / "y", "bump"), tmp_path / "b", {"paths": "manifests", "fail-on-change": "true"}
    )
    assert strict.codes[-1] == ("Fail on errors", 1)
    calm = run_action(scratch(tmp_path / "z", "none"), tmp_path / "c", {"paths": "manifests", "fail-on-change": "true"})
    assert calm.codes[-1] == ("Fail on errors", 0) and calm.outputs["exit-code"] == "0"


def test_gitlab_template_posts_then_updates_the_note(tmp_path):
    work = scratch(tmp_path, "bump")
    revision = "0123456789abcdef0123456789abcdef01234567"  # what a user sets OMERENDER_REVISION to
    code, calls, done = run_gitlab(work, tmp_path / "a", OMERENDER_GITLAB_TOKEN="secret", OMERENDER_REVISION=revision)
    assert code == 0, done.stderr
    assert "omerender diff exited 1" in done.stdout
    body = (work / "omerender-diff-comment.md").read_text()
    assert body.startswith(MARKER) and "```mermaid" in body and "llama-demo/llama-3-2-3b-instruct" in body
    assert calls[0] == f"venv -I {tmp_path / 'a' / 'venv'}"
    source = "git+https://github.com/omerender/omerender.git"
    assert calls[1] == f"pip -I -m pip install --quiet --disable-pip-version-check {source}@{revision}"
    assert calls[-1].startswith("curl --fail") and "--request POST" in calls[-1]
    assert calls[-1].endswith("https://gitlab.example.invalid/api/v4/projects/12/merge_requests/3/notes")
    # the CI systems' own reports, as declared under artifacts:reports
    assert (work / "omerender-junit.xml").read_text().startswith("<?xml")
    assert (work / "omerender-codequality.json").read_text() == "[]\n"
    # the marked note is on the second page: both pages are read, and it is updated, not posted again
    pages = [
        [{"id": n, "author": {"id": 7}, "body": "hello"} for n in range(100)],
        [{"id": 109, "author": {"id": 7}, "body": f"{MARKER}\nold"}],
    ]  # 7: the token's user, as GET /user answers
    code, calls, _ = run_gitlab(work, tmp_path / "b", OMERENDER_GITLAB_TOKEN="secret", STUB_PAGES=json.dumps(pages))
    assert code == 0 and "--request PUT" in calls[-1] and calls[-1].endswith("/notes/109")
    assert [re.search(r"[?&]page=(\d+)", c).group(1) for c in calls if "--dump-header" in c] == ["1", "2"]
    not_imported(work)


def test_gitlab_template_exit_codes(tmp_path):
    work = scratch(tmp_path / "x", "break")
    code, calls, done = run_gitlab(work, tmp_path / "a")
    assert code == 4 and "omerender diff exited 4" in done.stdout
    body = (work / "omerender-diff-comment.md").read_text()
    assert "omerender diff failed (exit 4)" in body and "no longer render" in body
    assert not any(c.startswith("curl") for c in calls), "no token: nothing is posted"
    code, _, done = run_gitlab(scratch(tmp_path / "y", "none"), tmp_path / "b", OMERENDER_FAIL_ON_CHANGE="true")
    assert code == 0 and "omerender diff exited 0" in done.stdout
    code, _, _ = run_gitlab(scratch(tmp_path / "z", "bump"), tmp_path / "c", OMERENDER_FAIL_ON_CHANGE="true")
    assert code == 1
    not_imported(work)


def test_recipes_install_from_this_repository_at_the_commit_the_user_sets():
    action = yaml.safe_load((GITHUB / "action.yml").read_text())
    job = yaml.safe_load(GITLAB.read_text())[".omerender-diff"]
    assert "omerender-version" not in action["inputs"], "the action installs its own checkout"
    assert job["variables"]["OMERENDER_REVISION"] == "<commit-sha>"  # no tag exists: the user sets a commit
    assert job["artifacts"]["reports"] == {"junit": "omerender-junit.xml", "codequality": "omerender-codequality.json"}
    for text in ((GITHUB / "install.sh").read_text(), (GITHUB / "comment-body.sh").read_text(), GITLAB.read_text()):
        calls = re.findall(r"python3?\}?\"? +(-[A-Za-z]+)", text)  # every Python the recipes start
        assert calls and all(flag == "-I" for flag in calls), calls
