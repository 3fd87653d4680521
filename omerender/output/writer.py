"""Writing results to disk atomically: a whole directory or a single file, never half of one."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from omerender.errors import WriteError

MANIFEST = ".omerender-manifest"


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


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
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise WriteError(f"{path}: cannot write: {exc.strerror or exc}") from None
    os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a written file gets the usual mode
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise WriteError(f"{path}: cannot write: {exc.strerror or exc}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_dir(directory: str, files: dict[str, str]) -> None:
    """Make ``directory`` hold exactly ``files`` (plus whatever omerender did not write there).

    The new set is staged in a temporary sibling directory. Files omerender wrote last time (listed
    in its manifest) that are not in the new set are removed; files it did not write are kept.
    """
    target = Path(directory)
    parent = target.parent if str(target.parent) else Path()
    parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=parent))
    stage.chmod(0o777 & ~_umask())  # mkdtemp makes 0700; the folder gets the usual mode
    try:
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
        elif target.exists():
            raise WriteError(f"{directory} exists and is not a directory")
        for rel, text in sorted(files.items()):
            out = stage / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8", newline="\n")
        (stage / MANIFEST).write_text("".join(f"{rel}\n" for rel in sorted(files)), encoding="utf-8", newline="\n")
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=parent))
            old.rmdir()
            os.replace(target, old)
            os.replace(stage, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(stage, target)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
