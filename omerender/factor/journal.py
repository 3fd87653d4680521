"""``factor --in-place`` as one recoverable change: a journal in one hidden folder, then renames.

``write_in_place`` first checks every file it will replace (a regular file, not read-only, not hard
linked: replacing would give a read-only file a new writable inode, or split a hard link, so such a
file is refused before anything is written). It then stages every new text in
``.omerender-factor.journal.tmp`` beside the tree, with the mode the file has now (a new file gets
the usual mode), lists the targets in ``plan``, and renames the folder to
``.omerender-factor.journal``: that rename is the commit point. Each staged file is then renamed
over its target, and the journal removed.

A run killed anywhere leaves the old tree plus a ``.tmp`` journal (rolled back: removed) or a
committed journal (rolled forward: the staged files not yet moved are moved, then it is removed).
``recover`` does this, under an exclusive ``flock`` on the folder itself (no lock file), at the start of the next
``factor --in-place``. SIGINT and SIGTERM are held back from the commit on, as ``write_dir`` does.
Every path is the caller's, and the journal lives in the folder the caller names.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import signal
import stat
from collections.abc import Iterator
from pathlib import Path

from omerender.errors import WriteError

JOURNAL = ".omerender-factor.journal"
PLAN = "plan"
MAX_ENTRIES = 100_000
_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def refusals(paths: list[str]) -> list[str]:
    """Why each existing file in ``paths`` cannot be replaced in place (empty: all can)."""
    problems = []
    for path in paths:
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
            problems.append(f"{path}: not a regular file (a symlink or a device); factor does not replace it")
        elif info.st_nlink > 1:
            problems.append(f"{path}: has {info.st_nlink} hard links; replacing it would split them")
        elif not info.st_mode & stat.S_IWUSR:
            problems.append(f"{path}: is read-only; make it writable to let factor rewrite it")
    return problems


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``folder`` itself: two runs take turns, and no lock file is left behind."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _other_devices(base: Path, paths: list[str]) -> list[str]:
    """Targets on another file system than the journal: a rename could not move them, so they are refused first."""
    device = os.stat(base).st_dev
    problems = []
    for path in paths:
        folder = Path(path).parent
        while not folder.exists() and folder != folder.parent:
            folder = folder.parent
        if os.stat(folder).st_dev != device:
            problems.append(f"{path}: on another file system than {base}; give its folder as the first PATH")
    return problems


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _stage(folder: Path, changed: dict[str, str]) -> None:
    folder.mkdir(0o700)
    lines = []
    for n, (path, text) in enumerate(sorted(changed.items())):
        staged = folder / str(n)
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        with open(staged, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(staged, mode)
        lines.append(f"{n}\t{os.path.abspath(path)}\n")
    (folder / PLAN).write_text("".join(lines), encoding="utf-8", newline="\n")
    _fsync_dir(folder)


def _replay(journal: Path) -> None:
    """Move every staged file still in ``journal`` over its target, then remove the journal."""
    plan = (journal / PLAN).read_text(encoding="utf-8").splitlines()[:MAX_ENTRIES]
    for line in plan:
        n, _, target = line.partition("\t")
        staged = journal / n
        if not n.isdigit() or not target or not staged.is_file():
            continue  # already moved
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged, target)
    shutil.rmtree(journal)


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


def pending(folder: str) -> bool:
    """Whether a killed ``factor --in-place`` left a committed journal in ``folder`` (the tree is mid-change)."""
    return (Path(folder) / JOURNAL).is_dir()


def recover(folder: str) -> str:
    """Finish or roll back what a killed ``write_in_place`` into ``folder`` left; say which (or "")."""
    base = Path(folder)
    journal, stage = base / JOURNAL, base / f"{JOURNAL}.tmp"
    legacy = legacy_leftovers(base) if base.is_dir() else []
    for leftover in legacy:
        leftover.unlink(missing_ok=True)
    if not journal.exists() and not stage.exists():
        return f"removed {len(legacy)} temporary file(s) an earlier factor left" if legacy else ""
    done = ""
    with locked(base):
        if journal.is_dir() and not journal.is_symlink():
            _replay(journal)
            done = "finished the rewrite a killed factor --in-place had begun"
        if os.path.lexists(stage):
            if stage.is_dir() and not stage.is_symlink():
                shutil.rmtree(stage)
            else:
                stage.unlink()
            done = done or "rolled back a killed factor --in-place (nothing had been replaced)"
    return done


def folder_of(paths: list[str]) -> str:
    """Where the journal of ``factor --in-place PATHS`` lives: the first PATH, or the folder of that file."""
    first = Path(paths[0])
    return str(first if first.is_dir() else first.parent)


def write_in_place(folder: str, changed: dict[str, str]) -> None:
    """Replace or add the files of ``changed`` (path -> text) as one change journaled in ``folder``."""
    if not changed:
        return
    base = Path(folder)
    problems = refusals(sorted(changed)) + _other_devices(base, sorted(changed))
    if problems:
        raise WriteError("; ".join(problems))
    journal, stage = base / JOURNAL, base / f"{JOURNAL}.tmp"
    try:
        with locked(base):
            for stale in (journal, stage):
                if os.path.lexists(stale):
                    raise WriteError(f"{stale}: a journal of an unfinished factor --in-place; run factor again")
            try:
                _stage(stage, changed)
            except BaseException:
                shutil.rmtree(stage, ignore_errors=True)
                raise
            if hasattr(signal, "pthread_sigmask"):
                signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
            try:
                os.replace(stage, journal)  # the commit point
                _fsync_dir(base)
                plan = (journal / PLAN).read_text(encoding="utf-8").splitlines()
                for line in plan:
                    n, _, target = line.partition("\t")
                    Path(target).parent.mkdir(parents=True, exist_ok=True)
                    os.replace(journal / n, target)
                shutil.rmtree(journal)
            finally:
                _release_signals()
    except WriteError:
        raise
    except OSError as exc:
        raise WriteError(f"{exc.filename or folder}: cannot write: {exc.strerror or exc}") from None


def _release_signals() -> None:
    if not hasattr(signal, "pthread_sigmask"):
        return
    pending = signal.sigpending() & _SIGNALS
    if pending:
        signal.sigwait(pending)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)
