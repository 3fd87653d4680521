"""Rendering slices of the InferenceServices in forked worker processes (``build -j N``).

After resolve, the parent forks ``N`` workers; they share the resolved universe copy-on-write (the
collector's objects are frozen first, so a collection never writes to their pages). Each worker renders,
checks and formats a contiguous slice of the sorted InferenceServices and sends back, through a file in
memory (``memfd``), its diagnostics and one small stand-in per object carrying the object's text (``finish``
makes them): never the objects themselves, which would cost the parent their memory again. The parent
reads the workers in slice order and merges their sorted lists, so the order is one process's order.

A worker that raises, exits or is killed makes the whole run fail with ``WorkerFailed`` (exit 3): no
worker is left running, nothing is printed or written.
"""

from __future__ import annotations

import contextlib
import gc
import heapq
import os
import pickle
import signal
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from omerender.diagnostics import Diagnostic
    from omerender.result import BuildResult

Key = tuple[str, str]
Render = Callable[["BuildResult", Sequence[Key]], list[dict[str, Any]]]
"""Renders the InferenceServices of a slice (their diagnostics go to the result), objects in output order."""
Finish = Callable[["BuildResult", list[dict[str, Any]]], list[dict[str, Any]]]
"""In a worker: the stand-ins (with their text) sent back for the slice's objects, in the same order."""
AUTO_LEAST = 1000
"""Without ``-j``, workers are forked from this many InferenceServices on: fewer do not pay (bench/README.md)."""
MAX_WORKERS = 64
"""At most this many workers, whatever ``-j`` asks (a settings file in a pull request may ask for 100,000)."""
_HEADER = struct.Struct("<Q")
_READ = 1 << 20


class WorkerFailed(RuntimeError):
    """A worker raised, exited or was killed: the run cannot go on (an internal error, exit 3)."""


@dataclass(frozen=True)
class Fanout:
    """How many workers at most (``jobs``), from how many InferenceServices on (``least``), and what each
    worker sends back (``finish``)."""

    jobs: int
    least: int
    finish: Finish

    def workers(self, isvcs: int) -> int:
        """How many processes render ``isvcs`` InferenceServices: 1 means in this process, as always."""
        if self.jobs <= 1 or isvcs < max(self.least, 2):
            return 1
        return min(self.jobs, isvcs, MAX_WORKERS)


def slices(keys: Sequence[Key], count: int) -> list[Sequence[Key]]:
    """``keys`` in ``count`` contiguous slices whose sizes differ by at most one."""
    size, extra = divmod(len(keys), count)
    out, start = [], 0
    for index in range(count):
        end = start + size + (1 if index < extra else 0)
        out.append(keys[start:end])
        start = end
    return out


def _work(result: BuildResult, keys: Sequence[Key], render: Render, finish: Finish) -> bytes:
    start = len(result.diagnostics)
    objects = render(result, keys)
    stand_ins = finish(result, objects)
    return pickle.dumps((result.diagnostics[start:], stand_ins), pickle.HIGHEST_PROTOCOL)


def _child(out_fd: int, result: BuildResult, keys: Sequence[Key], render: Render, finish: Finish) -> None:
    """The worker's whole life: never returns, never runs the parent's exit handlers or flushes its buffers."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # an interrupt ends the worker; the parent reports it
        gc.disable()
        data = _work(result, keys, render, finish)
        view = memoryview(_HEADER.pack(len(data)) + data)
        while view:
            view = view[os.write(out_fd, view) :]
        code = 0
    except BaseException:  # noqa: BLE001, S110 - the parent sees the missing message and the exit status
        pass
    finally:
        os._exit(code)


def _scratch() -> int:
    """A file in memory with no name (``memfd``), else an unlinked temporary file: what a worker writes into.

    Not a pipe: a pipe holds 64 KiB, and on a busy machine each refill waits for both sides to be scheduled.
    """
    if hasattr(os, "memfd_create"):
        with contextlib.suppress(OSError):
            return os.memfd_create("omerender-worker", os.MFD_CLOEXEC)
    import tempfile

    fd, path = tempfile.mkstemp(prefix="omerender-worker-")
    os.unlink(path)
    return fd


def _read_all(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    chunks: list[bytes] = []
    offset = 0
    while offset < size:
        chunk = os.pread(fd, min(size - offset, 1 << 26), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _how(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"was killed by signal {os.WTERMSIG(status)}"
    return f"exited with status {os.waitstatus_to_exitcode(status)}"


def _received(pid: int, fd: int, number: int, count: int) -> tuple[list[Diagnostic], list[dict[str, Any]]]:
    _, status = os.waitpid(pid, 0)
    data = _read_all(fd) if status == 0 else b""
    if status != 0 or len(data) < _HEADER.size or _HEADER.unpack_from(data)[0] != len(data) - _HEADER.size:
        raise WorkerFailed(f"rendering worker {number} of {count} {_how(status)} before it finished")
    diagnostics, stand_ins = pickle.loads(memoryview(data)[_HEADER.size :])  # noqa: S301 - our own child's bytes
    return diagnostics, stand_ins


def _stop(pids: list[int]) -> None:
    """Kill and reap every worker still running (after a failure or an interrupt)."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    for pid in pids:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def render_in_workers(
    result: BuildResult, keys: Sequence[Key], count: int, render: Render, finish: Finish, order: Callable[[Any], Any]
) -> tuple[list[dict[str, Any]], list[Diagnostic]]:
    """The stand-ins of every object of ``keys`` in ``order`` (stable: slice order breaks ties, as one sorted
    list would), and the diagnostics the workers found."""
    gc.freeze()  # the universe's objects leave the collector: no worker writes their pages to collect
    running: list[tuple[int, int]] = []  # (pid or -1 once reaped, the file it writes into)
    try:
        for part in slices(keys, count):
            out_fd = _scratch()
            running.append((-1, out_fd))
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child ends in os._exit
                _child(out_fd, result, part, render, finish)
            running[-1] = (pid, out_fd)
        parts: list[list[dict[str, Any]]] = []
        diagnostics: list[Diagnostic] = []
        for number, (pid, out_fd) in enumerate(running, 1):
            found, stand_ins = _received(pid, out_fd, number, count)
            running[number - 1] = (-1, out_fd)
            diagnostics.extend(found)
            parts.append(stand_ins)
    except BaseException:
        _stop([pid for pid, _ in running if pid > 0])
        raise
    finally:
        for _, out_fd in running:
            os.close(out_fd)
    return list(heapq.merge(*parts, key=order)), diagnostics
