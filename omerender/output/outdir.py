"""What writing an output directory would change: the ``--check`` and ``--fail-on-change`` modes."""

from __future__ import annotations

from pathlib import Path

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
    target = Path(directory)
    previous = (_text(target / MANIFEST) or "").split()
    changed = [rel for rel, text in files.items() if _text(target / rel) != text]
    changed += [rel for rel in previous if rel not in files and (target / rel).exists()]
    if _text(target / MANIFEST) != manifest_text(files):
        changed.append(MANIFEST)
    return sorted(set(changed))
