"""Putting files into the staging folder ``folder.replacing`` made: linear, through its descriptor, no symlink.

The staging folder is new, made under DIR's lock, and everything in it is put there by this run. A relative
path that is plain (not absolute, no empty, ``.`` or ``..`` part) is looked up from the staging folder's
descriptor, so it can only leave the folder through a symlink on the way. None is followed:

* each folder on the way is made once (``mkdir`` relative to the descriptor, remembered); one already there
  (a foreign folder copied from DIR) must be a real folder, checked with ``lstat`` once; a symlink is an error;
* each file is created with ``O_CREAT | O_EXCL | O_NOFOLLOW``: the kernel refuses any name already there,
  a symlink included, so nothing is written through one.

So no path is resolved per file (``paths.inside`` resolved two per file, every component ``lstat``'d).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable

from omerender.errors import WriteError

_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def plain(rel: str) -> bool:
    """Whether ``rel`` names a place below a folder without leaving it by its spelling alone."""
    return (
        bool(rel)
        and not rel.startswith("/")
        and "\0" not in rel
        and all(p not in ("", ".", "..") for p in rel.split("/"))
    )


def put_file(stage_fd: int, rel: str, data: bytes) -> None:
    """Create ``rel`` (new: nothing may be there, a symlink included) below the descriptor and write ``data``."""
    fd = os.open(rel, _NEW_FILE, 0o666, dir_fd=stage_fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


class Placer:
    """Writes files below one staging descriptor, making each folder on the way once."""

    def __init__(self, stage_fd: int, shown: str) -> None:
        self._fd = stage_fd
        self._shown = shown  # DIR as the user named it, for messages
        self._made: set[str] = {""}

    def _folder(self, rel: str, folder: str) -> None:
        if folder in self._made:
            return
        self._folder(rel, folder.rpartition("/")[0])
        try:
            os.mkdir(folder, 0o777, dir_fd=self._fd)
        except FileExistsError:
            kind = stat.S_IFMT(os.stat(folder, dir_fd=self._fd, follow_symlinks=False).st_mode)
            if kind == stat.S_IFLNK:
                raise WriteError(
                    f"refusing to write {rel}: {folder} in {self._shown} is a symlink, and none is written through"
                ) from None
            if kind != stat.S_IFDIR:
                raise
        self._made.add(folder)

    def folders_for(self, rels: Iterable[str]) -> None:
        """Make the folders of every path in ``rels`` (refused as ``put`` refuses them), writing no file."""
        for rel in rels:
            if not plain(rel):
                raise WriteError(f"refusing to write {rel}: it would land outside {self._shown}")
            self._folder(rel, rel.rpartition("/")[0])

    def put(self, rel: str, text: str) -> None:
        if not plain(rel):
            raise WriteError(f"refusing to write {rel}: it would land outside {self._shown}")
        self._folder(rel, rel.rpartition("/")[0])
        put_file(self._fd, rel, text.encode("utf-8"))

    def put_all(self, items: Iterable[tuple[str, str]]) -> None:
        for rel, text in items:
            self.put(rel, text)
