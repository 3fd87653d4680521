"""The click parameters several commands declare alike: PATHS, ``-o/--output`` with its hint, ``-n`` and
``--output-dir`` checked, and the command line as typed (for the hints that repeat it)."""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from typing import Any

import click

from omerender.cli.guard import F


def namespace_callback(ctx: click.Context, param: click.Parameter, value: str) -> str:
    from omerender.names import is_dns_label  # its patterns compile: not for --version (start-up)

    if not is_dns_label(value):
        shown = value if len(value) <= 80 else value[:80] + "…"
        raise click.BadParameter(
            f"{shown!r} is not a valid namespace: a DNS-1123 label (lower case letters, digits and '-', "
            "starting and ending with a letter or digit, at most 63 characters)"
        )
    return value


paths_argument = click.argument("paths", nargs=-1, required=True, type=click.Path(allow_dash=True))


class OutputFormat(click.Choice):  # type: ignore[type-arg]
    """``-o/--output FORMAT``: only a format; a folder (or anything else) is a usage error with a hint."""

    def __init__(self, formats: list[str], hint: str) -> None:
        super().__init__(formats)
        self.hint = hint

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:

        if value in self.choices:
            return value
        folder = "/" in str(value) or os.sep in str(value) or os.path.isdir(str(value))
        what = "a folder" if folder else "not an output format"
        message = f"{value!r} is {what}: -o picks one of {', '.join(map(str, self.choices))}. "
        raise click.BadParameter(message + self.hint.format(value=value), ctx, param)


def output_option(formats: list[str], default: str | None, help_text: str, hint: str) -> Callable[[F], F]:
    """``-o/--output FORMAT``, the same in every command (kubectl's convention)."""
    return click.option(
        "-o",
        "--output",
        type=OutputFormat(formats, hint),
        default=default,
        show_default=default is not None,
        help=help_text,
    )


STDOUT_HINT = "Output goes to stdout; redirect it to write a file."


def folder_callback(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from omerender.output.formats import FORMAT_NAMES  # not for --version (start-up)

    if value is not None and value in FORMAT_NAMES and not os.path.isdir(value):
        raise click.BadParameter(
            f"{value!r} is an output format, not a folder: did you mean -o {value}? "
            f"(for a folder of that name, write --output-dir ./{value})",
            ctx,
            param,
        )
    return value


def command_line(ctx: click.Context, drop: tuple[str, ...] = ()) -> str:
    """The command as it was typed (``omerender`` and its arguments), shell-quoted, without ``drop`` flags."""
    argv = ctx.find_root().meta.get(ARGV_KEY)
    args = [a for a in argv if a not in drop] if isinstance(argv, list) else [ctx.command_path]
    return shlex.join(["omerender", *args]) if isinstance(argv, list) else ctx.command_path


ARGV_KEY = "omerender.argv"
