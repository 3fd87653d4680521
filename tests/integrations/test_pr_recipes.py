"""The pull-request recipes (integrations/github/action.yml, integrations/gitlab/omerender-diff.gitlab-ci.yml):
their shell steps run here, in a scratch git repository with two commits, with stand-ins for pip, gh and
curl. The comment body is produced, and exit codes follow `omerender diff` (0 no change, 1 changes, 2 errors)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
GITHUB = REPO / "integrations" / "github"
GITLAB = REPO / "integrations" / "gitlab" / "omerender-diff.gitlab-ci.yml"
DEMO = REPO / "fixtures" / "llama-demo"
MARKER = "<!-- omerender-diff -->"
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
OLD_IMAGE, NEW_IMAGE = "sglang:v0.5.5.post3-cu129-amd64", "sglang:v0.5.6-cu129-amd64"


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def _scratch(tmp_path: Path, change: str) -> Path:
    """origin (bare) holds main with the example; the work tree is on a branch with one more commit."""
    origin, work = tmp_path / "origin.git", tmp_path / "work"
    tmp_path.mkdir(parents=True, exist_ok=True)
    _git(tmp_path, "init", "--quiet", "--bare", "-b", "main", str(origin))
    work.mkdir()
    _git(work, "init", "--quiet", "-b", "main")
    shutil.copytree(DEMO, work / "manifests")
    _git(work, "add", "-A")
    _git(work, "commit", "--quiet", "-m", "the example")
    _git(work, "remote", "add", "origin", str(origin))
    _git(work, "push", "--quiet", "origin", "main")
    _git(work, "checkout", "--quiet", "-b", "change")
    if change == "bump":
        profile = work / "manifests" / "profile.yaml"
        profile.write_text(profile.read_text().replace(OLD_IMAGE, NEW_IMAGE))
    elif change == "break":
        (work / "manifests" / "profile.yaml").unlink()
    else:
        (work / "NOTES.md").write_text("nothing about runtimes\n")
    _git(work, "add", "-A")
    _git(work, "commit", "--quiet", "-m", change)
    return work


def _stubs(tmp_path: Path) -> tuple[Path, Path]:
    """pip (through `python -m pip`), gh and curl stand-ins that log their arguments, one call a line."""
    folder, log = tmp_path / "stubs", tmp_path / "calls.log"
    folder.mkdir(parents=True)
    scripts = {
        "python": f'if [ "$1" = -m ] && [ "$2" = pip ]; then echo "pip $*" >> "{log}"; exit 0; fi\n'
        f'exec "{sys.executable}" "$@"\n',
        "gh": f'echo "gh $*" >> "{log}"\ncase "$*" in *--jq*) printf "%s" "${{STUB_EXISTING:-}}";; esac\n',
        "curl": f'echo "curl $*" >> "{log}"\n'
        'case "$*" in *--request*) ;; *) printf "%s" "${STUB_NOTES:-[]}";; esac\n',
    }
    for name, body in scripts.items():
        path = folder / name
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(0o755)
    return folder, log


def _env(stubs: Path, **extra: str) -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)  # omerender, installed beside this Python
    path = os.pathsep.join([str(stubs), bin_dir, os.environ.get("PATH", "")])
    return {**os.environ, "PATH": path, "GIT_CONFIG_GLOBAL": os.devnull, **extra}


@dataclass
class Ran:
    codes: list[tuple[str, int]]
    outputs: dict[str, str]
    calls: list[str]
    stderr: str


EXPRESSION = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")


def run_action(work: Path, tmp_path: Path, inputs: dict[str, str], **env: str) -> Ran:
    """Run the composite action's `run` steps as GitHub does (bash -eo pipefail), stopping at the first
    that fails; `${{ }}` expressions are filled from the inputs, a pull_request context and earlier outputs."""
    action = yaml.safe_load((GITHUB / "action.yml").read_text())
    stubs, log = _stubs(tmp_path)
    output_file = tmp_path / "github_output"
    output_file.write_text("")
    context = {
        "github.base_ref": "main",
        "github.token": "token",
        "github.repository": "acme/models",
        "github.event.pull_request.number": "7",
        "runner.temp": str(tmp_path),
    }

    def fill(text: str) -> str:
        def one(match: re.Match[str]) -> str:
            key = match.group(1)
            if key.startswith("inputs."):
                name = key.removeprefix("inputs.")
                spec = action["inputs"][name]  # KeyError: the action names an input it does not declare
                return fill(inputs.get(name, str(spec.get("default", ""))))
            if key.startswith("steps.diff.outputs."):
                found = re.findall(
                    rf"^{re.escape(key.removeprefix('steps.diff.outputs.'))}=(.*)$", output_file.read_text(), re.M
                )
                return found[-1] if found else ""
            return context[key]  # KeyError: an expression this test does not know

        return EXPRESSION.sub(one, text)

    assert not set(inputs) - set(action["inputs"]), "unknown input"
    codes, stderr = [], ""
    for step in action["runs"]["steps"]:
        if "uses" in step:
            continue
        assert step["shell"] == "bash"
        step_env = {k: fill(str(v)) for k, v in (step.get("env") or {}).items()}
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", fill(step["run"])],
            cwd=work,
            env=_env(stubs, GITHUB_ACTION_PATH=str(GITHUB), GITHUB_OUTPUT=str(output_file), **step_env, **env),
            capture_output=True,
            text=True,
            check=False,
        )
        codes.append((step["name"], done.returncode))
        stderr += done.stderr
        if done.returncode != 0:
            break
    outputs = dict(re.findall(r"^([\w-]+)=(.*)$", output_file.read_text(), re.M))
    return Ran(codes, outputs, log.read_text().splitlines() if log.exists() else [], stderr)


@pytest.mark.parametrize(("change", "code"), [("bump", 1), ("none", 0), ("break", 2)])
def test_comment_body_script_follows_diff_exit_codes(tmp_path, change, code):
    work = _scratch(tmp_path, change)
    stubs, _ = _stubs(tmp_path)
    body = tmp_path / "body.md"
    env = _env(stubs, BASE_REF="main", OMERENDER_PATHS="manifests", BODY_FILE=str(body))
    done = subprocess.run(
        ["bash", str(GITHUB / "comment-body.sh")], cwd=work, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == code, done.stderr
    text = body.read_text()
    assert text.startswith(MARKER + "\n")
    if code == 1:
        assert "```mermaid\nflowchart TD\n" in text and "sglang-profile" in text
        assert "llama-demo/llama-3-2-3b-instruct" in text
    elif code == 0:
        assert "No changes." in text
    else:
        assert "omerender diff failed (exit 2)" in text and 'inherit-from parent "sglang-profile" not found' in text


def test_action_posts_one_comment_then_updates_it(tmp_path):
    work = _scratch(tmp_path, "bump")
    first = run_action(work, tmp_path / "a", {"paths": "manifests"})
    assert [c for _, c in first.codes] == [0, 0, 0, 0], first
    assert first.outputs["exit-code"] == "1"
    body = Path(first.outputs["body-file"]).read_text()
    assert body.startswith(MARKER) and "```mermaid" in body and "sglang-profile" in body
    [pip, listing, post] = first.calls
    assert pip.endswith(f"install --quiet omerender=={VERSION}"), "the recipe pins the released version"
    assert "repos/acme/models/issues/7/comments" in listing
    assert post.startswith("gh api --method POST repos/acme/models/issues/7/comments -F body=@")
    again = run_action(work, tmp_path / "b", {"paths": "manifests"}, STUB_EXISTING="42")
    assert again.calls[-1].startswith("gh api --method PATCH repos/acme/models/issues/comments/42 -F body=@")


def test_action_fails_on_errors_and_optionally_on_change(tmp_path):
    broken = run_action(_scratch(tmp_path / "x", "break"), tmp_path / "a", {"paths": "manifests"})
    assert broken.codes[-1] == ("Fail on errors", 2) and broken.outputs["exit-code"] == "2"
    assert "omerender diff failed" in Path(broken.outputs["body-file"]).read_text()
    assert any("--method POST" in c for c in broken.calls), "the errors are posted too"
    strict = run_action(
        _scratch(tmp_path / "y", "bump"), tmp_path / "b", {"paths": "manifests", "fail-on-change": "true"}
    )
    assert strict.codes[-1] == ("Fail on errors", 1)
    calm = run_action(
        _scratch(tmp_path / "z", "none"), tmp_path / "c", {"paths": "manifests", "fail-on-change": "true"}
    )
    assert calm.codes[-1] == ("Fail on errors", 0) and calm.outputs["exit-code"] == "0"


def run_gitlab(work: Path, tmp_path: Path, **env: str) -> tuple[int, list[str], subprocess.CompletedProcess[str]]:
    """The template's before_script and script, as one shell (as GitLab runs them), with its variables."""
    job = yaml.safe_load(GITLAB.read_text())[".omerender-diff"]
    stubs, log = _stubs(tmp_path)
    script = "\n".join(["set -eo pipefail", *job["before_script"], *job["script"]])
    variables = {k: str(v) for k, v in job["variables"].items()}
    ci = {
        "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
        "CI_API_V4_URL": "https://gitlab.example.invalid/api/v4",
        "CI_PROJECT_ID": "12",
        "CI_MERGE_REQUEST_IID": "3",
        "OMERENDER_PATHS": "manifests",
    }
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", script],
        cwd=work,
        env=_env(stubs, **{**variables, **ci, **env}),
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, (log.read_text().splitlines() if log.exists() else []), done


def test_gitlab_template_posts_then_updates_the_note(tmp_path):
    work = _scratch(tmp_path, "bump")
    code, calls, done = run_gitlab(work, tmp_path / "a", OMERENDER_GITLAB_TOKEN="secret")
    assert code == 0, done.stderr
    assert "omerender diff exited 1" in done.stdout
    body = (work / "omerender-diff-comment.md").read_text()
    assert body.startswith(MARKER) and "```mermaid" in body and "llama-demo/llama-3-2-3b-instruct" in body
    assert calls[0].endswith(f"install --quiet omerender=={VERSION}")
    assert calls[-1].startswith("curl --fail") and "--request POST" in calls[-1]
    assert calls[-1].endswith("https://gitlab.example.invalid/api/v4/projects/12/merge_requests/3/notes")
    notes = '[{"id": 5, "body": "hello"}, {"id": 9, "body": "<!-- omerender-diff -->\\nold"}]'
    code, calls, _ = run_gitlab(work, tmp_path / "b", OMERENDER_GITLAB_TOKEN="secret", STUB_NOTES=notes)
    assert code == 0 and "--request PUT" in calls[-1] and calls[-1].endswith("/notes/9")


def test_gitlab_template_exit_codes(tmp_path):
    code, calls, done = run_gitlab(_scratch(tmp_path / "x", "break"), tmp_path / "a")
    assert code == 2 and "omerender diff exited 2" in done.stdout
    assert not any(c.startswith("curl") for c in calls), "no token: nothing is posted"
    code, _, done = run_gitlab(_scratch(tmp_path / "y", "none"), tmp_path / "b", OMERENDER_FAIL_ON_CHANGE="true")
    assert code == 0 and "omerender diff exited 0" in done.stdout
    code, _, _ = run_gitlab(_scratch(tmp_path / "z", "bump"), tmp_path / "c", OMERENDER_FAIL_ON_CHANGE="true")
    assert code == 1


def test_recipes_pin_the_current_version():
    action = yaml.safe_load((GITHUB / "action.yml").read_text())
    job = yaml.safe_load(GITLAB.read_text())[".omerender-diff"]
    assert action["inputs"]["omerender-version"]["default"] == VERSION
    assert job["variables"]["OMERENDER_VERSION"] == VERSION
