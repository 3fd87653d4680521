"""What a killed run may leave behind, and how the next run removes it without touching a live one.

A run holds an exclusive ``flock`` on every temporary file or folder it makes, from before the name
exists (``O_TMPFILE``) or from right after (``mkstemp``/``mkdtemp``), until it is done. A later run
removes a leftover of the same pattern only when it can take that lock itself (its maker is gone),
opening it without following symlinks and relative to its folder's descriptor. Scratch folders also
carry their maker's process id, and one whose maker is alive is never touched.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterator

_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def hold(fd: int) -> None:
    """Mark ``fd``'s file as in use until it is closed (or the process dies)."""
    fcntl.flock(fd, fcntl.LOCK_EX)


def _unused(folder_fd: int, name: str) -> bool:
    """Whether nobody holds ``name`` (a file or folder in ``folder_fd``): its lock can be taken now."""
    try:
        fd = os.open(name, _OPEN_FLAGS, dir_fd=folder_fd)
    except OSError:  # a symlink (ELOOP), gone, or unreadable: not ours to remove
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def remove_stale(folder_fd: int, pattern: re.Pattern[str]) -> None:
    """Remove the entries of ``folder_fd`` whose names match ``pattern`` and that no live run holds."""
    with contextlib.suppress(OSError), os.scandir(folder_fd) as entries:
        names = [entry.name for entry in entries if pattern.fullmatch(entry.name)]
    for name in names:
        with contextlib.suppress(OSError):
            info = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
            if info.st_uid != os.getuid() or not _unused(folder_fd, name):
                continue
            if stat.S_ISDIR(info.st_mode):
                shutil.rmtree(name, dir_fd=folder_fd)
            elif stat.S_ISREG(info.st_mode):
                os.unlink(name, dir_fd=folder_fd)


def temporary_names(name: str) -> re.Pattern[str]:
    """The names ``write_file`` gives the temporary sibling of ``name`` (as ``mkstemp`` would)."""
    return re.compile(rf"\.{re.escape(name)}\.[a-z0-9_]{{8}}\.tmp")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process
    return True


def _remove_dead_scratch(prefix: str) -> None:
    pattern = re.compile(rf"{re.escape(prefix)}(\d+)-[a-z0-9_]{{8}}")
    with contextlib.suppress(OSError):
        folder_fd = os.open(tempfile.gettempdir(), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            with os.scandir(folder_fd) as entries:
                dead = [e.name for e in entries if (m := pattern.fullmatch(e.name)) and not _alive(int(m.group(1)))]
            if dead:
                remove_stale(folder_fd, re.compile("|".join(map(re.escape, dead))))
        finally:
            os.close(folder_fd)


@contextlib.contextmanager
def scratch(prefix: str) -> Iterator[str]:
    """A private temporary folder ``<tmp>/<prefix><pid>-XXXXXXXX`` for the run, removed at the end; the
    ones killed runs left (their process gone, their lock free) are removed first."""
    _remove_dead_scratch(prefix)
    folder = tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-")
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        hold(fd)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        os.close(fd)
