"""The pull-request recipes (integrations/github/action.yml, integrations/gitlab/omerender-diff.gitlab-ci.yml):
their shell steps (and the Python they run) run here, in a scratch git repository with two commits whose
root holds hostile pip.py, json.py, venv.py and omerender.py, with stand-ins for venv, pip, gh and curl.
The comment body is produced, exit codes follow `omerender diff` (0 no change, 1 changes, 2 a usage error,
4 a tree that does not build), and none of the hostile modules is ever imported: every Python runs
isolated. The stand-ins for venv and pip import the real module with the flags they were called with,
so a call without -I from the pull request's tree would import the hostile one."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
GITHUB = REPO / "integrations" / "github"
GITLAB = REPO / "integrations" / "gitlab" / "omerender-diff.gitlab-ci.yml"
DEMO = REPO / "fixtures" / "llama-demo"
MARKER = "<!-- omerender-diff -->"
HOSTILE = ("pip", "json", "venv", "omerender")
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
    marks = tmp_path / "marks"
    marks.mkdir()
    for module in HOSTILE:  # what a hostile pull request adds at its root: each leaves a mark when imported
        (work / f"{module}.py").write_text(f"open({str(marks / module)!r}, 'w').write('imported')\n")
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


FLAGS = """flags=""
while [ $# -gt 0 ]; do case "$1" in -I|-E|-s|-S|-P|-B|-u) flags="$flags $1"; shift;; *) break;; esac; done
"""


def _stubs(tmp_path: Path) -> tuple[Path, Path]:
    """Stand-ins that log their calls, one a line: python3 for `-m venv` (which makes a venv whose python
    stands in for `-m pip` and runs omerender for real), gh and curl (answering from STUB_* variables)."""
    folder, log = tmp_path / "stubs", tmp_path / "calls.log"
    folder.mkdir(parents=True)
    real = sys.executable  # omerender is installed for it
    venv_python = (
        f'#!/bin/sh\n{FLAGS}if [ "$1" = -m ] && [ "$2" = pip ]; then\n'
        f'  echo "pip$flags $*" >> "{log}"; "{real}" $flags -c "import pip"; exit 0\nfi\nexec "{real}" $flags "$@"\n'
    )
    scripts = {
        "python3": (
            f'{FLAGS}if [ "$1" = -m ] && [ "$2" = venv ]; then\n'
            f'  echo "venv$flags $3" >> "{log}"; "{real}" $flags -c "import venv"\n'
            f'  mkdir -p "$3/bin"; cat > "$3/bin/python" <<\'STUB\'\n{venv_python}STUB\n'
            f'  chmod +x "$3/bin/python"; exit 0\nfi\nexec "{real}" $flags "$@"\n'
        ),
        "gh": (
            f'echo "gh $*" >> "{log}"\ncase "$*" in *--jq*) printf "%s" "${{STUB_EXISTING:-}}";; '
            '*--method*) exit "${STUB_GH_WRITE:-0}";; esac\n'
        ),
    }
    for name, body in scripts.items():
        path = folder / name
        path.write_text("#!/bin/sh\n" + body)
        path.chmod(0o755)
    curl = folder / "curl"
    curl.write_text(
        f"#!{real}\n"
        "import json, os, re, sys\n"
        f"args = sys.argv[1:]\nopen({str(log)!r}, 'a').write('curl ' + ' '.join(args) + '\\n')\n"
        "if '--request' in args:\n    sys.exit(0)\n"
        "pages = json.loads(os.environ.get('STUB_PAGES', '[[]]'))\n"
        "page = int(re.search(r'[?&]page=(\\d+)', args[-1]).group(1))\n"
        "if '--dump-header' in args:\n"
        "    following = str(page + 1) if page < len(pages) else ''\n"
        "    with open(args[args.index('--dump-header') + 1], 'w') as f:\n"
        "        f.write(f'HTTP/2 200\\r\\nx-next-page: {following}\\r\\n\\r\\n')\n"
        "sys.stdout.write(json.dumps(pages[page - 1]))\n"
    )
    curl.chmod(0o755)
    return folder, log


def _not_imported(work: Path) -> None:
    marks = sorted(p.name for p in (work.parent / "marks").iterdir())
    assert marks == [], f"hostile modules imported: {marks}"


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


@pytest.mark.parametrize(("change", "code"), [("bump", 1), ("none", 0), ("break", 4)])
def test_comment_body_script_follows_diff_exit_codes(tmp_path, change, code):
    work = _scratch(tmp_path, change)
    stubs, _ = _stubs(tmp_path)
    body, summary = tmp_path / "body.md", tmp_path / "summary.md"
    env = _env(
        stubs,
        BASE_REF="main",
        OMERENDER_PATHS="manifests",
        BODY_FILE=str(body),
        GITHUB_STEP_SUMMARY=str(summary),
        OMERENDER_PYTHON=sys.executable,
    )
    done = subprocess.run(
        ["bash", str(GITHUB / "comment-body.sh")], cwd=work, env=env, capture_output=True, text=True, check=False
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
    _not_imported(work)


def test_diagnostics_cannot_close_their_fence(tmp_path):
    work = _scratch(tmp_path, "break")
    (work / "manifests" / "runtime.yaml").write_text(
        (work / "manifests" / "runtime.yaml").read_text().replace("sglang-llama-3-2-3b\n", "sglang-llama-3-2-3b\n", 1)
    )
    runtime = work / "manifests" / "extra.yaml"
    runtime.write_text("apiVersion: ome.io/v1beta1\nkind: ServingRuntime\nmetadata: {name: 'x````y @octocat'}\n")
    stubs, _ = _stubs(tmp_path)
    body = tmp_path / "body.md"
    env = _env(
        stubs, BASE_REF="main", OMERENDER_PATHS="manifests", BODY_FILE=str(body), OMERENDER_PYTHON=sys.executable
    )
    subprocess.run(["bash", str(GITHUB / "comment-body.sh")], cwd=work, env=env, capture_output=True, check=False)
    text = body.read_text()
    assert "x````y" in text and "\n`````\n" in text  # the fence is longer than the longest run inside


def test_action_posts_one_comment_then_updates_it(tmp_path):
    work = _scratch(tmp_path, "bump")
    first = run_action(work, tmp_path / "a", {"paths": "manifests"})
    assert [c for _, c in first.codes] == [0, 0, 0, 0], first
    assert first.outputs["exit-code"] == "1"
    body = Path(first.outputs["body-file"]).read_text()
    assert body.startswith(MARKER) and "```mermaid" in body and "sglang-profile" in body
    [venv, pip, listing, post] = first.calls
    assert venv == f"venv -I {tmp_path / 'a' / 'omerender-venv'}"
    assert pip == f"pip -I -m pip install --quiet --disable-pip-version-check {REPO}", "from the action's checkout"
    assert "repos/acme/models/issues/7/comments" in listing
    assert post.startswith("gh api --method POST repos/acme/models/issues/7/comments -F body=@")
    again = run_action(work, tmp_path / "b", {"paths": "manifests"}, STUB_EXISTING="42")
    assert again.calls[-1].startswith("gh api --method PATCH repos/acme/models/issues/comments/42 -F body=@")
    _not_imported(work)


def test_a_fork_token_that_cannot_comment_does_not_fail_the_step(tmp_path):
    work = _scratch(tmp_path, "bump")
    summary = tmp_path / "summary.md"
    ran = run_action(work, tmp_path / "a", {"paths": "manifests"}, STUB_GH_WRITE="1", GITHUB_STEP_SUMMARY=str(summary))
    assert [c for _, c in ran.codes] == [0, 0, 0, 0], ran
    assert "could not comment on #7" in ran.stderr and summary.read_text().startswith(MARKER)


def test_action_fails_on_errors_and_optionally_on_change(tmp_path):
    broken = run_action(_scratch(tmp_path / "x", "break"), tmp_path / "a", {"paths": "manifests"})
    assert broken.codes[-1] == ("Fail on errors", 4) and broken.outputs["exit-code"] == "4"
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
        "OMERENDER_VENV": str(tmp_path / "venv"),
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
    pages = [[{"id": n, "body": "hello"} for n in range(100)], [{"id": 109, "body": f"{MARKER}\nold"}]]
    code, calls, _ = run_gitlab(work, tmp_path / "b", OMERENDER_GITLAB_TOKEN="secret", STUB_PAGES=json.dumps(pages))
    assert code == 0 and "--request PUT" in calls[-1] and calls[-1].endswith("/notes/109")
    assert [re.search(r"[?&]page=(\d+)", c).group(1) for c in calls if "--dump-header" in c] == ["1", "2"]
    _not_imported(work)


def test_gitlab_template_exit_codes(tmp_path):
    work = _scratch(tmp_path / "x", "break")
    code, calls, done = run_gitlab(work, tmp_path / "a")
    assert code == 4 and "omerender diff exited 4" in done.stdout
    body = (work / "omerender-diff-comment.md").read_text()
    assert "omerender diff failed (exit 4)" in body and "no longer render" in body
    assert not any(c.startswith("curl") for c in calls), "no token: nothing is posted"
    code, _, done = run_gitlab(_scratch(tmp_path / "y", "none"), tmp_path / "b", OMERENDER_FAIL_ON_CHANGE="true")
    assert code == 0 and "omerender diff exited 0" in done.stdout
    code, _, _ = run_gitlab(_scratch(tmp_path / "z", "bump"), tmp_path / "c", OMERENDER_FAIL_ON_CHANGE="true")
    assert code == 1
    _not_imported(work)


def test_recipes_install_from_this_repository_at_the_commit_the_user_sets():
    action = yaml.safe_load((GITHUB / "action.yml").read_text())
    job = yaml.safe_load(GITLAB.read_text())[".omerender-diff"]
    assert "omerender-version" not in action["inputs"], "the action installs its own checkout"
    assert job["variables"]["OMERENDER_REVISION"] == "<commit-sha>"  # no tag exists: the user sets a commit
    assert job["artifacts"]["reports"] == {"junit": "omerender-junit.xml", "codequality": "omerender-codequality.json"}
    for text in ((GITHUB / "install.sh").read_text(), (GITHUB / "comment-body.sh").read_text(), GITLAB.read_text()):
        calls = re.findall(r"python3?\}?\"? +(-[A-Za-z]+)", text)  # every Python the recipes start
        assert calls and all(flag == "-I" for flag in calls), calls
