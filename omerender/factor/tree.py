"""Where factor's files go: the input tree mirrored into an output folder, or written in place.

``mirror`` lists every file of the input roots (byte for byte, hidden folders and symlinks left
out, bounded) with the changed and new files substituted; ``write_tree`` writes such a listing into
a folder atomically (locked, recovered, staged and swapped as ``build --output-dir`` does).
``factor --in-place`` writes through ``journal``.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from omerender.output import folder
from omerender.output.paths import lands_inside
from omerender.paths import is_within

MAX_FILES = 100_000
MAX_BYTES = 1 << 30


class TreeError(Exception):
    pass


def roots_of(paths: list[str]) -> list[tuple[Path, str]]:
    """Each input root and the prefix its files get in the output folder (none for a single folder)."""
    if len(paths) == 1 and Path(paths[0]).is_dir():
        return [(Path(paths[0]), "")]
    prefixes = [Path(p).name for p in paths]
    if len(set(prefixes)) != len(prefixes):
        raise TreeError("with --output-dir, PATHS must have distinct names (" + ", ".join(paths) + ")")
    return [(Path(p), name + "/") for p, name in zip(paths, prefixes, strict=True)]


def relative(path: str, roots: list[tuple[Path, str]]) -> str | None:
    """Where ``path`` (a file in an input root, or a new one below a root folder) goes in the output."""
    target = Path(os.path.normpath(path))
    for root, prefix in roots:
        base = Path(os.path.normpath(root))
        if target == base and not root.is_dir():
            return prefix + base.name if prefix else base.name
        real_target, real_base = os.path.abspath(target), os.path.abspath(base)
        if root.is_dir() and real_target != real_base and is_within(real_target, real_base):
            return prefix + Path(real_target).relative_to(real_base).as_posix()
    return None


def mirror(paths: list[str], changed: dict[str, str]) -> dict[str, bytes]:
    """The output folder's files: every input file, ``changed`` (path -> new text) substituted or added."""
    roots = roots_of(paths)
    out: dict[str, bytes] = {}
    total = 0
    for root, prefix in roots:
        if not root.is_dir():
            files = [root]
        else:
            files = []
            for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and not Path(dirpath, d).is_symlink())
                files.extend(Path(dirpath, f) for f in sorted(filenames) if not Path(dirpath, f).is_symlink())
        for file in files:
            if len(out) >= MAX_FILES:
                raise TreeError(f"more than {MAX_FILES} files under the input paths")
            rel = relative(str(file), [(root, prefix)])
            if rel is None or not file.is_file():
                continue
            data = file.read_bytes()
            total += len(data)
            if total > MAX_BYTES:
                raise TreeError(f"more than {MAX_BYTES} bytes under the input paths")
            out[rel] = data
    for path, text in changed.items():
        rel = relative(path, roots)
        if rel is None:
            raise TreeError(f"{path} is outside the input paths, so it has no place in --output-dir")
        out[rel] = text.encode("utf-8")
    return out


def is_empty_dir(directory: str) -> bool:
    target = Path(directory)
    return not target.exists() or (target.is_dir() and not any(target.iterdir()))


def write_tree(directory: str, files: dict[str, bytes]) -> None:
    """Make ``directory`` hold exactly ``files``, as ``build --output-dir`` writes (``folder.replacing``): under
    the same exclusive lock that leaves no file, after the same recovery of what a killed run left, never
    through a symlink, staged in the same sibling and swapped in with SIGINT and SIGTERM held back."""
    target = Path(directory)
    if os.path.lexists(target) and (target.is_symlink() or not target.is_dir()):
        raise TreeError(f"{directory} exists and is not a directory")
    with folder.replacing(directory) as place:
        _legacy_recover(target, target.parent if str(target.parent) else Path())
        for rel, data in sorted(files.items()):
            if not lands_inside(str(place.stage), rel):
                raise TreeError(f"refusing to write {rel}: it would land outside {directory}")
            out = place.stage / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)


def _legacy_recover(target: Path, parent: Path) -> None:
    """What earlier versions' ``factor --output-dir`` left (``.out.XXXXXXXX.tmp`` and ``.old``): an old folder
    whose target is missing goes back in place, the rest is removed."""
    pattern = re.compile(re.escape(f".{target.name}.") + r"[A-Za-z0-9_]{8}\.(tmp|old)")
    stale = sorted(p for p in parent.iterdir() if pattern.fullmatch(p.name) and p.is_dir() and not p.is_symlink())
    for found in stale[:MAX_FILES]:
        if found.name.endswith(".old") and not os.path.lexists(target):
            os.replace(found, target)
        else:
            shutil.rmtree(found)
