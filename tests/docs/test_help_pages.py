"""Every --help page ends with examples that parse with the real commands and a docs URL that exists.

The README is not installed, so help links to docs/ on the forge: one base (constants.DOCS_URL) that the
package metadata and SARIF's helpUri share.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from markdown_links import anchors

from omerender import codes
from omerender.cli import examples, main
from omerender.constants import DOCS_URL, PROJECT_URL

REPO = Path(__file__).resolve().parents[2]
COMMANDS = sorted(main.list_commands(click.Context(main)))
SHELL = {"|", ">", "<", "&&", "||", ";"}


def _omerender_lines(name: str) -> list[list[str]]:
    """The argv of every example line of ``name`` that runs omerender itself (leading VAR=x and the shell's
    redirections left out; ``source <(...)`` and kpt's --exec lines are not omerender's to parse)."""
    found = []
    for block in examples.examples(name):
        for line in block.splitlines():
            if line.startswith("#"):
                continue
            words = shlex.split(line)
            while words and re.match(r"^[A-Z_]+=", words[0]):
                words.pop(0)
            if words[:1] == ["omerender"]:
                found.append(words[1 : next((i for i, w in enumerate(words) if w in SHELL), len(words))])
    return found


def test_every_command_has_examples_and_a_page() -> None:
    assert set(examples.EXAMPLES) == set(examples.DOCS) == {*COMMANDS, "omerender"}
    for name in ["omerender", *COMMANDS]:
        blocks = examples.examples(name)
        assert blocks and all(block.startswith("# ") for block in blocks), name


@pytest.mark.parametrize("name", ["omerender", *COMMANDS])
def test_each_example_parses_with_the_real_command(name: str) -> None:
    lines = _omerender_lines(name)
    assert lines or name in ("krm", "completion"), name
    for argv in lines:
        command_name, args = argv[0], argv[1:]
        assert name in ("omerender", command_name), (name, argv)
        command = main.commands[command_name]
        root = click.Context(main, info_name="omerender")
        command.make_context(command_name, list(args), parent=root)  # a UsageError fails the test


@pytest.mark.parametrize("name", ["omerender", *COMMANDS])
def test_each_docs_link_names_a_page_and_section_that_exist(name: str) -> None:
    page, _, anchor = examples.DOCS[name].partition("#")
    assert (REPO / "docs" / page).is_file(), page
    assert not anchor or anchor in anchors(REPO / "docs" / page), examples.DOCS[name]


@pytest.mark.parametrize("name", COMMANDS)
def test_help_ends_with_examples_then_the_docs_url(name: str) -> None:
    shown = CliRunner().invoke(main, [name, "--help"], terminal_width=80)
    assert shown.exit_code == 0, shown.output
    tail = shown.output.rsplit("Examples:", 1)
    assert len(tail) == 2, shown.output
    for line in (line for block in examples.examples(name) for line in block.splitlines()):
        assert f"    {line}\n" in tail[1], line  # whole: no command line is rewrapped
    assert shown.output.endswith(f"  Docs: {examples.docs_url(name)}\n")


def test_the_tool_help_links_the_index() -> None:
    shown = CliRunner().invoke(main, ["--help"], terminal_width=80).output
    assert "Examples:" in shown and shown.endswith(f"  Docs: {DOCS_URL}README.md\n")


def test_help_names_no_readme_and_only_docs_pages_that_exist() -> None:
    for name in COMMANDS:
        text = CliRunner().invoke(main, [name, "--help"], terminal_width=1000).output
        assert "README" not in text, name
        for page in re.findall(r"docs/([\w-]+\.md)", text):
            assert (REPO / "docs" / page).is_file(), (name, page)


def test_metadata_help_and_reports_share_one_docs_base() -> None:
    urls = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]
    assert urls["Homepage"] == PROJECT_URL and DOCS_URL.startswith(PROJECT_URL + "/")
    assert urls["Documentation"] == DOCS_URL + "README.md"
    assert codes.CODE_DOCS_URL == DOCS_URL + "codes.md"
