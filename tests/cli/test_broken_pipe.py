"""A reader that stops reading (``omerender build | head -1``) ends the run quietly, with the command's own code.

Each command runs as a process whose stdout is a pipe with no reader left (its read end closed before the
start), so its first write meets EPIPE. kubectl and other Go programs die of SIGPIPE there, without a word
(141 to a shell, which ``set -o pipefail`` counts as a failure); omerender says nothing either, and exits
with the code of its own verdict, so a pipeline fails only when its reader does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "llama-demo"
RESOURCE_LIST = {
    "apiVersion": "config.kubernetes.io/v1",
    "kind": "ResourceList",
    "items": [],
    "functionConfig": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"paths": "demo"}},
}


def _closed_pipe_run(args: list[str], cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[bytes]:
    read, write = os.pipe()
    os.close(read)  # nobody will ever read: the first write to stdout fails with EPIPE
    try:
        return subprocess.run(
            [sys.executable, "-m", "omerender", *args],
            stdout=write,
            stderr=subprocess.PIPE,
            input=stdin.encode(),
            cwd=cwd,
            check=False,
            timeout=120,
        )
    finally:
        os.close(write)


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["build", "demo"], 0),
        (["build", "demo", "-o", "json"], 0),
        (["status", "demo", "-o", "yaml"], 0),
        (["tree", "demo"], 0),
        (["graph", "demo", "-o", "json"], 0),
        (["effective", "llama-3-2-3b-instruct", "-n", "llama-demo", "demo"], 0),
        (["diff", "demo", "changed"], 1),  # the verdict (changes) is kept
        (["argocd-generate", "demo"], 0),
        (["krm"], 0),
        (["completion", "bash"], 0),
        (["--help"], 0),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else str(value),
)
def test_a_reader_that_has_gone_is_not_an_error(tmp_path: Path, args: list[str], code: int) -> None:
    shutil.copytree(DEMO, tmp_path / "demo")
    shutil.copytree(DEMO, tmp_path / "changed")
    profile = tmp_path / "changed" / "profile.yaml"
    profile.write_text(profile.read_text(encoding="utf-8").replace("v0.5.5", "v0.5.6"), encoding="utf-8")
    done = _closed_pipe_run(args, tmp_path, json.dumps(RESOURCE_LIST) if args == ["krm"] else "")
    assert (done.returncode, done.stderr.decode()) == (code, "")


def test_head_in_a_pipefail_script(tmp_path: Path) -> None:
    """The issue's route: more output than a pipe holds (about 1.4 MB), cut by head under set -o pipefail."""
    shutil.copytree(DEMO, tmp_path / "big")
    isvc = (DEMO / "isvc.yaml").read_text(encoding="utf-8")
    copies = [
        isvc.replace("name: llama-3-2-3b-instruct\n  namespace", f"name: llama-{i}\n  namespace") for i in range(200)
    ]
    (tmp_path / "big" / "isvc.yaml").write_text("\n---\n".join(copies), encoding="utf-8")
    script = f"set -o pipefail; {sys.executable} -m omerender build big | head -1"
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert (done.returncode, done.stderr, done.stdout.count("\n")) == (0, "", 1), done
