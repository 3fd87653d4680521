"""Printing what ``build`` delivers to stdout: the format's pieces, in chunks, as they are produced."""

from __future__ import annotations

from collections.abc import Iterable

import click

CHUNK_BYTES = 1 << 20


def echo_pieces(pieces: Iterable[str | bytes]) -> None:
    """``pieces`` on stdout as UTF-8, joined into chunks of about CHUNK_BYTES bytes as they are produced (a
    worker's text comes as bytes, read from its scratch file, and is written as it is).

    Called only once every check has passed, so nothing is written for a build that fails.
    """
    pending: list[bytes] = []
    size = 0
    for piece in pieces:
        data = piece.encode("utf-8") if isinstance(piece, str) else piece
        pending.append(data)
        size += len(data)
        if size >= CHUNK_BYTES:
            click.echo(b"".join(pending), nl=False)
            pending, size = [], 0
    if pending:
        click.echo(b"".join(pending), nl=False)
