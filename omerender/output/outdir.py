"""What writing an output directory would change: the ``--check`` and ``--fail-on-change`` modes."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from omerender.output.folder import refuse_symlinks
from omerender.output.writer import MANIFEST


def manifest_text(files: dict[str, str]) -> str:
    """The manifest ``writer.write_dir`` leaves beside the files it wrote."""
    return "".join(f"{rel}\n" for rel in sorted(files))


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def changed_files(directory: str, files: dict[str, str]) -> list[str]:
    """Paths (relative to ``directory``) that ``write_dir(directory, files)`` would create, change or remove."""
    refuse_symlinks(directory)  # nothing is read through a symlinked output folder
    target = Path(directory)
    previous = (_text(target / MANIFEST) or "").split()
    changed = [rel for rel, text in files.items() if _text(target / rel) != text]
    changed += [rel for rel in previous if rel not in files and (target / rel).exists()]
    if _text(target / MANIFEST) != manifest_text(files):
        changed.append(MANIFEST)
    return sorted(set(changed))


MAX_COMPARED_BYTES = 1024 * 1024
"""Files larger than this (in DIR or to be written) are reported as changed, not diffed line by line."""


def unified_diff(directory: str, files: dict[str, str], changed: list[str], max_lines: int) -> str:
    """A unified diff (``a/`` is DIR now, ``b/`` what would be written) of ``changed``, capped at ``max_lines``."""
    import difflib

    target = Path(directory)
    lines: list[str] = []
    total = 0
    for rel in changed:
        if rel == MANIFEST:
            continue
        old = _text(target / rel) if (target / rel).is_file() else None
        new = files.get(rel)
        if len(old or "") > MAX_COMPARED_BYTES or len(new or "") > MAX_COMPARED_BYTES:
            diff: Iterable[str] = [f"Files a/{rel} and b/{rel} differ\n"]
        else:
            diff = difflib.unified_diff(
                (old or "").splitlines(keepends=True),
                (new or "").splitlines(keepends=True),
                fromfile=f"a/{rel}" if old is not None else "/dev/null",
                tofile=f"b/{rel}" if new is not None else "/dev/null",
            )
        for line in diff:
            total += 1
            if len(lines) < max_lines:
                lines.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    if total > max_lines:
        lines.append(f"... {total - max_lines} more diff line(s) not shown\n")
    return "".join(lines)
