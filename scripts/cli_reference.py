#!/usr/bin/env python3
"""Write docs/cli.md, the command-line reference, from the click commands themselves.

    python scripts/cli_reference.py            # rewrite docs/cli.md
    python scripts/cli_reference.py --check    # exit 1 when docs/cli.md is stale (what the test checks)

Every command, its usage line, help text, each option with its help, default and range as ``--help`` gives them,
the other ways to give a shared setting (``OMERENDER_*``, ``.omerender.yaml``, Argo CD, KRM: from the settings
registry, omerender/settings.py), and the command's examples and docs page (omerender/cli/examples.py). Nothing is
written by hand, so the page cannot drift from the code: tests/docs/test_cli_reference.py compares it.
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from pathlib import Path

import click

from omerender.cli import main
from omerender.cli.examples import DOCS, examples
from omerender.settings import BY_STEM, Route, Spec

PAGE = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
REGENERATE = "python scripts/cli_reference.py"
_MARKDOWN = re.compile(r"([\\*_\[\]<>|#])")  # what would otherwise be read as markdown in help text


def _plain(text: str) -> str:
    """Help text as markdown that shows it as written: code spans kept, other markup characters escaped."""
    parts = re.split(r"(`[^`]*`)", text)
    return "".join(part if part.startswith("`") else _MARKDOWN.sub(r"\\\1", part) for part in parts)


def _help_blocks(text: str) -> list[str]:
    """A command's help as paragraphs; a paragraph click keeps as typed (``\\b``) becomes a text block."""
    blocks = []
    for paragraph in inspect.cleandoc(text).split("\n\n"):
        if paragraph.startswith("\b"):
            blocks.append("```text\n" + paragraph.removeprefix("\b").strip("\n") + "\n```")
        else:
            blocks.append(_plain(" ".join(line.strip() for line in paragraph.splitlines())))
    return blocks


def _ways_in(spec: Spec) -> str:
    """The other places a shared setting can be given, as the settings registry declares them."""
    ways = []
    if Route.FILE in spec.routes:
        ways.append(f"`{spec.env_name}`")
        if not spec.writes:
            ways.append(f"`{spec.stem}:` in `.omerender.yaml`")
    if Route.ARGOCD in spec.routes:
        ways.append(f"Argo CD parameter `{spec.stem}`")
    if Route.KRM in spec.routes:
        ways.append(f"KRM key `{spec.krm_key}`")
    return f" Also: {', '.join(ways)}." if ways else ""


def _option(param: click.Parameter, ctx: click.Context) -> str | None:
    """One option as a list item; None for an argument (the usage line shows it), a hidden option and --help."""
    record = param.get_help_record(ctx) if isinstance(param, click.Option) else None
    if record is None or "--help" in param.opts:
        return None
    names, _ = record
    help_text = _plain(param.help or "")
    extra = param.get_help_extra(ctx)
    facts = [f"default: `{extra['default']}`"] if "default" in extra else []
    facts += [f"range: `{extra['range']}`"] if "range" in extra else []
    facts += ["required"] if "required" in extra else []
    line = f"- `{names}`: {help_text}"
    line += f" ({'; '.join(facts)})" if facts else ""
    long_name = next((o for o in param.opts if o.startswith("--")), "")
    spec = BY_STEM.get(long_name.removeprefix("--"))
    return line + (_ways_in(spec) if spec and spec.name == param.name else "")


def _section(name: str, command: click.Command, parent: click.Context | None) -> list[str]:
    ctx = click.Context(command, info_name=name, parent=parent)
    title = "omerender" if parent is None else name
    usage = " ".join([ctx.command_path, *command.collect_usage_pieces(ctx)])
    lines = [f"## {title}", "", f"`{usage}`", ""]
    for block in _help_blocks(command.help or ""):
        lines += [block, ""]
    options = [line for p in command.get_params(ctx) if (line := _option(p, ctx)) is not None]
    if options:
        lines += ["Options:", "", *options, ""]
    shown = examples(title)
    if shown:
        lines += ["Examples:", "", "```sh", "\n\n".join(shown), "```", ""]
    page = DOCS[title]
    lines += [f"Guide: [{page.partition('#')[0]}]({page})", ""]
    return lines


def reference() -> str:
    """docs/cli.md."""
    root = click.Context(main, info_name="omerender")
    names = [name for name in main.list_commands(root) if not main.commands[name].hidden]
    lines = [
        "# Command-line reference",
        "",
        f"<!-- Made from the click commands by {REGENERATE}; tests/docs/test_cli_reference.py fails when it is",
        "     stale. -->",
        "",
        "Every command and option, as `omerender COMMAND --help` shows them (`-h` and `--help` work everywhere).",
        "An option that is a shared setting says where else it can be given: the precedence is the command line,",
        "then the environment, then the settings file ([usage.md](usage.md#settings)). Examples run from a clone's",
        "root; `manifests` stands for your own folder.",
        "",
        "Commands: " + ", ".join(f"[{name}](#{name})" for name in names) + ".",
        "",
    ]
    lines += _section("omerender", main, None)
    for name in names:
        lines += _section(name, main.commands[name], root)
    return "\n".join(lines).rstrip("\n") + "\n"


def run(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when docs/cli.md is stale")
    check = parser.parse_args(argv).check
    text = reference()
    if check:
        stale = not PAGE.exists() or PAGE.read_text(encoding="utf-8") != text
        if stale:
            print(f"docs/cli.md is stale: run {REGENERATE}", file=sys.stderr)
        return int(stale)
    PAGE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(run())
