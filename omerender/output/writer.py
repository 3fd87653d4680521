"""Writing results to disk atomically: a whole directory or a single file, never half of one.

``write_dir`` holds an exclusive ``flock`` on ``.<folder>.omerender-lock`` beside the folder for the
whole write, so two runs into one folder take turns. The new contents are staged in ``.<folder>.stage``
and swapped in with one atomic ``renameat2(RENAME_EXCHANGE)`` where the kernel offers it (else two
renames through ``.<folder>.old``). A run killed at any point leaves either the old or the new folder,
plus stale siblings that the next run, under the lock, restores (an ``.old`` without its folder) or
removes. Once the swap is done SIGINT and SIGTERM are held back: the result is complete, so the run
finishes with its own exit code. Every file written is first proved to lie inside the folder
(``paths.inside``). Any ``OSError`` becomes a ``WriteError`` naming the user's path.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

from omerender.errors import WriteError
from omerender.output.paths import inside

MANIFEST = ".omerender-manifest"
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def write_file(path: str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary sibling and a rename.

    The file's own folder is made when it is missing, as ``mkdir`` would make it: a missing folder
    above that is more likely a typo than a wish, and is an error. Any ``OSError`` becomes a
    ``WriteError`` that names ``path`` as the user gave it.
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
        if target.is_dir():
            raise IsADirectoryError(21, "Is a directory")
        import tempfile

        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise WriteError(f"{path}: cannot write: {_reason(exc)}") from None
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a written file gets the usual mode
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise WriteError(f"{path}: cannot write: {_reason(exc)}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def siblings(directory: str) -> tuple[Path, Path, Path]:
    """The lock file, the staging folder and the old folder that ``write_dir`` keeps beside ``directory``."""
    target = Path(directory)
    parent = target.parent if str(target.parent) else Path()
    name = target.name or "."
    return parent / f".{name}.omerender-lock", parent / f".{name}.stage", parent / f".{name}.old"


@contextlib.contextmanager
def locked(directory: str) -> Iterator[None]:
    """Hold the exclusive lock of ``directory`` (blocking until the other run is done)."""
    lock, _, _ = siblings(directory)
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666 & ~_umask())
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def recover(directory: str) -> None:
    """Under the lock: put back a folder a killed run left renamed to ``.old``, drop stale staging."""
    target = Path(directory)
    _, stage, old = siblings(directory)
    if old.is_dir() and not os.path.lexists(target):
        os.replace(old, target)
    for stale in (stage, old):
        if stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale)
        elif os.path.lexists(stale):
            stale.unlink()


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2``); False where the kernel or libc cannot."""
    import ctypes  # here, not at the top: ctypes and tempfile cost a build that writes to stdout ~10 ms to import
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (22, 38, 95):  # EINVAL, ENOSYS, EOPNOTSUPP: no exchange here
        return False
    raise OSError(err, os.strerror(err), str(b))


def _stage(target: Path, stage: Path, files: dict[str, str]) -> None:
    previous: set[str] = set()
    if target.is_dir():
        manifest = target / MANIFEST
        if manifest.is_file():
            previous = set(manifest.read_text(encoding="utf-8").split())
        for entry in sorted(target.rglob("*")):
            rel = entry.relative_to(target).as_posix()
            if rel == MANIFEST or rel in previous or rel in files:
                continue
            if entry.is_dir() and not entry.is_symlink():
                if not any(entry.iterdir()):  # a foreign empty folder; others come with their files
                    (stage / rel).mkdir(parents=True, exist_ok=True)
                continue
            (stage / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(entry, stage / rel, follow_symlinks=False)  # a foreign symlink stays a symlink
    elif os.path.lexists(target):
        raise WriteError(f"{target} exists and is not a directory")
    for rel, text in sorted(files.items()):
        if not inside(str(stage), rel):
            raise WriteError(f"refusing to write {rel}: it would land outside {target}")
        out = stage / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.is_symlink() or not inside(str(stage), rel):
            raise WriteError(f"refusing to write {rel}: a symlink would take it outside {target}")
        out.write_text(text, encoding="utf-8", newline="\n")
    (stage / MANIFEST).write_text("".join(f"{rel}\n" for rel in sorted(files)), encoding="utf-8", newline="\n")


def _swap(target: Path, stage: Path, old: Path) -> None:
    """``stage`` becomes ``target``; signals are held back from here on: the new result is complete."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    if not target.exists():
        os.replace(stage, target)
    elif _exchange(stage, target):
        os.replace(stage, old)  # the old contents, now at stage, are removed by ``recover``
    else:
        os.replace(target, old)
        os.replace(stage, target)


def _release_signals() -> None:
    """Swallow an interrupt that came during the swap (the work is done), then unblock."""
    if not hasattr(signal, "pthread_sigmask"):
        return
    pending = signal.sigpending() & _SIGNALS
    if pending:
        signal.sigwait(pending)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)


def write_dir(directory: str, files: dict[str, str]) -> None:
    """Make ``directory`` hold exactly ``files`` (plus whatever omerender did not write there).

    The new set is staged in a sibling folder. Files omerender wrote last time (listed in its
    manifest) that are not in the new set are removed; files it did not write are kept.
    """
    target = Path(directory)
    _, stage, old = siblings(directory)
    for above in target.parents:
        if os.path.lexists(above) and not above.is_dir():
            raise WriteError(f"{directory}: cannot write: {above} is a file, not a folder")
    try:
        with locked(directory):
            recover(directory)
            stage.mkdir(0o777 & ~_umask())
            try:
                _stage(target, stage, files)
            except BaseException:
                shutil.rmtree(stage, ignore_errors=True)
                raise
            try:
                _swap(target, stage, old)
                recover(directory)
            finally:
                _release_signals()
    except OSError as exc:
        shown = exc.filename if exc.filename and str(exc.filename).startswith(str(target)) else directory
        raise WriteError(f"{shown}: cannot write: {_reason(exc)}") from None
