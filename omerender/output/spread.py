"""File work spread over forked processes (``build -j N --output-dir``): creating and deleting many files.

Most of the time ``--output-dir`` spends on 30,000 files is the kernel's: ``open(O_CREAT|O_EXCL)`` for
each new file and ``unlink`` for each of the previous run's. Processes working in different folders
do that work in parallel. Each share runs in a forked child that inherits the descriptors it works
below; a child that fails with an ``OSError`` sends back its path and reason, raised again here as the
same ``OSError`` (so the caller names the user's path as it always does); a child killed, or failing
otherwise, is ``fanout.WorkerFailed`` (exit 3). Every child is waited for before this returns.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from collections.abc import Callable, Sequence
from typing import TypeVar

from omerender.errors import WriteError

T = TypeVar("T")

SPREAD_LEAST = 2000
"""Fewer files than this are written or removed in this process: forking would cost more than it gives."""


def shares(items: Sequence[T], count: int) -> list[Sequence[T]]:
    """``items`` in at most ``count`` contiguous shares whose sizes differ by at most one (none empty)."""
    count = max(1, min(count, len(items)))
    size, extra = divmod(len(items), count)
    out, start = [], 0
    for index in range(count):
        end = start + size + (1 if index < extra else 0)
        out.append(items[start:end])
        start = end
    return out


def _child(write_fd: int, work: Callable[[Sequence[T]], None], share: Sequence[T]) -> None:
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        try:
            work(share)
            message = b""
        except WriteError as exc:
            message = pickle.dumps((None, str(exc), None))
        except OSError as exc:
            message = pickle.dumps((exc.errno, exc.strerror or str(exc), exc.filename))
        os.write(write_fd, message)
        code = 0
    except BaseException:  # noqa: BLE001, S110 - the parent sees the exit status
        pass
    finally:
        os._exit(code)


def spread(groups: Sequence[Sequence[T]], work: Callable[[Sequence[T]], None]) -> None:
    """``work(group)`` for every group, each in a forked child, all at once; the first failure is raised."""
    from omerender.fanout import WorkerFailed

    running: list[tuple[int, int]] = []
    try:
        for group in groups:
            read_fd, write_fd = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child ends in os._exit
                os.close(read_fd)
                _child(write_fd, work, group)
            os.close(write_fd)
            running.append((pid, read_fd))
        failures: list[OSError] = []
        broken = ""
        while running:
            pid, read_fd = running[0]
            with os.fdopen(read_fd, "rb") as pipe:
                message = pipe.read()
            running[0] = (pid, -1)
            _, status = os.waitpid(pid, 0)
            running.pop(0)
            if status != 0:
                broken = broken or f"a file-writing worker {'was killed' if os.WIFSIGNALED(status) else 'failed'}"
            elif message:
                err, reason, filename = pickle.loads(message)  # noqa: S301 - our own child's bytes
                failures.append(WriteError(reason) if err is None else OSError(err, reason, filename))
    except BaseException:
        for pid, read_fd in running:
            if read_fd >= 0:
                os.close(read_fd)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid, _ in running:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
        raise
    if failures:
        raise failures[0]
    if broken:
        raise WorkerFailed(broken)
