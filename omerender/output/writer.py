"""Writing results to disk atomically: a whole directory or a single file, never half of one.

``write_dir`` stages the new contents and swaps them in through ``folder.replacing``: under a lock that
leaves no file, never through a symlink, recovered after a kill. Every file written is first proved to lie
inside the folder (``paths.inside``). ``write_file`` (one named file) lives in ``onefile``. Any ``OSError``
becomes a ``WriteError`` naming the user's path.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from omerender.errors import WriteError
from omerender.output.folder import replacing
from omerender.output.onefile import write_file
from omerender.output.paths import inside

__all__ = ["MANIFEST", "write_dir", "write_file"]

MANIFEST = ".omerender-manifest"


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


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


def write_dir(directory: str, files: dict[str, str]) -> None:
    """Make ``directory`` hold exactly ``files`` (plus whatever omerender did not write there).

    The new set is staged in a sibling folder. Files omerender wrote last time (listed in its
    manifest) that are not in the new set are removed; files it did not write are kept.
    """
    target = Path(directory)
    for above in target.parents:
        if os.path.lexists(above) and not above.is_dir():
            raise WriteError(f"{directory}: cannot write: {above} is a file, not a folder")
    try:
        with replacing(directory) as folder:
            _stage(folder.target, folder.stage, files)
    except WriteError:
        raise
    except OSError as exc:
        shown = exc.filename if exc.filename and str(exc.filename).startswith(str(target)) else directory
        raise WriteError(f"{shown}: cannot write: {_reason(exc)}") from None
