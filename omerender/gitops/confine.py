"""Paths the Argo CD plugin and the KRM function are given stay inside the repository (or package).

Argo CD keeps a plugin inside the repository it renders; a search path, metadata, lock or controller
configuration that is absolute or climbs out with ``..`` would read another application's files in the
shared repo-server. Refused as a settings error (exit 2), naming the setting and where it was given. What the
settings file names is checked as it is read (``load.settings_file``), on every route.
"""

from __future__ import annotations

import os

from omerender.errors import UsageError
from omerender.paths import repository_of, resolves_within
from omerender.settings import PATH_KINDS, READS, SETTINGS, Settings


class OutsideError(UsageError):
    """A path setting leaves the repository: a settings error (exit 2)."""


def root_of(folder: str, source_path: str) -> str:
    """The repository holding ``folder``: ``folder`` less Argo CD's ``ARGOCD_APP_SOURCE_PATH`` when it ends
    with it, else the nearest folder above holding ``.git``, else ``folder`` itself."""
    here = os.path.abspath(folder)
    parts = [p for p in source_path.strip("/").split("/") if p not in ("", ".")]
    if parts and here.split(os.sep)[-len(parts) :] == parts:
        return os.sep.join(here.split(os.sep)[: -len(parts)]) or os.sep
    return repository_of(here)


def _stays(root: str, base: str, value: str) -> bool:
    if os.path.isabs(value):
        return False
    return resolves_within(os.path.normpath(os.path.join(os.path.abspath(base), value)), os.path.abspath(root))


def confine(settings: Settings, root: str, base: str) -> None:
    """Raise OutsideError for the first path setting that is absolute or leaves ``root`` (read from ``base``)."""
    for spec in SETTINGS:
        if spec.kind not in PATH_KINDS or spec.stem not in READS:
            continue
        value = getattr(settings, spec.name)
        _confine_all(spec.stem, value if isinstance(value, tuple) else (value,) if value else (), settings, root, base)
    _confine_all("paths", settings.paths, settings, root, base)


def _confine_all(stem: str, values: tuple[str, ...], settings: Settings, root: str, base: str) -> None:
    for given in values:
        if not _stays(root, base, given):
            raise OutsideError(
                f"{stem} {given!r} ({settings.origin(stem)}): paths given to the plugin or the KRM function stay "
                "inside the repository, relative to it, as Argo CD keeps plugins inside it (no absolute path, no "
                "'..' out of it)"
            )
