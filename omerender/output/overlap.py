"""Outputs that would land in the inputs: refused unless the user says so.

An ``--output-dir`` inside an input directory is read back as input on the next run, and one that
holds an input is rewritten wholesale. A ``--status-file`` or ``--report-file`` must not be an
input file, nor a ``.yaml``/``.yml`` file inside an input directory (the next run would read it). Paths
are compared after resolving symlinks (``omerender.paths``), so ``./a/../a`` or a link to an input is
caught too.
"""

from __future__ import annotations

import os
from pathlib import Path

from omerender.constants import STDIN, YAML_SUFFIXES
from omerender.paths import is_within
from omerender.settings import report_targets

ALLOW_FLAG = "--allow-output-in-input"


def _real(path: str) -> Path:
    return Path(os.path.realpath(path))


def conflicts(inputs: list[str], outputs: list[tuple[str, str | None]], allowable: bool = True) -> list[str]:
    """One message per output (option name, path) that is, holds or lies in an input path. An option name that
    ends with ``=`` (``--report-format junit=``) is written joined to its path. ``allowable``: the command takes
    ``--allow-output-in-input``, which the message then names."""
    allow = f" (pass {ALLOW_FLAG} to allow it)" if allowable else ""
    roots = [(given, _real(given)) for given in inputs if given != STDIN]
    problems: list[str] = []
    for option, target in outputs:
        if not target:
            continue
        shown = f"{option}{target}" if option.endswith("=") else f"{option} {target}"
        real = _real(target)
        for given, root in roots:
            is_dir_output = option == "--output-dir"
            if is_within(str(real), str(root)) and (is_dir_output or real == root or real.suffix in YAML_SUFFIXES):
                where = "is" if real == root else "is inside"
                problems.append(f"{shown} {where} the input path {given}; refusing to write there{allow}")
                break
            if is_dir_output and is_within(str(root), str(real)):
                problems.append(f"{shown} holds the input path {given}; refusing to rewrite it{allow}")
                break
    return problems


def named_twice(report_file: str | None, formats: tuple[str, ...]) -> str | None:
    """The problem when two reports would be written to one file, however its path is spelt (``x``, ``./x``, a
    symlink to it): one would overwrite the other."""
    seen: dict[str, str] = {}
    given = [(f"--report-file {report_file}", report_file)] if report_file else []
    given += [(f"--report-format {fmt}={file}", file) for fmt, file in report_targets(formats) if file is not None]
    for shown, file in given:
        real = os.path.realpath(file)
        if real in seen:
            return f"{seen[real]} and {shown} name one file; give each report its own"
        seen[real] = shown
    return None
