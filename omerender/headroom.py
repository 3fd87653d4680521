"""Address space left under ``ulimit -v`` (``RLIMIT_AS``): whether helper threads and native code may run.

Under an address-space limit two things fail in ways Python cannot report in one line. A new thread takes
its stack (``ulimit -s``, 8 MiB by default) and, once it allocates, a malloc arena that glibc reserves
(64 MiB): where that cannot be had, it does not start, or it starts and fails with ``MemoryError`` in places
that print tracebacks of their own. Native code (jsonschema-rs, in Rust) aborts the whole process when an
allocation fails. So omerender asks here first: without a limit (the usual case; a container's memory limit is
not one) every answer is yes, at no cost; under one, the room is tried by mapping it and unmapping it at once,
never touching it (no memory is used).
"""

from __future__ import annotations

import mmap
import resource
from functools import cache

MiB = 1024 * 1024
THREAD_ROOM = 80 * MiB
"""Address space one helper thread may take: its stack and the malloc arena reserved for it."""
SPARE = 16 * MiB
"""Address space kept for the thread that asks (what it allocates next)."""


@cache
def limited() -> bool:
    """Whether the process runs under an address-space limit (read once)."""
    return resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY


def room(size: int) -> bool:
    """Whether ``size`` bytes of address space can still be had (always, without a limit)."""
    if not limited():
        return True
    try:
        mmap.mmap(-1, size).close()
    except (OSError, MemoryError, OverflowError):
        return False
    return True


def threads_fit(count: int) -> int:
    """How many of ``count`` helper threads fit (all of them without a limit; 0: do the work in this one)."""
    if not limited():
        return count
    return next((n for n in range(count, 0, -1) if room(n * THREAD_ROOM + SPARE)), 0)
