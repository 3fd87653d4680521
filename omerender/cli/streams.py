"""The process around a command: standard streams written patiently, and the hard exit at the end.

``exit_hard`` is the console entry point's frame: it holds descriptors 0-2, writes stdout and stderr through
``_Descriptor`` (every byte; quiet once the reader has gone), runs ``main`` and ends the process with its exit
code without the interpreter's teardown. A failed write to stdout outside a command is one line and exit 1.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import sys
from collections.abc import Callable
from typing import Any

import click

from omerender.errors import EXIT_FINDINGS

_kept: list[object] | None = None  # while ``run`` exits hard: what the process ends with, never freed one by one


def keep_to_exit(value: object) -> None:
    """Under ``cli.run``, hold ``value`` until the process ends, so leaving the command frees nothing object by
    object (a large build holds millions); in a test's CliRunner, nothing is held."""
    if _kept is not None:
        _kept.append(value)


class _ClosedStdout(io.TextIOBase):
    """Standard output the caller closed (``>&-``): writing to it is the error ``cannot write to standard output``."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "it is closed")


class _Descriptor(io.RawIOBase):
    """Standard output or error as the run writes it: every byte (a full non-blocking pipe is waited on, so
    nothing is dropped), until the reader has gone (EPIPE: ``omerender build | head -1``).

    A reader that closes its end has read all it wants: from then on this stream is silently dropped and the
    command ends with the exit code of its own verdict. Go programs such as kubectl die of SIGPIPE there
    without a message (a shell sees 141), which ``set -o pipefail`` counts as a failure of the writer; the
    reader's own exit status already says whether the pipeline failed, so omerender, like ripgrep, stays
    quiet and keeps its code. A full disk or a closed descriptor is still an error (``cannot write``).
    """

    def __init__(self, fd: int) -> None:
        from omerender.output.onefile import write_all  # now: a write must not need memory for an import

        super().__init__()
        self._fd = fd
        self._write_all = write_all
        self.reader_gone = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: Any) -> int:
        if not self.reader_gone:
            try:
                self._write_all(self._fd, bytes(data))
            except BrokenPipeError:
                self.reader_gone = True
        return len(data)


def _wrapped(old: Any, fd: int) -> io.TextIOWrapper:
    return io.TextIOWrapper(
        io.BufferedWriter(_Descriptor(fd)),
        encoding=old.encoding,
        errors=old.errors,
        line_buffering=old.line_buffering,
        write_through=fd == 2,
    )


def _standard_streams() -> None:
    """Closed descriptors 0-2 are held on /dev/null (so no file the run opens becomes one), a closed stdout
    fails at its first write, and stdout and stderr are written through ``_Descriptor``: patiently, and
    quietly dropped once their reader has gone."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            spare = os.open(os.devnull, os.O_RDWR)
            if spare != fd:
                os.dup2(spare, fd)
                os.close(spare)
    if sys.stdout is None:
        sys.stdout = _ClosedStdout()
    else:
        sys.stdout.flush()
        sys.stdout = _wrapped(sys.stdout, sys.stdout.fileno())
    if sys.stderr is not None:
        sys.stderr.flush()
        sys.stderr = _wrapped(sys.stderr, sys.stderr.fileno())


def exit_hard(main: Callable[[], object]) -> None:
    """Run ``main`` and end the process with its exit code, once stdout and stderr are flushed, without the
    interpreter's teardown (mypy ends the same way): the outputs are written and closed by then.

    A write to stdout that fails outside a command (``--help``, ``--version``, ``completion`` into a full
    disk) or at the final flush is one line on stderr and exit 1, never a traceback or a silent exit 0.
    """
    global _kept  # noqa: PLW0603 - one switch for the process, set by its entry point
    _kept = []
    with contextlib.suppress(OSError, ValueError, AttributeError):
        _standard_streams()
    try:
        main()
        code: Any = 0
    except SystemExit as exc:
        code = exc.code
    except OSError as exc:
        code = _lost_stdout(exc)
    except MemoryError:  # outside a command's guard (parsing, the closing summary): one line, no traceback
        with contextlib.suppress(OSError):
            os.write(2, b"omerender: error: out of memory\n")
        code = EXIT_FINDINGS
    if code is None:
        code = 0
    elif not isinstance(code, int):
        click.echo(str(code), err=True)  # what Python prints for sys.exit("text")
        code = 1
    try:
        sys.stdout.flush()
    except (OSError, ValueError) as exc:
        code = _lost_stdout(exc) if isinstance(exc, OSError) else EXIT_FINDINGS
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.flush()
    os._exit(code)


def _lost_stdout(exc: OSError) -> int:
    """After a failed write to stdout: stop writing there, say so in one line, and exit 1."""
    with (
        open(os.devnull, "w", encoding="utf-8") as devnull,
        contextlib.suppress(OSError, ValueError, AttributeError),
    ):
        os.dup2(devnull.fileno(), sys.stdout.fileno())
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - held until the process ends
        click.echo(f"omerender: error: cannot write to standard output: {exc.strerror or exc}", err=True)
    return EXIT_FINDINGS
