"""The console transcripts of README.md and docs/*.md: each ```console block is a session, run as written.

A block is a run of ``$ COMMAND`` lines, each followed by the output it prints (stdout, then stderr). Rules a
writer needs (docs/design.md, "Docs" says the same):

- Sessions start in a fresh folder holding a copy of ``fixtures/`` committed to a new git repository, so
  ``omerender diff --against HEAD`` and ``git checkout`` work, and a command may edit or write files there.
- ``omerender ...`` runs in this process (click's runner; leading ``NAME=value`` words set the environment), any
  other command under ``bash -c``; ``echo $?`` prints the exit code of the command before it.
- An output line that is only ``...`` stands for any number of lines.
- A recipe with paths of your own (``manifests``) goes in a ```sh block: shown, never run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner

REPO = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```console\n(.*?)^```$", re.S | re.M)
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
ELLIPSIS = "..."


@dataclass(frozen=True)
class Step:
    command: str
    expected: str  # the lines shown after the command, each ending in a newline


@dataclass(frozen=True)
class Session:
    document: str  # relative to the repository
    line: int  # where the block starts
    steps: tuple[Step, ...]


def documents() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def sessions(path: Path) -> list[Session]:
    text = path.read_text(encoding="utf-8")
    found = []
    for match in BLOCK.finditer(text):
        steps: list[Step] = []
        command, shown = None, []  # type: tuple[str | None, list[str]]
        for line in match.group(1).splitlines():
            if line.startswith("$ "):
                if command is not None:
                    steps.append(Step(command, "".join(shown)))
                command, shown = line[2:], []
            else:
                assert command is not None, f"{path.name}: a console block starts with output, not a $ command"
                shown.append(line + "\n")
        if command is not None:
            steps.append(Step(command, "".join(shown)))
        line = text.count("\n", 0, match.start()) + 1
        name = str(path.relative_to(REPO)) if path.is_relative_to(REPO) else path.name
        found.append(Session(name, line, tuple(steps)))
    return found


def matches(expected: str, actual: str) -> bool:
    """``actual`` is ``expected``, where a line ``...`` stands for any lines (none included)."""
    parts = expected.split(ELLIPSIS + "\n")
    pattern = "(?:.*\n)*?".join(re.escape(part) for part in parts)
    return re.fullmatch(pattern, actual) is not None


def workspace(root: Path) -> Path:
    """A fresh folder holding ``fixtures/``, committed to a new git repository."""
    shutil.copytree(REPO / "fixtures", root / "fixtures")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for argv in (["git", "init", "-q"], ["git", "add", "-A"]):
        subprocess.run(argv, cwd=root, check=True, env=env)
    ident = ["-c", "user.name=docs", "-c", "user.email=docs@example.invalid", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", *ident, "commit", "-qm", "fixtures"], cwd=root, check=True, env=env)
    return root


def run_step(command: str, cwd: Path, last_code: int) -> tuple[int, str]:
    """Run one command of a session in ``cwd``: its exit code and what it printed (stdout, then stderr)."""
    if command.strip() == "echo $?":
        return 0, f"{last_code}\n"
    words = shlex.split(command, comments=True)
    env = {}
    while words and ASSIGNMENT.match(words[0]):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    if words and words[0] == "omerender" and not set(words) & {"|", ">", "<", "&&", "||", ";"}:
        return _in_process(words[1:], env, cwd)
    clean = {name: value for name, value in os.environ.items() if not name.startswith("OMERENDER_")}
    done = subprocess.run(["bash", "-c", command], cwd=cwd, env=clean, capture_output=True, text=True, check=False)
    return done.returncode, done.stdout + done.stderr


_OURS_UNSET: dict[str, str | None] = {name: None for name in os.environ if name.startswith("OMERENDER_")}


def _in_process(args: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str]:
    from omerender.cli import main

    here = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner(env={**_OURS_UNSET, **env}).invoke(main, args, prog_name="omerender")
    finally:
        os.chdir(here)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout + result.stderr
