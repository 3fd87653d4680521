"""Model-metadata overlays shipped with omerender, by name: ``--model-metadata ome:v0.1.5``.

Each ``ome-VERSION.yaml`` holds, per model of OME's catalogue at that version (config/models), the
fields OME's model agent fills in a cluster, derived from OME's own runtimes by
``scripts/ome_model_metadata.py`` (see its docstring for the rules). Only these facts are shipped,
no OME object.
"""

from __future__ import annotations

from pathlib import Path

PREFIX = "ome:"
_FOLDER = Path(__file__).resolve().parent


def names() -> list[str]:
    """The shipped overlays, as given to --model-metadata (``ome:v0.1.5``), sorted."""
    return sorted(PREFIX + p.stem.removeprefix("ome-") for p in _FOLDER.glob("ome-*.yaml"))


def is_name(given: str) -> bool:
    return given.startswith(PREFIX)


def path_of(given: str) -> str | None:
    """The file of shipped overlay ``given`` (``ome:VERSION``), or None when none ships by that name."""
    version = given.removeprefix(PREFIX)
    found = _FOLDER / f"ome-{version}.yaml"
    return str(found) if given in names() and found.is_file() else None
