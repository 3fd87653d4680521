"""The settings file, ``.omerender.yaml``: found beside the inputs, read like any input, checked key by key.

Its keys are the long option names (``model-metadata``, ``search-path``, ...); paths in it are relative to the
file. A key no route knows, or a value of the wrong type, is an error at its line and column.
"""

from __future__ import annotations

import os

import yaml

from omerender import codes
from omerender.catalogue import is_name
from omerender.diagnostics import ERROR, Diagnostic
from omerender.load.bounded import Budget, ReadProblem, parse_bounded, read_text
from omerender.settings import (
    BY_STEM,
    FILE_ONLY_KEYS,
    PATH_KINDS,
    SETTINGS_FILE,
    Kind,
    Layer,
    Origin,
    Route,
    SettingsError,
    coerce,
    for_route,
)


def find(paths: list[str], top: str | None = None) -> str | None:
    """``.omerender.yaml`` in the first of ``paths`` or a folder above it, up to the repository root (the
    folder holding ``.git``), ``top`` when given, or the file system's root; None when there is none."""
    given = paths[0] if paths else "."
    folder = os.path.abspath(given if os.path.isdir(given) else os.path.dirname(given) or ".")
    last = os.path.abspath(top) if top else None
    while True:
        candidate = os.path.join(folder, SETTINGS_FILE)
        if os.path.isfile(candidate):
            return os.path.relpath(candidate)
        parent = os.path.dirname(folder)
        if os.path.exists(os.path.join(folder, ".git")) or folder in (parent, last):
            return None
        folder = parent


def _relative_to(path: str, value: str) -> str:
    return value if os.path.isabs(value) else os.path.normpath(os.path.join(os.path.dirname(path), value))


def _problem(path: str, node: yaml.Node, message: str) -> Diagnostic:
    return Diagnostic(path, node.start_mark.line + 1, node.start_mark.column + 1, ERROR, message, codes.SETTINGS)


def _entry(path: str, key: yaml.Node, value: yaml.Node, data: object) -> tuple[str, object] | Diagnostic:
    stem = str(key.value)
    spec = BY_STEM.get(stem)
    if spec is None or Route.FILE not in spec.routes:
        known = ", ".join([*(s.stem for s in for_route(Route.FILE)), *FILE_ONLY_KEYS])
        return _problem(path, key, f"unknown setting {stem!r} in {SETTINGS_FILE}; known: {known}")
    try:
        typed = coerce(spec, data, stem)
    except SettingsError as exc:
        return _problem(path, value, str(exc))
    if spec.kind is Kind.PATHS and isinstance(typed, tuple):
        return stem, tuple(_relative_to(path, item) for item in typed)
    if spec.kind in PATH_KINDS and isinstance(typed, str) and not (stem == "model-metadata" and is_name(typed)):
        return stem, _relative_to(path, typed)  # a shipped overlay's name (ome:v0.1.5) is no path: kept as written
    return stem, typed


def read(path: str, budget: Budget | None = None) -> tuple[Layer, list[Diagnostic]]:
    """The settings the file at ``path`` gives, and its problems (located at the key or value)."""
    try:
        text = read_text(path, budget or Budget(), "settings file")
        documents = list(parse_bounded(text, budget or Budget()))
    except ReadProblem as exc:
        return Layer(Origin.FILE, {}), [Diagnostic(path, exc.line, exc.col, ERROR, exc.message, exc.code)]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        return Layer(Origin.FILE, {}), [Diagnostic(path, line, col, ERROR, str(exc.problem), codes.YAML_SYNTAX)]
    if not documents or documents[0].data is None:
        return Layer(Origin.FILE, {}), []
    node, data = documents[0].node, documents[0].data
    if len(documents) > 1 or not isinstance(node, yaml.MappingNode) or not isinstance(data, dict):
        return Layer(Origin.FILE, {}), [_problem(path, node, f"{SETTINGS_FILE} holds one mapping of settings")]
    values: dict[str, object] = {}
    problems: list[Diagnostic] = []
    for key, value in node.value:
        if key.value in FILE_ONLY_KEYS:
            continue  # read, with their positions, by load.serving_rules when a build runs the serving checks
        found = _entry(path, key, value, data.get(key.value))
        if isinstance(found, Diagnostic):
            problems.append(found)
        else:
            values[found[0]] = found[1]
    return Layer(Origin.FILE, values), problems
