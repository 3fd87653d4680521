"""The settings of the GIT_REF side of ``diff --against``: that side's own settings file, read at GIT_REF.

The working tree's ``.omerender.yaml`` configures the working-tree side only. The GIT_REF side reads the settings
file at the same place at GIT_REF (or, when none was used, the one ``.omerender.yaml`` found from the first PATH
up at GIT_REF), extracted into the scratch folder and read as untrusted as any: confined to the extracted
repository, the keys that name where omerender writes refused. What the environment and the command line give
applies to both sides. Every path a setting names for reading (search paths, model metadata, controller
configuration, lock file) is read at GIT_REF when it lies in the work tree; one the command line names that did
not exist then is read from the working tree (a file) or is an empty folder (a search path).
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any

from omerender import codes
from omerender.changes.gitref import Checkout
from omerender.diagnostics import ERROR, Diagnostic
from omerender.settings import BY_STEM, SETTINGS_FILE, Layer, Origin, Settings, SettingsError, for_command, resolve

FILES = ("model-metadata", "controller-config", "lock-file")  # the settings naming one file to read


@dataclass(frozen=True)
class BaseSettings:
    """The GIT_REF side's settings (its paths under the scratch folder) and the problems of its settings file."""

    settings: Settings
    problems: list[Diagnostic] = field(default_factory=list)


def _found_at_ref(checkout: Checkout, first: str) -> str | None:
    """The ``.omerender.yaml`` a run from ``first`` finds at GIT_REF (extracted), looking up to the top."""
    rel = checkout.relative(first)
    if rel is None:
        return None
    folder = rel if os.path.isdir(first) else os.path.dirname(rel)
    while True:
        candidate = os.path.normpath(os.path.join(folder, SETTINGS_FILE))
        if checkout.exists(candidate):
            return checkout.path(os.path.join(checkout.dest, candidate), folder=False, scratch=True)
        if folder in ("", "."):
            return None
        folder = os.path.dirname(folder)


def _settings_file(head: Settings, checkout: Checkout, first: str) -> tuple[str | None, bool]:
    """The GIT_REF side's settings file (extracted; None: none), and whether it is the working tree's own (a file
    given outside the repository is the same file on both sides)."""
    if head.config is None:
        return _found_at_ref(checkout, first), False
    rel = checkout.relative(head.config)
    if rel is None:
        return head.config, True
    return (checkout.path(head.config, folder=False) if checkout.exists(rel) else None), False


def _at_ref(checkout: Checkout, value: str, stem: str, from_file: bool) -> str:
    """Where the GIT_REF side reads the path ``value`` of setting ``stem``."""
    folder = stem == "search-path"
    rel = checkout.relative(value, scratch=from_file)
    if rel is None:  # outside the repository: only the command line or the environment names such a path
        return value
    if from_file or folder or checkout.exists(rel):
        return checkout.path(os.path.join(checkout.dest, rel), folder=folder, scratch=True)
    return value


def _read_at(settings: Settings, checkout: Checkout) -> Settings:
    """``settings`` with each path to read placed at GIT_REF."""
    from_file = {stem for stem, origin in settings.origins.items() if origin is Origin.FILE}
    values: dict[str, Any] = {
        "search_path": tuple(
            _at_ref(checkout, p, "search-path", "search-path" in from_file) for p in settings.search_path
        )
    }
    for stem in FILES:
        name = BY_STEM[stem].name
        given = getattr(settings, name)
        if given is not None:
            values[name] = _at_ref(checkout, given, stem, stem in from_file)
    return dataclasses.replace(settings, **values)


def base_settings(head: Settings, checkout: Checkout, first: str) -> BaseSettings:
    """The settings the GIT_REF side is built with: ``head``'s from the environment and the command line over the
    GIT_REF settings file's (for the PATHS' first, ``first``)."""
    from omerender.load import settings_file  # YAML: only when a diff runs

    path, same = _settings_file(head, checkout, first)
    ours = {spec.stem for spec in for_command("diff")}
    if same:
        found = Layer(
            Origin.FILE, {s: getattr(head, BY_STEM[s].name) for s, o in head.origins.items() if o is Origin.FILE}
        )
        problems: list[Diagnostic] = []
    elif path is None:
        found, problems = Layer(Origin.FILE, {}), []
    else:
        found, problems = settings_file.read(path, checkout.dest)
    typed = (Origin.ENV, Origin.CLI)  # what the environment and the command line give holds on both sides
    kept = {stem: origin for stem, origin in head.origins.items() if origin is not Origin.FILE}
    defaults = Settings()
    reset = {
        BY_STEM[stem].name: getattr(defaults, BY_STEM[stem].name)
        for stem, origin in head.origins.items()
        if origin is Origin.FILE and stem in BY_STEM
    }
    start = dataclasses.replace(head, **reset, config=path, origins=kept)
    values = {k: v for k, v in found.values.items() if k in ours and head.origin(k) not in typed}
    try:
        settings = resolve([Layer(Origin.FILE, values)], start)
    except SettingsError as exc:
        problems.append(Diagnostic(path or SETTINGS_FILE, 1, 1, ERROR, str(exc), codes.SETTINGS))
        settings = start
    return BaseSettings(_read_at(settings, checkout), problems)
