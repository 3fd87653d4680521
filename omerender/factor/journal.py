"""``factor --in-place`` as one recoverable change: a journal in one hidden folder, then renames.

A run holds an exclusive ``flock`` on the folder of the journal (the first PATH, or the folder of that file) from
before it reads the tree until its change is in place (``holding``); a second run on the tree is told that it is busy
instead of waiting, and no lock file is left behind.

``write`` first checks every target (``targets``: inside a PATH or search path by real path with no symlink on the
way; each folder writable and on the journal's file system; each file regular, not read-only, not hard linked, and
still what factor read), all before anything is written. It then stages every new text in
``.omerender-factor.journal.tmp`` beside the tree, with the mode the file has now (a new file gets the usual mode),
writes the plan (``journal_plan``: the run, the tree, each target's state before and after), and renames the folder
to ``.omerender-factor.journal``: that rename is the commit point. Each staged file is then renamed over its target,
and the journal removed. SIGINT and SIGTERM are held back from the commit on, as ``write_dir`` does.

A run killed anywhere leaves the old tree plus a ``.tmp`` journal (rolled back: removed) or a committed journal,
which ``recover`` finishes at the start of the next ``factor --in-place`` (``replay``: only a journal this tree's run
wrote, only inside the PATHs, never over an edit made after the kill; otherwise nothing is touched, the error names
why and the journal stays for a human to remove). The normal run finishes its own journal the same way.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import secrets
import shutil
import signal
import stat
from collections.abc import Iterator
from pathlib import Path

from omerender.errors import WriteError
from omerender.factor import journal_plan, replay
from omerender.factor.journal_plan import JOURNAL, PLAN, STAGE, Entry, Plan
from omerender.factor.targets import NotRegular, Target, Tree, digest, locate, obstacles, read_only, state

MAX_ENTRIES = journal_plan.MAX_ENTRIES
_SIGNALS = {signal.SIGINT, signal.SIGTERM}
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def folder_of(paths: list[str]) -> str:
    """Where the journal of ``factor --in-place PATHS`` lives: the first PATH, or the folder of that file."""
    first = Path(paths[0])
    return str(first if first.is_dir() else first.parent)


def pending(folder: str) -> str | None:
    """Where a killed ``factor --in-place`` left its committed journal in ``folder``, when something is there."""
    path = os.path.join(folder, JOURNAL)
    return path if os.path.lexists(path) else None


@contextlib.contextmanager
def holding(folder: str, roots: list[str]) -> Iterator[Tree]:
    """The tree of ``folder`` under its exclusive lock for as long as the body runs; ``WriteError`` when another
    run holds it (busy) or the folder cannot be opened."""
    if not os.path.isdir(folder):  # a PATH that is missing: the run reports it, and writes nothing
        yield Tree(folder, -1, roots)
        return
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise WriteError(f"{folder}: cannot open the folder of the journal: {exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise WriteError(
                f"{folder}: busy: another factor --in-place of this tree is running (it holds an exclusive flock on "
                f"the folder {folder}); run again when it has finished"
            ) from None
        yield Tree(folder, fd, roots)
    finally:
        os.close(fd)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _kind(folder_fd: int, name: str) -> int | None:
    try:
        return stat.S_IFMT(os.stat(name, dir_fd=folder_fd, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        return None


def _remove(folder_fd: int, name: str) -> None:
    """Remove ``name`` in the open folder: a folder with what it holds (never through a symlink), else the entry."""
    if _kind(folder_fd, name) == stat.S_IFDIR:
        shutil.rmtree(name, dir_fd=folder_fd)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=folder_fd)


_LEGACY_TMP = re.compile(r"\.(?P<name>.+\.ya?ml)\.[A-Za-z0-9_]{8}\.tmp")
"""What a killed ``factor --in-place`` of earlier versions left beside a file: ``.a.yaml.XXXXXXXX.tmp``."""


def legacy_leftovers(folder: Path) -> list[Path]:
    """The temporary files earlier versions left beside the YAML files under ``folder`` (bounded walk)."""
    found: list[Path] = []
    seen = 0
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        seen += len(filenames)
        if seen > MAX_ENTRIES:
            break
        for name in filenames:
            match = _LEGACY_TMP.fullmatch(name)
            if match and os.path.isfile(os.path.join(dirpath, match["name"])):
                found.append(Path(dirpath, name))
    return found


def recover(tree: Tree) -> str:
    """Finish or roll back what a killed ``factor --in-place`` of ``tree`` left; say which (or ""). A committed
    journal that is not this tree's, or that cannot be finished without losing work, is a ``WriteError`` and
    nothing is changed."""
    done = ""
    if tree.fd < 0:
        return done
    if _kind(tree.fd, JOURNAL) is not None:
        try:
            replay.finish(tree)
        except WriteError:
            raise
        except OSError as exc:
            where = f"{tree.shown(JOURNAL)}: cannot finish the rewrite a killed factor --in-place had begun"
            raise WriteError(f"{where}: {exc.filename}: {exc.strerror or exc}") from None
        done = "finished the rewrite a killed factor --in-place had begun"
    if _kind(tree.fd, STAGE) is not None:
        _remove(tree.fd, STAGE)
        done = done or "rolled back a killed factor --in-place (nothing had been replaced)"
    legacy = legacy_leftovers(Path(tree.folder))
    for leftover in legacy:
        leftover.unlink(missing_ok=True)
    if legacy and not done:
        done = f"removed {len(legacy)} temporary file(s) an earlier factor left"
    return done


# --- writing ----------------------------------------------------------------------------------------------------


def _refusals(tree: Tree, changed: dict[str, str], originals: dict[str, str]) -> tuple[dict[str, Target], list[str]]:
    """Every target of ``changed`` located, and every reason not to write (all found before anything is)."""
    device = os.fstat(tree.fd).st_dev
    located: dict[str, Target] = {}
    problems: list[str] = []
    seen: set[str] = set()
    if read_only(tree.folder):
        problems.append(f"{tree.folder}: the folder is read-only; make it writable to let factor write there")
    for path in sorted(changed):
        target = locate(path, tree.roots)
        if isinstance(target, str):
            problems.append(target)
            continue
        if target.real in seen:
            problems.append(f"{target.shown}: named twice (through another path); factor writes each file once")
        seen.add(target.real)
        located[path] = target
        found = obstacles(target, device)
        problems += found
        if found:
            continue
        try:
            now = state(target)
        except (NotRegular, OSError):
            now = None
        before = digest(originals[path].encode("utf-8")) if path in originals else None
        if now != before:
            problems.append(f"{target.shown}: changed while factor ran; run factor again")
    return located, list(dict.fromkeys(problems))


def _write_all(fd: int, data: bytes) -> None:
    """Write ``data`` to the new file ``fd``, flush it to disk and close it."""
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def _stage(tree: Tree, located: dict[str, Target], changed: dict[str, str]) -> None:
    """Write every new text and the plan into the staging folder (made here, fsynced, not yet committed)."""
    os.mkdir(STAGE, 0o700, dir_fd=tree.fd)
    stage_fd = os.open(STAGE, _FOLDER, dir_fd=tree.fd)
    try:
        entries = []
        for n, path in enumerate(sorted(located)):
            target, data, name = located[path], changed[path].encode("utf-8"), str(n)
            try:
                mode = stat.S_IMODE(os.lstat(target.real).st_mode)
            except FileNotFoundError:
                mode = 0o666 & ~_umask()
            try:
                prior = state(target)
            except NotRegular:
                raise WriteError(f"{target.shown}: no longer a regular file; factor does not replace it") from None
            fd = os.open(
                name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=stage_fd
            )
            _write_all(fd, data)
            os.chmod(name, mode, dir_fd=stage_fd)
            info = os.stat(name, dir_fd=stage_fd, follow_symlinks=False)
            entries.append(Entry(name, target.real, digest(data), prior, info.st_ino, info.st_ctime_ns))
        folder = os.fstat(stage_fd)
        roots = tuple(os.path.realpath(r) for r in tree.roots)
        run = secrets.token_hex(16)
        plan = Plan(run, os.path.realpath(tree.folder), roots, folder.st_dev, folder.st_ino, tuple(entries))
        text = journal_plan.dump(plan)
        if len(text) > journal_plan.MAX_BYTES:
            raise WriteError(f"{tree.folder}: too many files for one factor --in-place ({len(entries)})")
        fd = os.open(PLAN, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=stage_fd)
        _write_all(fd, text)
        os.fsync(stage_fd)
    finally:
        os.close(stage_fd)


def write(tree: Tree, changed: dict[str, str], originals: dict[str, str]) -> None:
    """Replace or add the files of ``changed`` (path -> text; ``originals``: the text factor read of each file that
    exists) as one change journaled in the tree's folder; ``WriteError`` naming what stood in the way."""
    if not changed:
        return
    if tree.fd < 0:
        raise WriteError(f"{tree.folder}: cannot write: not a folder")
    located, problems = _refusals(tree, changed, originals)
    if problems:
        raise WriteError("; ".join(problems))
    for stale in (JOURNAL, STAGE):
        if _kind(tree.fd, stale) is not None:
            raise WriteError(f"{tree.shown(stale)}: a journal of an unfinished factor --in-place; run factor again")
    try:
        try:
            _stage(tree, located, changed)
        except BaseException:
            with contextlib.suppress(OSError):
                _remove(tree.fd, STAGE)
            raise
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
        try:
            os.replace(STAGE, JOURNAL, src_dir_fd=tree.fd, dst_dir_fd=tree.fd)  # the commit point
            os.fsync(tree.fd)
            replay.finish(tree)
        finally:
            _release_signals()
    except WriteError:
        raise
    except OSError as exc:
        raise WriteError(f"{exc.filename or tree.folder}: cannot write: {exc.strerror or exc}") from None


def _release_signals() -> None:
    if not hasattr(signal, "pthread_sigmask"):
        return
    waiting = signal.sigpending() & _SIGNALS
    if waiting:
        signal.sigwait(waiting)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
