"""Replacing an output folder as a whole: the lock, the staging and old siblings, and recovery after a kill.

``replacing(DIR)`` is the one way a command swaps a folder in (``build --output-dir``; ``factor`` may reuse it).
Every step works on names inside one descriptor of DIR's parent folder, opened once, so a path is never looked
up twice:

* the lock is an exclusive ``flock`` on that parent descriptor: nothing is created beside DIR, and two runs
  writing into the same parent take turns;
* ``DIR``, ``.DIR.stage`` and ``.DIR.old`` are never followed as symlinks: one there is an error naming it,
  and nothing is read or written through it (the components above DIR are the user's path, followed as given);
* ``recover`` (under the lock) puts back a folder a killed run left renamed to ``.DIR.old`` and removes a stale
  staging folder, with ``rmtree`` relative to the parent descriptor (it never leaves the folder it was given),
  a few sub-folders at a time in threads (all done before it returns);
* the swap is one ``renameat2(RENAME_EXCHANGE)`` where the kernel has it, else two renames through ``.DIR.old``;
  once it starts SIGINT and SIGTERM are held back: the new result is complete.

A ``.DIR.omerender-lock`` file left by earlier versions is removed when it is an empty regular file.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
import signal
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from omerender.errors import WriteError
from omerender.headroom import threads_fit

_RENAME_EXCHANGE = 2
_SIGNALS = {signal.SIGINT, signal.SIGTERM}
_NO_EXCHANGE = (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP)
_DIRECTORY_NO_LINK = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
REMOVERS = 4
"""Threads removing the sub-folders of an old or stale folder side by side."""


@dataclass(frozen=True)
class Siblings:
    """DIR as the user named it, split into its parent folder and the names kept there."""

    shown: str  # DIR as given, for messages
    parent: str  # the folder that holds DIR (made when missing)
    name: str
    stage: str
    old: str
    legacy_lock: str


def siblings(directory: str) -> Siblings:
    """Where DIR's parent is and what ``replacing`` calls the names it keeps beside DIR."""
    stripped = directory.rstrip("/") or "/"
    name = os.path.basename(stripped)
    if name in ("", ".", ".."):  # replacing it would pull the folder a shell stands in from under it
        raise WriteError(f"{directory}: cannot write: name the output folder itself (as in ./rendered), not {name!r}")
    parent = os.path.dirname(stripped) or "."
    return Siblings(directory, parent, name, f".{name}.stage", f".{name}.old", f".{name}.omerender-lock")


def _shown(where: Siblings, name: str) -> str:
    return where.shown if name == where.name else os.path.join(os.path.dirname(where.shown.rstrip("/")), name)


def _kind(parent_fd: int, name: str) -> int | None:
    """The file type of ``name`` in the parent (``lstat``: a symlink is a symlink), or None when absent."""
    try:
        return stat.S_IFMT(os.stat(name, dir_fd=parent_fd, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        return None


def _refuse_symlinks(parent_fd: int, where: Siblings) -> None:
    for name in (where.name, where.stage, where.old):
        if _kind(parent_fd, name) == stat.S_IFLNK:
            raise WriteError(
                f"{_shown(where, name)}: is a symlink; refusing to write through it (remove it, or choose "
                "another --output-dir)"
            )


def refuse_symlinks(directory: str) -> None:
    """``WriteError`` when DIR, ``.DIR.stage`` or ``.DIR.old`` is a symlink (for reading DIR, as ``--check`` does)."""
    where = siblings(directory)
    try:
        parent_fd = os.open(where.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return  # no parent folder: nothing to read
    try:
        _refuse_symlinks(parent_fd, where)
    finally:
        os.close(parent_fd)


def _remove_tree(parent_fd: int, name: str) -> None:
    """``rmtree`` of the folder ``name`` (never following a symlink), its sub-folders removed side by side:
    removing a file mostly waits on the file system, so a few threads overlap their waits. Under ``ulimit -v``
    only the threads there is room for start (``headroom``); where none can (that, or a limit on processes),
    or one runs out of memory, this thread removes the rest."""
    fd = os.open(name, _DIRECTORY_NO_LINK, dir_fd=parent_fd)
    try:
        with os.scandir(fd) as listing:
            folders = [entry.name for entry in listing if entry.is_dir(follow_symlinks=False)]
        removers = threads_fit(min(REMOVERS, len(folders))) if len(folders) > 1 else 0
        if removers > 0:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(removers, thread_name_prefix="omerender-remove") as pool:
                started = []
                for folder in folders:
                    try:
                        started.append(pool.submit(shutil.rmtree, folder, dir_fd=fd))
                    except RuntimeError:  # "can't start new thread": the threads running, and the rmtree
                        break  # below, remove the rest
                for done in started:
                    with contextlib.suppress(MemoryError):  # the rmtree below, in this thread, tries again
                        done.result()
    finally:
        os.close(fd)
    shutil.rmtree(name, dir_fd=parent_fd)  # what is left: files, links, a folder alone (or all of it)


def _remove(parent_fd: int, name: str) -> None:
    kind = _kind(parent_fd, name)
    if kind == stat.S_IFDIR:
        _remove_tree(parent_fd, name)
    elif kind is not None:
        os.unlink(name, dir_fd=parent_fd)


def recover(parent_fd: int, where: Siblings) -> None:
    """Under the lock: put back a folder a killed run left at ``.DIR.old``, drop a stale ``.DIR.stage``.

    Symlinks at any of the three names are refused first (``WriteError``), so nothing is moved or read
    through one.
    """
    _refuse_symlinks(parent_fd, where)
    if _kind(parent_fd, where.old) == stat.S_IFDIR and _kind(parent_fd, where.name) is None:
        os.rename(where.old, where.name, src_dir_fd=parent_fd, dst_dir_fd=parent_fd)
    for stale in (where.stage, where.old):
        _remove(parent_fd, stale)
    with contextlib.suppress(OSError):
        legacy = os.stat(where.legacy_lock, dir_fd=parent_fd, follow_symlinks=False)
        if stat.S_ISREG(legacy.st_mode) and legacy.st_size == 0:
            os.unlink(where.legacy_lock, dir_fd=parent_fd)


def _open_parent(where: Siblings) -> int:
    try:
        os.makedirs(where.parent, exist_ok=True)
        return os.open(where.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise WriteError(f"{where.shown}: cannot write: {exc.strerror or exc}") from None


@contextlib.contextmanager
def locked(directory: str) -> Iterator[tuple[int, Siblings]]:
    """Hold the exclusive lock of DIR (blocking until another run is done): the parent folder's descriptor,
    and DIR's names in it. Nothing is created beside DIR; closing the descriptor releases the lock."""
    where = siblings(directory)
    parent_fd = _open_parent(where)
    try:
        fcntl.flock(parent_fd, fcntl.LOCK_EX)
        yield parent_fd, where
    finally:
        os.close(parent_fd)


def _exchange(parent_fd: int, a: str, b: str) -> bool:
    """Swap two names in one folder atomically (Linux ``renameat2``); False where the kernel or libc cannot."""
    import ctypes  # here, not at the top: a build that writes to stdout does not pay for it at start-up
    import ctypes.util

    try:
        renameat2 = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    if renameat2(parent_fd, os.fsencode(a), parent_fd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in _NO_EXCHANGE:
        return False
    raise OSError(err, os.strerror(err), b)


def _swap(parent_fd: int, where: Siblings) -> None:
    """``.DIR.stage`` becomes DIR (the old DIR, if any, goes to ``.DIR.old``, removed by ``recover``)."""
    if _kind(parent_fd, where.name) is None:
        os.rename(where.stage, where.name, src_dir_fd=parent_fd, dst_dir_fd=parent_fd)
    elif _exchange(parent_fd, where.stage, where.name):
        os.rename(where.stage, where.old, src_dir_fd=parent_fd, dst_dir_fd=parent_fd)
    else:
        os.rename(where.name, where.old, src_dir_fd=parent_fd, dst_dir_fd=parent_fd)
        os.rename(where.stage, where.name, src_dir_fd=parent_fd, dst_dir_fd=parent_fd)


def _release_signals() -> None:
    """Swallow an interrupt that came during the swap (the work is done), then unblock."""
    pending = signal.sigpending() & _SIGNALS
    if pending:
        signal.sigwait(pending)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


@dataclass(frozen=True)
class Replacement:
    """What the body of ``replacing`` works with: DIR now (a real folder or absent) and the staging folder, with
    a descriptor of the staging folder as made (opened without following a symlink; closed after the body)."""

    target: Path
    stage: Path
    exists: bool
    stage_fd: int


@contextlib.contextmanager
def replacing(directory: str) -> Iterator[Replacement]:
    """Under DIR's lock and after recovery, a fresh empty staging folder; when the body returns, it replaces DIR.

    DIR that exists and is neither a folder nor a symlink is an error; a body that raises leaves DIR as it
    was and removes the staging folder. ``OSError`` is left to the caller, who names the user's path.
    """
    with locked(directory) as (parent_fd, where):
        recover(parent_fd, where)
        kind = _kind(parent_fd, where.name)
        if kind is not None and kind != stat.S_IFDIR:
            raise WriteError(f"{directory} exists and is not a directory")
        os.mkdir(where.stage, 0o777 & ~_umask(), dir_fd=parent_fd)
        base = Path(where.parent)
        stage_fd = os.open(where.stage, _DIRECTORY_NO_LINK, dir_fd=parent_fd)
        try:
            yield Replacement(base / where.name, base / where.stage, kind is not None, stage_fd)
        except BaseException:
            with contextlib.suppress(OSError, MemoryError):  # else the next run removes it
                _remove(parent_fd, where.stage)
            raise
        finally:
            os.close(stage_fd)
        signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
        try:
            _refuse_symlinks(parent_fd, where)  # nothing may have turned into a link while the body ran
            _swap(parent_fd, where)
            _drop_old(parent_fd, where)
        finally:
            _release_signals()


def _drop_old(parent_fd: int, where: Siblings) -> None:
    """After the swap: remove the previous DIR (now ``.DIR.old``). A failure says what is true: DIR is new."""
    try:
        recover(parent_fd, where)
    except (OSError, MemoryError) as exc:
        reason = "out of memory" if isinstance(exc, MemoryError) else exc.strerror or str(exc)
        raise WriteError(
            f"{where.shown} holds the new output, but its previous contents are left in "
            f"{_shown(where, where.old)} ({reason}); the next run into it removes them"
        ) from None
