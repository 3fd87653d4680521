"""Writing one file the user named (``--report-file``, ``--status-file``, the lock file): whole or not at all.

What is at the path decides how (``lstat``, so a symlink is seen as one):

* nothing, or a regular file: the text goes to a nameless temporary file (``O_TMPFILE``, else a locked
  ``.NAME.XXXXXXXX.tmp``) in the same folder, which then replaces the path in one rename; a regular file
  keeps its permission bits. A killed run leaves no temporary file, or one that the next run removes;
* a character device or a FIFO (``/dev/stdout``, ``/dev/null``, a named pipe): written through as a
  stream, as a shell redirection would; the node is never replaced by a regular file;
* ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``, ``/proc/self/fd/N``: the process's own descriptor,
  written to as it is (a terminal, a pipe or a file the shell opened), never reopened or replaced;
* a symlink: followed only to a character device or a FIFO. A symlink to anything else is refused: writing
  through it would land outside the path given, and replacing it would silently break the link (the rule
  of ``sed -i``, which replaces, and of a shell, which follows, are both surprising in a repository);
* a folder, a socket or a block device: refused.

Any ``OSError`` becomes a ``WriteError`` naming the path as the user gave it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import select
import stat
import sys
from pathlib import Path

from omerender.errors import WriteError
from omerender.output.leftovers import hold, remove_stale, temporary_names

_STREAMS = (stat.S_IFCHR, stat.S_IFIFO)
_WHAT = {stat.S_IFDIR: "a folder", stat.S_IFSOCK: "a socket", stat.S_IFBLK: "a block device"}


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd``: short writes are continued, and a non-blocking descriptor that
    is full is waited on, never given up (``OSError`` for a real failure)."""
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            select.select([], [fd], [])
            continue
        if written == 0:
            raise OSError(errno.EIO, "nothing could be written")
        view = view[written:]


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _stream(path: str, data: bytes, *, through_link: bool) -> None:
    flags = os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC | (0 if through_link else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        if stat.S_IFMT(os.fstat(fd).st_mode) not in _STREAMS:  # it changed since it was looked at
            raise WriteError(f"{path}: cannot write: it changed while being opened")
        write_all(fd, data)
    finally:
        os.close(fd)


_OWN = re.compile(r"/dev/(?:(stdout)|(stderr)|fd/(\d+))|/proc/(?:self|thread-self)/fd/(\d+)")


def _own_descriptor(path: str) -> int | None:
    """The descriptor a path names that means "this process's descriptor N" (``/dev/stdout``, ``/dev/fd/N``,
    ``/proc/self/fd/N``), or None: written to as it is, whatever it is open on (a terminal, a pipe, a file)."""
    found = _OWN.fullmatch(os.path.normpath(path))
    if not found:
        return None
    return 1 if found.group(1) else 2 if found.group(2) else int(found.group(3) or found.group(4))


def _to_descriptor(path: str, fd: int, data: bytes) -> None:
    for stream in (sys.stdout, sys.stderr):  # what is already buffered comes first
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    try:
        write_all(fd, data)
    except OSError as exc:
        raise WriteError(f"{path}: cannot write: {exc.strerror or exc}") from None


def _nameless(folder_fd: int, mode: int) -> int | None:
    """A file with no name yet in the folder (Linux ``O_TMPFILE``), or None where there is none."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag:
        return None
    try:
        return os.open(".", flag | os.O_WRONLY | os.O_CLOEXEC, mode, dir_fd=folder_fd)
    except OSError as exc:
        if exc.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT):
            return None
        raise


def _replace(folder: str, name: str, data: bytes, keep_mode: int | None) -> None:
    folder_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        remove_stale(folder_fd, temporary_names(name))
        temp = f".{name}.{secrets.token_hex(4)}.tmp"
        fd = _nameless(folder_fd, 0o666)
        named = fd is None
        if fd is None:
            fd = os.open(
                temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=folder_fd
            )
        try:
            hold(fd)
            if keep_mode is not None:
                os.fchmod(fd, keep_mode)
            elif not named:
                os.fchmod(fd, 0o666 & ~_umask())  # O_TMPFILE applies the umask itself
            write_all(fd, data)
            if not named:
                os.link(f"/proc/self/fd/{fd}", temp, dst_dir_fd=folder_fd, follow_symlinks=True)
                named = True
            os.rename(temp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
        except BaseException:
            if named:
                with contextlib.suppress(OSError, MemoryError):  # else the next run removes it
                    os.unlink(temp, dir_fd=folder_fd)
            raise
        finally:
            os.close(fd)
    finally:
        os.close(folder_fd)


def write_file(path: str, text: str) -> None:
    """Write ``text`` to ``path`` whole (see the module's rules for what is at the path).

    The file's own folder is made when it is missing, as ``mkdir`` would make it: a missing folder
    above that is more likely a typo than a wish, and is an error.
    """
    target = Path(path)
    folder = target.parent
    if not folder.is_dir() and not folder.parent.is_dir():
        raise WriteError(f"{path}: cannot write: folder {str(folder.parent)!r} does not exist")
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise WriteError(f"{path}: cannot make its folder: {exc.strerror or exc}") from None
    try:
        data = text.encode("utf-8")
    except MemoryError:
        raise WriteError(f"{path}: cannot write: out of memory; {path} is as it was") from None
    own = _own_descriptor(path)
    if own is not None:
        return _to_descriptor(path, own, data)
    try:
        try:
            found = os.lstat(path)
        except FileNotFoundError:
            found = None
        kind = stat.S_IFMT(found.st_mode) if found else None
        if kind == stat.S_IFLNK:
            with contextlib.suppress(OSError):
                if stat.S_IFMT(os.stat(path).st_mode) in _STREAMS:
                    return _stream(path, data, through_link=True)
            raise WriteError(
                f"{path}: is a symlink; refusing to write through it (name the file itself, or remove the link)"
            )
        if kind in _STREAMS:
            return _stream(path, data, through_link=False)
        if kind is not None and kind != stat.S_IFREG:
            raise WriteError(f"{path}: cannot write: it is {_WHAT.get(kind, 'not a regular file')}")
        _replace(str(folder), target.name, data, stat.S_IMODE(found.st_mode) if found else None)
    except WriteError:
        raise
    except OSError as exc:
        raise WriteError(f"{path}: cannot write: {exc.strerror or exc}") from None
    except MemoryError:  # before the rename: the path was not touched
        raise WriteError(f"{path}: cannot write: out of memory; {path} is as it was") from None
