"""The one guard every command runs in: an expected failure is one line on stderr and its exit code, an
unexpected one exit 3, never a traceback; and standard input, read as the core asks for it."""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import click

from omerender.cli.verdict import tally
from omerender.diagnostics import one_line
from omerender.errors import EXIT_FINDINGS, OmerenderError

EXIT_INTERNAL = 3  # EXIT_FINDINGS (1) and EXIT_USAGE (2) come with the errors they mean
F = TypeVar("F", bound=Callable[..., Any])


def _terminate_as_interrupt() -> None:
    """SIGTERM (a CI job cancelled, a pod stopped) is handled like Ctrl-C: clean up, exit 130."""

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, interrupt)


def _stdout_failed(exc: OSError) -> None:
    """Say stdout could not be written (a full disk, a closed pipe) and exit 1; nothing more goes there."""

    with (
        open(os.devnull, "w", encoding="utf-8") as devnull,
        contextlib.suppress(OSError, ValueError, AttributeError),
    ):
        os.dup2(devnull.fileno(), sys.stdout.fileno())
    click.echo(f"omerender: error: cannot write to standard output: {exc.strerror or exc}", err=True)
    sys.exit(EXIT_FINDINGS)


def _flush_stdout() -> None:
    """Flush stdout now, so a full or closed stdout is an error of this run, not a message at exit."""
    try:
        sys.stdout.flush()
    except OSError as exc:
        _stdout_failed(exc)


def _aborted() -> None:
    """The run ends on an error line of ``guard``'s, not on its verdict: ``-v`` adds no summary after it."""
    tally().aborted = True


def guard(fn: F) -> F:
    """Turn anything unexpected into one line on stderr and exit 3, never a traceback.

    A failed write (``WriteError``, or any ``OSError``: a full disk, a read-only folder, a full
    stdout) is the environment, not a bug: one line naming the user's path, exit 1. So is running out of
    memory (``MemoryError``).
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        _terminate_as_interrupt()
        try:
            try:
                result = fn(*args, **kwargs)
            except SystemExit:
                _flush_stdout()
                raise
            _flush_stdout()
            return result
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort, SystemExit):
            raise
        except OmerenderError as exc:
            _aborted()
            click.echo(f"omerender: error: {one_line(str(exc))}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            _aborted()
            click.echo("omerender: interrupted", err=True)
            sys.exit(130)
        except MemoryError:  # the environment (ulimit -v, a container's limit), not a bug: one line, exit 1
            click.echo("omerender: error: out of memory", err=True)
            sys.exit(EXIT_FINDINGS)
        except OSError as exc:
            _aborted()
            if not exc.filename:  # files are named (WriteError, read diagnostics): this was stdout
                _stdout_failed(exc)
            click.echo(f"omerender: error: {exc.filename}: {exc.strerror or exc}", err=True)
            sys.exit(EXIT_FINDINGS)
        except Exception as exc:  # noqa: BLE001 - the one place internal errors become exit 3
            _aborted()
            click.echo(f"omerender: internal error: {type(exc).__name__}: {exc}", err=True)
            sys.exit(EXIT_INTERNAL)

    return wrapper  # type: ignore[return-value]


def stdin(limit: int = -1) -> bytes:
    """Standard input, at most ``limit`` bytes (the bounded reader asks for its cap plus one)."""
    return sys.stdin.buffer.read(limit)


stdin.bounded = True  # type: ignore[attr-defined]
