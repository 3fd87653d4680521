"""Every ``omerender`` command the README, docs/*.md and the integrations' READMEs show in a ```sh (or ```bash)
block is one omerender accepts as written: run in a folder holding the paths those recipes name (``manifests``,
``apps/llama``, ``platform/runtimes``, ``old``, ``new``, ...), none is a usage error (exit 2) or an internal one
(exit 3). Console transcripts are run, output and all, by test_console_examples.py; these recipes name paths of
their own, so only what omerender makes of the command line is checked here.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
from transcripts import REPO, run_step, workspace

BLOCK = re.compile(r"^```(?:sh|bash|shell)\n(.*?)^```$", re.S | re.M)
REDIRECT = re.compile(r"\s+>\s*\S+\s*$")  # `omerender graph ... > forest.svg`: what is printed is not checked
DEMO = "fixtures/llama-demo"
NEEDS_DOT = "-o svg"  # Graphviz renders it; without `dot` omerender says so (exit 2)


def _documents() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), *sorted(REPO.glob("integrations/*/README.md"))]


def _commands() -> list[tuple[str, str]]:
    """(where, command) for each ``omerender`` line of a shell block, continuations joined, comments dropped."""
    found: list[tuple[str, str]] = []
    for path in _documents():
        text = path.read_text(encoding="utf-8")
        for block in BLOCK.finditer(text):
            line = text[: block.start()].count("\n") + 1
            for raw in block.group(1).replace("\\\n", " ").splitlines():
                command = raw.strip().removeprefix("$ ")
                if command.startswith("omerender "):
                    words = shlex.split(REDIRECT.sub("", command), comments=True)
                    found.append((f"{path.relative_to(REPO)}:{line}", shlex.join(words)))
    return sorted(set(found))


COMMANDS = _commands()


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The llama-demo example under the names the recipes use, committed (``origin/main`` too)."""
    root = workspace(tmp_path_factory.mktemp("recipes") / "repo")
    demo = root / DEMO
    for name in ("manifests", "old", "new", "deploy/manifests"):
        shutil.copytree(demo, root / name)
    profile = root / "new" / "profile.yaml"
    profile.write_text(profile.read_text(encoding="utf-8").replace("v0.5.5.post3", "v0.5.6"), encoding="utf-8")
    for app, platform in (("apps", "platform"), ("apps2", "platform2")):
        (root / app / "llama").mkdir(parents=True)
        (root / platform / "runtimes").mkdir(parents=True)
        for name in ("runtime.yaml", "isvc.yaml"):
            shutil.copy(demo / name, root / app / "llama" / name)
        for name in ("profile.yaml", "model.yaml"):
            shutil.copy(demo / name, root / platform / "runtimes" / name)
    (root / "runtimes").mkdir()
    for name in ("profile.yaml", "runtime.yaml", "isvc.yaml", "model.yaml"):
        shutil.copy(demo / name, root / "runtimes" / name)
    generator = (REPO / "integrations" / "kustomize" / "example" / "omerender.yaml").read_text(encoding="utf-8")
    (root / "omerender.yaml").write_text(generator.replace("../../../fixtures/llama-demo", DEMO), encoding="utf-8")
    for step in ("git add -A", "git -c user.name=d -c user.email=d@e.invalid commit -qm recipes"):
        assert run_step(step, root, 0)[0] == 0
    assert run_step("git update-ref refs/remotes/origin/main HEAD", root, 0)[0] == 0
    return root


def test_the_recipes_are_found() -> None:
    shown = {command.split()[1] for _, command in COMMANDS}
    assert {"build", "diff", "lock", "status", "tree", "effective", "factor", "graph", "krm"} <= shown, shown


@pytest.mark.parametrize(("where", "command"), COMMANDS, ids=[f"{w} {c}" for w, c in COMMANDS])
def test_a_documented_command_is_accepted_as_written(template: Path, tmp_path: Path, where: str, command: str) -> None:
    if NEEDS_DOT in command and shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed")
    cwd = tmp_path / "repo"
    shutil.copytree(template, cwd, symlinks=True)
    code, printed = run_step(command, cwd, 0)
    assert code not in (2, 3) and "Traceback" not in printed, f"{where}: $ {command}\nexit {code}\n{printed}"
