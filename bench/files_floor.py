#!/usr/bin/env python3
"""What writing omerender's ``--output-dir`` files costs of its own: the same files, written plainly.

    python bench/files_floor.py SOURCE_DIR TARGET_DIR

Reads every file under SOURCE_DIR (omerender's ``--output-dir`` folder) into memory, which is timed
and printed on stderr as ``preload_seconds=…`` for run.py to subtract, then writes them all under
TARGET_DIR (emptied first) with ``mkdir`` and ``open``/``write``: no staging, lock, rename or check.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from time import perf_counter


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    source, target = Path(argv[1]), Path(argv[2])
    start = perf_counter()
    shutil.rmtree(target, ignore_errors=True)
    files = {p.relative_to(source).as_posix(): p.read_text(encoding="utf-8") for p in source.rglob("*") if p.is_file()}
    preload = perf_counter() - start
    folders = {str(Path(rel).parent) for rel in files}
    for folder in sorted(folders):
        (target / folder).mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        with open(target / rel, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    print(f"preload_seconds={preload:.6f} files={len(files)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
