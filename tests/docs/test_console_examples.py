"""Every console transcript in README.md and docs/*.md runs as written and prints what it shows.

How a transcript is read and run: tests/docs/transcripts.py. The README's walk-through is one of them, so a
change of output that the README shows fails here until the README shows the new output.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from transcripts import Session, Step, documents, matches, run_step, sessions, workspace

SESSIONS = [session for path in documents() for session in sessions(path)]


@pytest.mark.parametrize("session", SESSIONS, ids=[f"{s.document}:{s.line}" for s in SESSIONS])
def test_the_transcript_runs_as_written(session: Session, tmp_path: Path) -> None:
    cwd = workspace(tmp_path)
    code = 0
    for step in session.steps:
        code, printed = run_step(step.command, cwd, code)
        assert matches(step.expected, printed), f"{session.document}:{session.line}: $ {step.command}\n{printed}"


def test_the_readme_walks_through_the_example_with_every_command_it_names() -> None:
    readme = [s for s in SESSIONS if s.document == "README.md"]
    commands = " ".join(step.command for session in readme for step in session.steps)
    for command in ("build", "status", "tree", "diff --against", "effective"):
        assert f"omerender {command}" in commands, command
    assert "fixtures/llama-demo" in commands


def test_an_ellipsis_stands_for_any_lines_and_nothing_else() -> None:
    assert matches("a\n...\nd\n", "a\nb\nc\nd\n") and matches("a\n...\nd\n", "a\nd\n")
    assert not matches("a\n...\nd\n", "a\nb\n") and not matches("a\nd\n", "a\nb\nd\n")
    assert not matches("a\n", "a\nextra\n") and matches("", "")


def test_a_session_is_read_as_commands_and_their_output(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("x\n```console\n$ omerender tree a\nline\n$ echo $?\n0\n```\n```sh\n$ not run\n```\n")
    [session] = sessions(page)
    assert session.line == 2 and session.steps == (Step("omerender tree a", "line\n"), Step("echo $?", "0\n"))
    assert run_step("echo $?", tmp_path, 4) == (0, "4\n")
    assert run_step("printf 'x\\n' >&2; exit 3", tmp_path, 0) == (3, "x\n")
