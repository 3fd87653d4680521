"""Printing what ``build`` emits: the format's pieces on stdout in chunks, or the folder's verdict on stderr.

The choices (what to emit, compare, write) live in ``output.delivery``; this module only prints and exits.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

import click

from omerender.errors import EXIT_FINDINGS

if TYPE_CHECKING:
    from omerender.output.emit import Selection
    from omerender.result import BuildResult
    from omerender.settings import Settings

CHUNK_BYTES = 1 << 20


def echo_pieces(pieces: Iterable[str | bytes]) -> None:
    """``pieces`` on stdout as UTF-8, joined into chunks of about CHUNK_BYTES bytes as they are produced (a
    worker's text comes as bytes, read from its scratch file, and is written as it is).

    Called only once every check has passed, so nothing is written for a build that fails.
    """
    from omerender.pipeline import collector_paused

    pending: list[bytes] = []
    size = 0
    with collector_paused():  # writing makes millions of short-lived strings and no cycles
        for piece in pieces:
            data = piece.encode("utf-8") if isinstance(piece, str) else piece
            pending.append(data)
            size += len(data)
            if size >= CHUNK_BYTES:
                click.echo(b"".join(pending), nl=False)
                pending, size = [], 0
        if pending:
            click.echo(b"".join(pending), nl=False)


def deliver(selection: Selection, result: BuildResult, settings: Settings, ctx: click.Context) -> None:
    """Print the selection with its ``-o`` format, or write or compare ``--output-dir``; exit 1 on a verdict."""
    from omerender.cli.params import command_line
    from omerender.output.delivery import empty_problem, to_folder
    from omerender.output.formats import BUILD_PIECES

    problem = empty_problem(selection, result, settings)
    if problem:
        click.echo(f"omerender: error: {problem}", err=True)
        sys.exit(EXIT_FINDINGS)
    if not settings.output_dir:
        if not settings.check:
            echo_pieces(BUILD_PIECES[settings.output or "yaml"](selection.objects))
        return
    verdict = to_folder(selection, settings, command_line(ctx, drop=("--check",)))
    if verdict.message:
        click.echo(verdict.message, err=True, nl=False)
    if verdict.failed:
        sys.exit(EXIT_FINDINGS)
