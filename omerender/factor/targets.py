"""Where ``factor --in-place`` may write, checked before anything is written and again before a journal is replayed.

A target is a file inside a root, a PATH or a ``--search-path`` (compared by real path), reached from the root's real
path through real folders only (each tested with ``lstat``: no symlink on the way), and absent or a regular file.
``obstacles`` lists what would stop a rename from putting a file in place, so that it is refused with the other
refusals before a journal commits: a file that is read-only, hard linked or not a regular file; a read-only folder
(this process may not write it, or its owner write bit is off: a folder marked read-only is left alone even by
root, as a read-only file is); a file standing where a folder is needed; another file system than the journal's.

The writes themselves go through ``open_folder``: one descriptor per folder from the root's real path down, each
opened with ``O_NOFOLLOW``, so a symlink put on the way later is not followed either. ``state`` is a file's size
and SHA-256 (or None when it is absent), read the same way. ``Tree`` is the tree of one run: the folder that holds
its journal (open, its lock held) and the roots it may write in.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import PurePath

from omerender.paths import is_within

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Digest:
    """What a file holds: its size and the SHA-256 of its bytes (hex)."""

    size: int
    sha256: str


def digest(data: bytes) -> Digest:
    return Digest(len(data), hashlib.sha256(data).hexdigest())


class NotRegular(Exception):
    """A target that is there but is not a regular file (a symlink, a folder, a device)."""


@dataclass(frozen=True)
class Target:
    """A file factor may write: ``parts`` (folders, then the file name) below the real path ``root``."""

    shown: str  # the path as the user's arguments spell it, for messages
    root: str
    parts: tuple[str, ...]

    @property
    def real(self) -> str:
        return os.path.join(self.root, *self.parts)

    def shown_folder(self, depth: int) -> str:
        """The folder ``root/parts[:depth]`` as the user's arguments spell it."""
        return str(PurePath(self.shown).parents[len(self.parts) - depth - 1])


def locate(path: str, roots: list[str]) -> Target | str:
    """``path`` as a target inside one of ``roots`` (PATHS and search paths as given), or why it is refused."""
    absolute = os.path.abspath(path)
    shown = os.path.normpath(path)
    for given in roots:
        lexical, real = os.path.abspath(given), os.path.realpath(given)
        for base in (lexical, real):
            if absolute == base:  # a file given as a PATH: the file itself, in its real folder
                return Target(shown, os.path.realpath(os.path.dirname(absolute)), (os.path.basename(absolute),))
            if is_within(absolute, base):
                return _through_folders(Target(shown, real, tuple(os.path.relpath(absolute, base).split(os.sep))))
    return f"{shown}: outside every PATH and --search-path; factor writes only inside them"


def _through_folders(target: Target) -> Target | str:
    folder = target.root
    for depth, name in enumerate(target.parts[:-1], start=1):
        folder = os.path.join(folder, name)
        try:
            info = os.lstat(folder)
        except FileNotFoundError:
            break
        if stat.S_ISLNK(info.st_mode):
            return (
                f"{target.shown}: reached through the symlink {target.shown_folder(depth)}; factor writes only "
                "through real folders"
            )
    return target


def read_only(folder: str) -> bool:
    """Whether ``folder`` is read-only: this process may not write it, or its owner write bit is off."""
    return not os.stat(folder).st_mode & stat.S_IWUSR or not os.access(folder, os.W_OK | os.X_OK)


def file_refusal(shown: str, info: os.stat_result) -> str | None:
    """Why an existing file cannot be replaced in place (None: it can)."""
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
        return f"{shown}: not a regular file (a symlink, a folder or a device); factor does not replace it"
    if info.st_nlink > 1:
        return f"{shown}: has {info.st_nlink} hard links; replacing it would split them"
    if not info.st_mode & stat.S_IWUSR:
        return f"{shown}: is read-only; make it writable to let factor rewrite it"
    return None


def obstacles(target: Target, device: int, files: bool = True) -> list[str]:
    """What would stop a rename on ``device`` (the journal's file system) from putting ``target`` in place, and
    (``files``) what refuses the file there now. Empty: nothing."""
    folder, depth = target.root, 0
    for name in target.parts[:-1]:
        below = os.path.join(folder, name)
        try:
            info = os.lstat(below)
        except FileNotFoundError:
            break
        if not stat.S_ISDIR(info.st_mode):
            where = target.shown_folder(depth + 1)
            return [f"{where}: not a folder, so factor cannot write {target.shown} below it"]
        folder, depth = below, depth + 1
    problems = []
    if read_only(folder):
        where = target.shown_folder(depth)
        problems.append(f"{where}: the folder is read-only; make it writable to let factor write there")
    if os.stat(folder).st_dev != device:
        problems.append(f"{target.shown}: on another file system than the journal; give its folder as the first PATH")
    if files and depth == len(target.parts) - 1:
        try:
            refused = file_refusal(target.shown, os.lstat(target.real))
        except FileNotFoundError:
            refused = None
        problems += [refused] if refused else []
    return problems


def open_folder(target: Target, create: bool) -> int | None:
    """A descriptor of the folder that holds ``target``, opened from its root down with ``O_NOFOLLOW``; missing
    folders are made when ``create``, else None is returned. Raises ``OSError`` (``ELOOP``: a symlink on the way)."""
    fd = os.open(target.root, _FOLDER)
    try:
        for name in target.parts[:-1]:
            try:
                below = os.open(name, _FOLDER, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    os.close(fd)
                    return None
                os.mkdir(name, 0o777, dir_fd=fd)
                below = os.open(name, _FOLDER, dir_fd=fd)
            os.close(fd)
            fd = below
    except BaseException:
        os.close(fd)
        raise
    return fd


def hash_open(fd: int, size: int) -> Digest:
    """The digest of the ``size`` bytes an open regular file holds (a file that grew or shrank reads as it is)."""
    sha, seen = hashlib.sha256(), 0
    while seen <= size:
        chunk = os.read(fd, min(_CHUNK, size - seen + 1))
        if not chunk:
            break
        sha.update(chunk)
        seen += len(chunk)
    return Digest(seen, sha.hexdigest())


def state_in(folder_fd: int, name: str) -> Digest | None:
    """``name`` in the open folder: its digest, or None when absent. Raises ``NotRegular``, ``OSError``."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):  # a symlink; a name on the way is not a folder
            raise NotRegular(name) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(name)
        return hash_open(fd, info.st_size)
    finally:
        os.close(fd)


def state(target: Target) -> Digest | None:
    """What ``target`` holds now (None: absent). Raises ``NotRegular``, ``OSError``."""
    folder = open_folder(target, create=False)
    if folder is None:
        return None
    try:
        return state_in(folder, target.parts[-1])
    finally:
        os.close(folder)


@dataclass(frozen=True)
class Tree:
    """The tree of one ``factor --in-place``: the journal's folder as given (open, its lock held) and the roots
    factor may write in (PATHS and search paths as given)."""

    folder: str
    fd: int
    roots: list[str]

    def shown(self, name: str) -> str:
        """``name`` in the journal's folder, as the user's arguments spell it."""
        return os.path.join(self.folder, name)
