"""Parsing the inputs, and rendering slices of the InferenceServices, in forked worker processes (``build -j N``).

After resolve, the parent forks ``N`` workers; they share the resolved universe copy-on-write (the
collector's objects are frozen first, so a collection never writes to their pages). Each worker renders,
checks and formats a contiguous slice of the sorted InferenceServices into its scratch file (a ``memfd``):
the text of each object (``finish`` puts it there), then its diagnostics and one small stand-in per object
saying where that text is, never the objects themselves, which would cost the parent their memory again.
The parent reads the workers' messages in slice order and merges their sorted lists, so the order is one
process's order; the texts stay in the scratch files until the output is written (``Scratch``).

Before that, a large input is parsed the same way (``parse_in_workers``, through ``map_in_workers``, which factor
uses too): each worker parses a contiguous slice of the files and sends back its objects' fields and diagnostics,
while the parent parses the last slice itself; merged in file order.

A worker that raises, exits or is killed makes the whole run fail with ``WorkerFailed`` (exit 3): no
worker is left running, nothing is printed or written.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import gc
import heapq
import os
import pickle
import signal
import struct
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from omerender.admission.schema import crd_schema_issues
from omerender.constants import MAX_JOBS
from omerender.load.obj import Obj
from omerender.load.reader import parse_file

if TYPE_CHECKING:
    from omerender.diagnostics import Diagnostic
    from omerender.load.bounded import Budget
    from omerender.load.reader import Parsed
    from omerender.load.source import Source
    from omerender.result import Manifest, Resolved

Key = tuple[str, str]
Part = TypeVar("Part")
Item = TypeVar("Item")
Out = TypeVar("Out")
Stand = TypeVar("Stand")
Render = Callable[["Resolved", Sequence[Key]], list["Manifest"]]
"""Renders the InferenceServices of a slice (their diagnostics go to the result), objects in output order."""
AUTO_LEAST = 1000
"""Without ``-j``, workers are forked from this many InferenceServices on: fewer do not pay (bench/README.md)."""
MAX_WORKERS = MAX_JOBS
"""At most this many workers, whatever ``-j`` asks (a settings file in a pull request may ask for 100,000)."""
_TRAILER = struct.Struct("<QQ")
"""Ends a worker's scratch file: where its message (diagnostics and stand-ins, pickled) starts, and its length."""
_FLUSH = 1 << 20
_READ = 1 << 26


def cores() -> int:
    """The cores this process may run on (its CPU affinity; a cgroup quota is not seen)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class WorkerFailed(RuntimeError):
    """A worker raised, exited or was killed: the run cannot go on (an internal error, exit 3)."""


@dataclass(frozen=True)
class Workers:
    """How many worker processes may render at most (``jobs``), from how many InferenceServices on (``least``)."""

    jobs: int
    least: int

    def count(self, isvcs: int) -> int:
        """How many processes render ``isvcs`` InferenceServices: 1 means in this process, as always."""
        if self.jobs <= 1 or isvcs < max(self.least, 2):
            return 1
        return min(self.jobs, isvcs, MAX_WORKERS)


def slices(keys: Sequence[Part], count: int) -> list[Sequence[Part]]:
    """``keys`` in ``count`` contiguous slices whose sizes differ by at most one."""
    size, extra = divmod(len(keys), count)
    out, start = [], 0
    for index in range(count):
        end = start + size + (1 if index < extra else 0)
        out.append(keys[start:end])
        start = end
    return out


def _read(fd: int, offset: int, length: int) -> bytes:
    chunks: list[bytes] = []
    while length > 0:
        chunk = os.pread(fd, min(length, _READ), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
        length -= len(chunk)
    return b"".join(chunks)


class Scratch:
    """A worker's scratch file (``memfd``): the worker appends its objects' texts to it (``put``), then its
    message; the parent keeps it open and reads each text back by its span (``read``) when it writes the
    output, so the texts never sit in the parent's memory all at once. Closed once nothing refers to it."""

    def __init__(self, fd: int, size: int = 0) -> None:
        self.fd = fd
        self.size = size
        self._pending: list[bytes] = []
        self._pending_size = 0
        weakref.finalize(self, os.close, fd)

    def put(self, data: bytes) -> int:
        """Append ``data`` (buffered); where it starts."""
        offset = self.size
        self._pending.append(data)
        self.size += len(data)
        self._pending_size += len(data)
        if self._pending_size >= _FLUSH:
            self.flush()
        return offset

    def flush(self) -> None:
        if self._pending:
            data = b"".join(self._pending)
            self._pending, self._pending_size = [], 0
            view = memoryview(data)
            while view:
                view = view[os.write(self.fd, view) :]

    def read(self, offset: int, length: int) -> bytes:
        """The ``length`` bytes at ``offset``."""
        data = _read(self.fd, offset, length)
        if len(data) != length:
            raise OSError(errno.EIO, "a worker's scratch file is shorter than it said")
        return data


def _child(out_fd: int, job: Callable[[Scratch], bytes]) -> None:
    """The worker's whole life: ``job``'s message after what it put into its scratch file, then a trailer that
    says where the message is. Never returns, never runs the parent's exit handlers or flushes its buffers."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # an interrupt ends the worker; the parent reports it
        gc.disable()
        scratch = Scratch(out_fd)
        message = job(scratch)
        at = scratch.put(message)
        scratch.put(_TRAILER.pack(at, len(message)))
        scratch.flush()
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


def _how(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"was killed by signal {os.WTERMSIG(status)}"
    return f"exited with status {os.waitstatus_to_exitcode(status)}"


def _message(fd: int) -> tuple[int, bytes] | None:
    """Where a worker's message starts in its scratch file, and the message; None when it is not whole."""
    size = os.fstat(fd).st_size
    if size < _TRAILER.size:
        return None
    at, length = _TRAILER.unpack(os.pread(fd, _TRAILER.size, size - _TRAILER.size))
    if at + length + _TRAILER.size != size:
        return None
    message = _read(fd, at, length)
    return (at, message) if len(message) == length else None


def _stop(pids: list[int]) -> None:
    """Kill and reap every worker still running (after a failure or an interrupt)."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    for pid in pids:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def run_forked(
    parts: Sequence[Part],
    work: Callable[[Part, Scratch], bytes],
    what: str,
    meanwhile: Callable[[], object] = lambda: None,
) -> list[tuple[bytes, Scratch]]:
    """``work`` of each part in a forked worker process: the message it returned, and its scratch file holding
    what it put there (the parent's now, closed when nothing refers to it). The parent runs ``meanwhile`` once every
    worker is forked, before it waits for them. ``WorkerFailed`` (naming ``what`` the workers do) when one raised,
    exited or was killed: then none is left running, as when ``meanwhile`` raises."""
    gc.freeze()  # the parent's objects leave the collector: no worker writes their pages to collect
    running: list[tuple[int, int]] = []  # (pid or -1 once reaped, its scratch file or -1 once handed on)
    try:
        for part in parts:
            out_fd = _scratch()
            running.append((-1, out_fd))
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child ends in os._exit
                _child(out_fd, functools.partial(work, part))
            running[-1] = (pid, out_fd)
        meanwhile()
        done: list[tuple[bytes, Scratch]] = []
        for number, (pid, out_fd) in enumerate(running, 1):
            _, status = os.waitpid(pid, 0)
            running[number - 1] = (-1, out_fd)
            found = _message(out_fd) if status == 0 else None
            if found is None:
                raise WorkerFailed(f"{what} worker {number} of {len(parts)} {_how(status)} before it finished")
            at, message = found
            os.ftruncate(out_fd, at)  # what the worker put stays; the message's pages are given back
            done.append((message, Scratch(out_fd, at)))
            running[number - 1] = (-1, -1)
    except BaseException:
        _stop([pid for pid, _ in running if pid > 0])
        raise
    finally:
        for _, out_fd in running:
            if out_fd >= 0:
                os.close(out_fd)
    return done


@dataclass(frozen=True)
class Handover(Generic[Stand]):
    """What a rendering worker sends back for its objects (``finish``: stand-ins, their text put into its scratch
    file, in the same order) and how the parent takes them (``adopt``: told the scratch file their text is in)."""

    finish: Callable[[Resolved, list[Manifest], Scratch], list[Stand]]
    adopt: Callable[[list[Stand], Scratch], None]


def render_in_workers(
    result: Resolved,
    keys: Sequence[Key],
    count: int,
    render: Render,
    handover: Handover[Stand],
    order: Callable[[Stand], tuple[int, str, str, str]],
) -> tuple[list[Stand], list[Diagnostic]]:
    """The stand-ins of every object of ``keys`` in ``order`` (stable: slice order breaks ties, as one sorted
    list would), and the diagnostics the workers found."""

    def work(part: Sequence[Key], scratch: Scratch) -> bytes:
        start = len(result.diagnostics)
        objects = render(result, part)
        stand_ins = handover.finish(result, objects, scratch)
        return pickle.dumps((result.diagnostics[start:], stand_ins), pickle.HIGHEST_PROTOCOL)

    parts: list[list[Stand]] = []
    diagnostics: list[Diagnostic] = []
    for message, scratch in run_forked(slices(keys, count), work, "rendering"):
        found, stand_ins = pickle.loads(message)  # noqa: S301 - our own child's bytes
        handover.adopt(stand_ins, scratch)
        diagnostics.extend(found)
        parts.append(stand_ins)
    return list(heapq.merge(*parts, key=order)), diagnostics


def parse_in_workers(sources: list[Source], budget: Budget, namespace: str, count: int) -> list[Parsed] | None:
    """``reader.parse_file`` of every source, by ``count`` processes (``map_in_workers``: the parent parses the last
    slice); in file order. Each OME object comes with its schema issues as loaded (``admission.validate`` takes them
    as found).

    Objects come back as their fields, and the parent's own sources are put back in them. None when the aliases of
    all files go over the run's budget: only the files parsed one by one say where (the caller does so)."""

    def parse(source: Source) -> tuple[list[tuple[Any, ...]], list[Diagnostic], int]:
        before = budget.alias_text  # each process counts on from the run's count before any was parsed
        objects, problems = parse_file(source, budget, namespace)
        fields = [
            (o.index, o.body, o.namespace, o.slim, o.marks, crd_schema_issues(o.body) if o.is_ome else None)
            for o in objects
        ]
        return fields, problems, budget.alias_text - before

    start = budget.alias_text
    found = map_in_workers(sources, parse, count, "parsing")
    alias_text = start + sum(aliased for _, _, aliased in found)
    if alias_text > budget.max_total_bytes:
        budget.alias_text = start
        return None
    budget.alias_text = alias_text
    return [
        ([Obj(source.path, i, body, source, ns, sl, m, issues) for i, body, ns, sl, m, issues in fields], problems)
        for source, (fields, problems, _) in zip(sources, found, strict=True)
    ]


def map_in_workers(items: Sequence[Item], fn: Callable[[Item], Out], count: int, what: str) -> list[Out]:
    """``[fn(item) for item in items]`` by ``count`` processes: ``count - 1`` forked workers and the parent, which
    takes the last contiguous slice; results (pickled by the workers) in order. ``fn`` must not raise what the
    caller should see: a worker that raises fails the run (``WorkerFailed``); return the exception instead."""
    *others, own = slices(items, max(1, min(count, len(items), MAX_WORKERS)))

    def work(part: Sequence[Item], _scratch: Scratch) -> bytes:
        return pickle.dumps([fn(item) for item in part], pickle.HIGHEST_PROTOCOL)

    mine: list[Out] = []
    messages = run_forked(others, work, what, meanwhile=lambda: mine.extend(fn(item) for item in own))
    found: list[Out] = []
    for message, _ in messages:
        found.extend(pickle.loads(message))  # noqa: S301 - our own child's bytes
    return found + mine
