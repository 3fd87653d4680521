"""The one bounded reader: every byte omerender reads (manifests, stdin, the lock, the model metadata,
the KRM config) comes through ``read_text``, and every YAML text through ``parse_bounded``.

* Regular files only: a FIFO, socket or device is refused before it is read (opened non-blocking,
  so a FIFO with no writer cannot hang the run), with a message naming the file.
* At most the cap plus one byte is read, so a file growing under us or ``/dev/zero`` costs no more.
* One ``Budget`` per run: the bytes read and the YAML nodes parsed, summed over every file. The
  node count is exact when it matters and free when it does not: a text cannot hold more nodes than
  twice its structural characters, so only a run whose texts could exceed the budget is counted.
* The same alias, depth and node limits (``yamlio.parse_documents``) for every file, so a file that
  ruamel.yaml reads afterwards (the lock) has passed them first.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import yaml

from omerender import codes
from omerender.constants import DEFAULT_MAX_FILE_BYTES, MIB, STDIN
from omerender.load.yamlio import ParsedDocument, count_nodes, parse_documents, possible_nodes

DEFAULT_MAX_TOTAL_BYTES = 48 * MIB  # the bench tree at scale 8 (50,000 documents) is 29 MiB
DEFAULT_MAX_TOTAL_NODES = 3_000_000  # about 2.1M at scale 8; node trees cost ~300 bytes a node


_CHUNK = 1 << 20  # bytes a read asks for when the size is not known
_open = os.open  # one name for tests to stand in for a failing open()


class ReadProblem(Exception):
    """A file that cannot or must not be read; the reader makes it a diagnostic (its ``code`` says how severe)."""

    def __init__(self, message: str, code: str, line: int = 1, col: int = 1) -> None:
        super().__init__(message)
        self.message, self.code, self.line, self.col = message, code, line, col


@dataclass
class Budget:
    """What one run may read in total; shared by every reader of the run."""

    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES
    max_total_nodes: int = DEFAULT_MAX_TOTAL_NODES
    bytes_read: int = 0
    nodes: int = 0
    nodes_possible: int = 0  # upper bound of the nodes in every text admitted so far
    alias_text: int = 0  # characters aliases repeat, over every document so far (at most max_total_bytes)
    cap_name: str = "--max-file-size"  # what sets max_file_bytes, for the message of a file over it

    def charge_bytes(self, size: int) -> None:
        if self.bytes_read + size > self.max_total_bytes:
            raise ReadProblem(
                f"the inputs hold more than {self.max_total_bytes} bytes in all (this file would bring them to "
                f"{self.bytes_read + size}); split the run",
                codes.RUN_TOO_LARGE,
            )
        self.bytes_read += size


def _read_fd(fd: int, cap: int, size: int = -1) -> bytes:
    """Up to ``cap + 1`` bytes of ``fd``; ``size``: a regular file's size from ``fstat``, so that a short read that
    brings the total to it ends the reading without one more ``read`` to find the end (10,000 files: 10,000 calls).

    The first read asks for the size and one byte more, not a whole chunk: ``os.read`` allocates what it is asked
    for before it reads, and a 1 MiB buffer for a 300-byte file made reading 10,000 of them four times slower."""
    chunks: list[bytes] = []
    left = cap + 1
    want = min(left, size + 1 if size >= 0 else _CHUNK)
    while left > 0:
        chunk = os.read(fd, want)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
        if len(chunk) < want and cap + 1 - left == size:
            break
        want = min(left, _CHUNK)
    return b"".join(chunks)


def read_bytes(path: str, budget: Budget, what: str = "file", stdin: Callable[..., bytes] | None = None) -> bytes:
    """At most ``budget.max_file_bytes`` bytes of ``path`` (``-``: ``stdin``); raises ``ReadProblem``."""
    cap = budget.max_file_bytes
    if path == STDIN:
        raw = stdin(cap + 1) if stdin is not None and getattr(stdin, "bounded", False) else (stdin or bytes)()
    else:
        try:
            fd = _open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0))
        except OSError as exc:
            raise ReadProblem(f"cannot read {what}: {exc.strerror}", codes.INPUT_UNREADABLE) from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise ReadProblem(
                    f"{what} is not a regular file (a FIFO, socket or device); not read", codes.SPECIAL_FILE
                )
            if st.st_size > cap:
                raise ReadProblem(
                    f"{what} is {st.st_size} bytes, over the {cap}-byte cap ({budget.cap_name})", codes.FILE_TOO_LARGE
                )
            raw = _read_fd(fd, cap, st.st_size)
        except OSError as exc:
            raise ReadProblem(f"cannot read {what}: {exc.strerror}", codes.INPUT_UNREADABLE) from None
        finally:
            os.close(fd)
    if len(raw) > cap:
        raise ReadProblem(f"{what} is over the {cap}-byte cap ({budget.cap_name})", codes.FILE_TOO_LARGE)
    budget.charge_bytes(len(raw))
    return raw


def decode(raw: bytes, what: str = "file") -> str:
    """UTF-8 text (a BOM dropped, CRLF line ends made LF); raises ``ReadProblem`` located at the bad byte."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ReadProblem(f"{what} is not valid UTF-8", codes.ENCODING, line=line, col=col) from None
    return text.replace("\r\n", "\n")


def read_text(path: str, budget: Budget, what: str = "file", stdin: Callable[..., bytes] | None = None) -> str:
    return decode(read_bytes(path, budget, what, stdin), what)


def admit(budget: Budget, texts: list[str]) -> None:
    """Note the texts a run will parse, before any is parsed: decides whether nodes must be counted."""
    budget.nodes_possible += sum(possible_nodes(t) for t in texts)


def parse_bounded(text: str, budget: Budget) -> Iterator[ParsedDocument]:
    """``parse_documents`` under the run's node budget; raises ``yaml.YAMLError`` with a mark when over it."""
    alone = 2 * len(text) + 2 > budget.max_total_nodes and possible_nodes(text) > budget.max_total_nodes  # bounds it
    if budget.nodes_possible > budget.max_total_nodes or alone:
        left = budget.max_total_nodes - budget.nodes
        problem = f"the inputs hold more than {budget.max_total_nodes} YAML nodes in all; split the run"
        budget.nodes += count_nodes(text, left, problem)
    for doc in parse_documents(text):
        budget.alias_text += doc.alias_text
        if budget.alias_text > budget.max_total_bytes:  # what is rendered and written grows with it
            raise yaml.MarkedYAMLError(
                problem=f"aliases in the inputs repeat more than {budget.max_total_bytes} characters of text in all; "
                "write the text out or split the run",
                problem_mark=doc.node.start_mark,
            )
        yield doc
