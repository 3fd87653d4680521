"""Writing results to disk atomically: a whole directory or a single file, never half of one.

``write_dir`` stages the new contents and swaps them in through ``folder.replacing``: under a lock that
leaves no file, never through a symlink, recovered after a kill. Every file is put in place by ``placing``:
plain relative paths below the staging folder's descriptor, no symlink followed. ``write_file`` (one named
file) lives in ``onefile``. Any ``OSError`` becomes a ``WriteError`` naming the user's path.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from omerender.errors import WriteError
from omerender.output.folder import Replacement, replacing
from omerender.output.onefile import write_file
from omerender.output.placing import Placer
from omerender.output.spread import SPREAD_LEAST, shares, spread

__all__ = ["MANIFEST", "write_dir", "write_file"]

MANIFEST = ".omerender-manifest"


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _entries(target: Path) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Every entry below ``target`` (relative path, entry) in sorted order; symlinks are entries, not followed."""
    pending = [("", str(target))]
    while pending:
        prefix, folder = pending.pop()
        with os.scandir(folder) as listing:
            found = sorted(listing, key=lambda e: e.name)
        below = []
        for entry in found:
            rel = prefix + entry.name
            yield rel, entry
            if entry.is_dir(follow_symlinks=False):
                below.append((rel + "/", entry.path))
        pending.extend(reversed(below))


def _keep_foreign(target: Path, stage: Path, files: dict[str, str]) -> None:
    """Copy into the staging folder what DIR holds that omerender did not write (not in its manifest)."""
    manifest = target / MANIFEST
    previous = set(manifest.read_text(encoding="utf-8").split()) if manifest.is_file() else set()
    for rel, entry in _entries(target):
        if rel == MANIFEST or rel in previous or rel in files:
            continue
        if entry.is_dir(follow_symlinks=False):
            with os.scandir(entry.path) as listing:
                empty = next(listing, None) is None
            if empty:  # a foreign empty folder; others come with their files
                (stage / rel).mkdir(parents=True, exist_ok=True)
            continue
        (stage / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(entry.path, stage / rel, follow_symlinks=False)  # a foreign symlink stays a symlink


def _stage(folder: Replacement, files: dict[str, str], processes: int) -> None:
    if folder.target.is_dir():
        _keep_foreign(folder.target, folder.stage, files)
    elif os.path.lexists(folder.target):
        raise WriteError(f"{folder.target} exists and is not a directory")
    placer = Placer(folder.stage_fd, str(folder.target))
    items = sorted(files.items())
    if processes > 1 and len(items) >= SPREAD_LEAST:
        placer.folders_for([rel for rel, _ in items])  # made here once; the children only create files
        spread(shares(items, processes), placer.put_all)
    else:
        placer.put_all(items)
    placer.put(MANIFEST, "".join(f"{rel}\n" for rel in sorted(files)))


def write_dir(directory: str, files: dict[str, str], processes: int = 1) -> None:
    """Make ``directory`` hold exactly ``files`` (plus whatever omerender did not write there).

    The new set is staged in a sibling folder. Files omerender wrote last time (listed in its
    manifest) that are not in the new set are removed; files it did not write are kept. With
    ``processes`` > 1, that many forked processes create the files and remove the old ones (``spread``).
    """
    target = Path(directory)
    processes = processes if len(files) >= SPREAD_LEAST else 1
    for above in target.parents:
        if os.path.lexists(above) and not above.is_dir():
            raise WriteError(f"{directory}: cannot write: {above} is a file, not a folder")
    try:
        with replacing(directory, processes) as folder:
            _stage(folder, files, processes)
    except WriteError:
        raise
    except OSError as exc:
        shown = exc.filename if exc.filename and str(exc.filename).startswith(str(target)) else directory
        raise WriteError(f"{shown}: cannot write: {_reason(exc)}") from None
