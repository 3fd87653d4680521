"""Writing results to disk atomically: a whole directory or a single file, never half of one.

``write_dir`` stages the new contents and swaps them in through ``folder.replacing``: under a lock that
leaves no file, never through a symlink, recovered after a kill. Every file is put in place by ``placing``:
plain relative paths below the staging folder's descriptor, no symlink followed. ``write_file`` (one named
file) lives in ``onefile``. Any ``OSError`` becomes a ``WriteError`` naming the user's path.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Collection, Iterable, Iterator, Mapping
from pathlib import Path

from omerender.errors import WriteError
from omerender.output.folder import Replacement, replacing
from omerender.output.onefile import write_file
from omerender.output.placing import Placer

__all__ = ["MANIFEST", "write_dir", "write_file", "write_items"]

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


def _keep_foreign(target: Path, stage: Path, files: Collection[str]) -> None:
    """Copy into the staging folder what DIR holds that omerender did not write (not in its manifest)."""
    manifest = target / MANIFEST
    previous = set(manifest.read_text(encoding="utf-8").split()) if manifest.is_file() else set()
    ours = set(files)
    for rel, entry in _entries(target):
        if rel == MANIFEST or rel in previous or rel in ours:
            continue
        if entry.is_dir(follow_symlinks=False):
            with os.scandir(entry.path) as listing:
                empty = next(listing, None) is None
            if empty:  # a foreign empty folder; others come with their files
                (stage / rel).mkdir(parents=True, exist_ok=True)
            continue
        (stage / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(entry.path, stage / rel, follow_symlinks=False)  # a foreign symlink stays a symlink


def _stage(folder: Replacement, names: Collection[str], items: Iterable[tuple[str, str | bytes]]) -> None:
    if folder.target.is_dir():
        _keep_foreign(folder.target, folder.stage, names)
    elif os.path.lexists(folder.target):
        raise WriteError(f"{folder.target} exists and is not a directory")
    placed: list[str] = []

    def placing() -> Iterator[tuple[str, str | bytes]]:
        for rel, text in items:
            placed.append(rel)
            yield rel, text

    placer = Placer(folder.stage_fd, str(folder.target))
    placer.put_all(placing())
    placer.put(MANIFEST, "".join(f"{rel}\n" for rel in sorted(placed)))


def write_dir(directory: str, files: Mapping[str, str]) -> None:
    """Make ``directory`` hold exactly ``files`` (plus whatever omerender did not write there).

    The new set is staged in a sibling folder. Files omerender wrote last time (listed in its
    manifest) that are not in the new set are removed; files it did not write are kept.
    """
    write_items(directory, files.keys(), files.items())


def write_items(directory: str, names: Collection[str], items: Iterable[tuple[str, str | bytes]]) -> None:
    """``write_dir`` of the ``(rel, text)`` pairs of ``items`` (text, or UTF-8 bytes), which may be produced
    lazily: each file is written while the next ones are produced. ``names`` holds every ``rel`` that ``items``
    will give (a file of DIR with one of these names is not kept as foreign)."""
    target = Path(directory)
    for above in target.parents:
        if os.path.lexists(above) and not above.is_dir():
            raise WriteError(f"{directory}: cannot write: {above} is a file, not a folder")
    try:
        with replacing(directory) as folder:
            _stage(folder, names, items)
    except WriteError:
        raise
    except OSError as exc:
        shown = exc.filename if exc.filename and str(exc.filename).startswith(str(target)) else directory
        raise WriteError(f"{shown}: cannot write: {_reason(exc)}") from None
    except MemoryError:  # before the swap (after it, replacing says so): DIR was not touched
        raise WriteError(f"{directory}: cannot write: out of memory; {directory} is as it was") from None
