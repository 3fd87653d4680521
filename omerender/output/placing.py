"""Putting files into the staging folder ``folder.replacing`` made: linear, through its descriptor, no symlink.

The staging folder is new, made under DIR's lock, and everything in it is put there by this run. A relative
path that is plain (not absolute, no empty, ``.`` or ``..`` part) is looked up from the staging folder's
descriptor, so it can only leave the folder through a symlink on the way. None is followed:

* each folder on the way is made once (``mkdir`` relative to the descriptor, remembered); one already there
  (a foreign folder copied from DIR) must be a real folder, checked with ``lstat`` once; a symlink is an error;
* each file is created with ``O_CREAT | O_EXCL | O_NOFOLLOW``: the kernel refuses any name already there,
  a symlink included, so nothing is written through one.

So no path is resolved per file (``paths.resolves_within`` would resolve two, every component ``lstat``'d).

Creating a file mostly waits on the file system (its journal), not on the CPU. ``put_all`` therefore hands
the files to background threads through a bounded queue while the caller keeps producing them (formatting
the next objects, for instance): the waiting hides behind that work. Under ``ulimit -v`` only the threads
there is address space for are started (``headroom``), and where one cannot start (that, or a limit on
processes), fewer write, or the caller writes every file itself: the same files. The caller's thread still checks every
path and makes every folder, in order, before a file below it is queued. The first error of a writing
thread stops the others and is raised in the caller's thread; an error or interrupt in the caller's thread
stops the writing threads before it propagates. Nothing is left running when ``put_all`` returns or raises.
"""

from __future__ import annotations

import os
import queue
import stat
import sys
import threading
from collections.abc import Iterable

from omerender.errors import WriteError
from omerender.headroom import threads_fit

_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC

WRITERS = 2
"""Threads creating files for ``put_all``: each spends most of its time waiting in the kernel."""
_BATCH = 32
"""Files handed over at a time (the queue costs per hand-over, not per byte)."""
_QUEUED = 16
"""Batches waiting at most: the producer blocks beyond this, so memory stays bounded."""
_SWITCH_SECONDS = 0.0005
"""While files are written, how soon a thread back from the kernel gets the interpreter from a busy producer
(Python's default is 5 ms: a writer would wait that long after each system call)."""


def plain(rel: str) -> bool:
    """Whether ``rel`` names a place below a folder without leaving it by its spelling alone."""
    return (
        bool(rel)
        and not rel.startswith("/")
        and "\0" not in rel
        and all(p not in ("", ".", "..") for p in rel.split("/"))
    )


def _utf8(text: str | bytes) -> bytes:
    return text.encode("utf-8") if isinstance(text, str) else text


def put_file(stage_fd: int, rel: str, data: bytes) -> None:
    """Create ``rel`` (new: nothing may be there, a symlink included) below the descriptor and write ``data``."""
    fd = os.open(rel, _NEW_FILE, 0o666, dir_fd=stage_fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


class _Writers:
    """Threads that create the files of the batches they are sent, below one descriptor; the first failure
    is kept (and the rest of the work dropped) for the sender to raise."""

    def __init__(self, stage_fd: int, count: int) -> None:
        self._fd = stage_fd
        self._queue: queue.Queue[list[tuple[str, bytes]] | None] = queue.Queue(maxsize=_QUEUED)
        self._stopped = False
        self.failure: BaseException | None = None
        self._threads: list[threading.Thread] = []
        for n in range(count):
            thread = threading.Thread(target=self._run, name=f"omerender-writer-{n}", daemon=True)
            try:
                thread.start()
            except RuntimeError:  # "can't start new thread": no room for its stack (ulimit -v); fewer will do
                break
            self._threads.append(thread)

    @property
    def running(self) -> bool:
        """Whether any thread started (none: the sender writes the files itself)."""
        return bool(self._threads)

    def _run(self) -> None:
        while (batch := self._queue.get()) is not None:
            if self._stopped:
                continue
            try:
                for rel, data in batch:
                    put_file(self._fd, rel, data)
            except Exception as exc:  # noqa: BLE001 - handed to the sending thread, which raises it
                if self.failure is None:
                    self.failure = exc
                self._stopped = True

    def send(self, batch: list[tuple[str, bytes]]) -> None:
        if self.failure is not None:
            raise self.failure
        self._queue.put(batch)

    def close(self, *, abandon: bool) -> None:
        """Let the threads finish what is queued (or drop it: ``abandon``), and wait for them to end."""
        if abandon:
            self._stopped = True
        interrupted: KeyboardInterrupt | None = None
        for _ in self._threads:
            self._queue.put(None)
        for thread in self._threads:
            while thread.is_alive():
                try:
                    thread.join()
                except KeyboardInterrupt as exc:  # still wait for it, so that nothing is written after
                    self._stopped = True
                    interrupted = interrupted or exc
        if interrupted is not None:
            raise interrupted


class Placer:
    """Writes files below one staging descriptor, making each folder on the way once."""

    def __init__(self, stage_fd: int, shown: str, writers: int = WRITERS) -> None:
        self._fd = stage_fd
        self._shown = shown  # DIR as the user named it, for messages
        self._made: set[str] = {""}
        self._writers = writers

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

    def _prepare(self, rel: str) -> None:
        """Refuse a path that is not plain; make the folders on its way."""
        if not plain(rel):
            raise WriteError(f"refusing to write {rel}: it would land outside {self._shown}")
        self._folder(rel, rel.rpartition("/")[0])

    def put(self, rel: str, text: str | bytes) -> None:
        self._prepare(rel)
        put_file(self._fd, rel, _utf8(text))

    def put_all(self, items: Iterable[tuple[str, str | bytes]]) -> None:
        """Every ``(rel, text)`` of ``items`` (consumed lazily, in this thread; text, or bytes already UTF-8),
        created by background threads.

        Returns when every file is written; raises the first error, of this thread or of a writing thread.
        """
        count = threads_fit(self._writers)  # under ulimit -v, only the threads there is room for
        writers = _Writers(self._fd, count) if count > 0 else None
        if writers is None or not writers.running:
            for rel, text in items:
                self.put(rel, text)
            return
        switch = sys.getswitchinterval()
        sys.setswitchinterval(min(switch, _SWITCH_SECONDS))
        done = False
        try:
            batch: list[tuple[str, bytes]] = []
            for rel, text in items:
                self._prepare(rel)
                batch.append((rel, _utf8(text)))
                if len(batch) == _BATCH:
                    writers.send(batch)
                    batch = []
            if batch:
                writers.send(batch)
            done = True
        finally:
            writers.close(abandon=not done)
            sys.setswitchinterval(switch)
        if writers.failure is not None:
            raise writers.failure
