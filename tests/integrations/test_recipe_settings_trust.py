"""The critical reproduction of issue 31 through the GitHub recipe: a pull request adds a settings file that asks
``omerender diff`` to write its text report over the action's next script (or a ``.pth`` file of its venv), and a
runtime in a file whose name is a shell command. comment-body.sh runs in a scratch repository on a copy of the
action; the file named stays as it was, and the comment says why the run failed (a settings error, exit 2)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "llama-demo"


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    env |= {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


@pytest.mark.parametrize("target", ["action/post-comment.sh", "venv/lib/site-packages/zz.pth"])
def test_a_pull_requests_settings_file_cannot_choose_where_the_recipe_writes(tmp_path: Path, target: str) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    action = tmp_path / "action"
    shutil.copytree(REPO / "integrations" / "github", action)
    victim = tmp_path / target
    victim.parent.mkdir(parents=True, exist_ok=True)
    if not victim.exists():
        victim.write_text("# the venv's own\n")
    before = victim.read_bytes()
    origin, work = tmp_path / "origin.git", tmp_path / "work"
    _git(tmp_path, "init", "--quiet", "--bare", "-b", "main", str(origin))
    work.mkdir()
    _git(work, "init", "--quiet", "-b", "main")
    shutil.copytree(DEMO, work / "manifests")
    _git(work, "add", "-A")
    _git(work, "commit", "--quiet", "-m", "the example")
    _git(work, "remote", "add", "origin", str(origin))
    _git(work, "push", "--quiet", "origin", "main")
    _git(work, "checkout", "--quiet", "-b", "change")
    runtime = (DEMO / "runtime.yaml").read_text().replace("inherit-from: sglang-profile", "inherit-from: nope")
    (work / "manifests" / "x;id>pwned.txt;env>>pwned.txt;#.yaml").write_text(runtime.replace("sglang-llama", "x"))
    relative = os.path.relpath(victim, work / "manifests")
    (work / "manifests" / ".omerender.yaml").write_text(f'report-format: [text, "text={relative}"]\n')
    _git(work, "add", "-A")
    _git(work, "commit", "--quiet", "-m", "a hostile pull request")
    body = tmp_path / "body.md"
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    env |= {
        "BASE_REF": "main",
        "OMERENDER_PATHS": "manifests",
        "BODY_FILE": str(body),
        "OMERENDER_PYTHON": sys.executable,
    }
    done = subprocess.run(
        ["bash", str(action / "comment-body.sh")], cwd=work, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert victim.read_bytes() == before
    text = body.read_text()
    assert "omerender diff failed (exit 2)" in text, text
    assert "manifests/.omerender.yaml:1:23: error: [settings] report-format 'text=" in text, text
    assert not list(work.rglob("pwned.txt")) and not list(tmp_path.rglob("pwned.txt"))
