"""What ``kustomize build`` would read for the Argo CD plugin's ``kustomize-build``, checked before it runs.

The kustomizations come from the repository, which a pull request changes. kustomize's load restrictor
(``LoadRestrictionsRootOnly``) keeps the files a kustomization names in or below its folder, but a folder listed in
``resources`` may lie anywhere, and a path that is not found on disk is fetched as a remote resource. So before
kustomize runs, every path each kustomization names (``resources``, ``components``, patches, generator files,
...) must exist on disk with its real path inside the repository, the kustomizations it reaches are read the
same way, and what needs helm is refused. Each refusal is located at the entry. Bounded: at most
``MAX_KUSTOMIZATIONS`` files, ``MAX_DEPTH`` levels, each read with the kustomization reader's cap.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from omerender import codes
from omerender.diagnostics import ERROR, Diagnostic
from omerender.load.kustomize import MAX_DEPTH, REMOTE_PREFIXES, Unreadable, kustomization_in, parse_kustomization
from omerender.names import clip
from omerender.paths import is_within

MAX_KUSTOMIZATIONS = 1000
LISTS: tuple[str, ...] = ("resources", "bases", "components", "crds", "generators", "transformers", "validators")
LISTS = (*LISTS, "configurations", "patchesStrategicMerge")  # each item a path (holding a newline: inline)
WITH_PATH = ("patches", "patchesJson6902", "replacements")  # items that name a file under ``path``
GENERATORS = ("configMapGenerator", "secretGenerator", "helmChartInflationGenerator")
HELM = ("helmCharts", "helmGlobals", "helmChartInflationGenerator")
FOLDERS = ("resources", "bases", "components", "generators", "transformers", "validators")  # may list kustomizations


@dataclass
class _Walk:
    root: str  # the repository's real path
    problems: list[Diagnostic] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)


def _error(path: str, line: int, col: int, message: str) -> Diagnostic:
    return Diagnostic(path, line, col, ERROR, f"kustomize-build: {message}", codes.KUSTOMIZATION)


def position(node: yaml.Node | None, keys: tuple[str | int, ...]) -> tuple[int, int]:
    """1-based (line, col) of the value at ``keys`` below ``node``, else of the deepest node on the way."""
    for key in keys:
        if isinstance(node, yaml.MappingNode):
            found = next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == key), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
            found = node.value[key]
        else:
            found = None
        if found is None:
            break
        node = found
    return (node.start_mark.line + 1, node.start_mark.column + 1) if node is not None else (1, 1)


def _inline(value: str) -> bool:
    """Whether a list item is an inline patch or plugin configuration rather than a path."""
    return "\n" in value or value.lstrip().startswith(("{", "[")) or ": " in value


def _remote(value: str) -> bool:
    return "://" in value or value.startswith(REMOTE_PREFIXES) or "?ref=" in value


def _entries(data: dict[str, Any]) -> list[tuple[tuple[str | int, ...], str]]:
    """Each path the kustomization names, with the keys that lead to it (for its position)."""
    found: list[tuple[tuple[str | int, ...], str]] = []
    for key in LISTS:
        items = data.get(key)
        for n, item in enumerate(items if isinstance(items, list) else ()):
            if isinstance(item, str) and not _inline(item):
                found.append(((key, n), item))
    for key in WITH_PATH:
        items = data.get(key)
        for n, item in enumerate(items if isinstance(items, list) else ()):
            if isinstance(item, dict) and isinstance(item.get("path"), str):
                found.append(((key, n, "path"), item["path"]))
    for key in GENERATORS:
        items = data.get(key)
        for n, item in enumerate(items if isinstance(items, list) else ()):
            found.extend(_generator_files(key, n, item) if isinstance(item, dict) else ())
    openapi = data.get("openapi")
    if isinstance(openapi, dict) and isinstance(openapi.get("path"), str):
        found.append((("openapi", "path"), openapi["path"]))
    return found


def _generator_files(key: str, n: int, item: dict[str, Any]) -> list[tuple[tuple[str | int, ...], str]]:
    found: list[tuple[tuple[str | int, ...], str]] = []
    for inner in ("files", "envs"):
        values = item.get(inner)
        for m, value in enumerate(values if isinstance(values, list) else ()):
            if isinstance(value, str):
                found.append(((key, n, inner, m), value.partition("=")[2] or value))
    if isinstance(item.get("env"), str):
        found.append(((key, n, "env"), item["env"]))
    return found


def _read(path: Path, walk: _Walk) -> tuple[dict[str, Any], yaml.Node | None] | None:
    shown = path.as_posix()
    if not is_within(os.path.realpath(path), walk.root):
        walk.problems.append(_error(shown, 1, 1, "the kustomization leads out of the repository; not read"))
        return None
    parsed = parse_kustomization(path)
    if isinstance(parsed, Unreadable):
        walk.problems.append(_error(shown, parsed.line, parsed.col, parsed.message))
        return None
    return parsed


def _visit(folder: Path, walk: _Walk, depth: int) -> None:
    found = kustomization_in(folder)
    real = os.path.realpath(folder)
    if found is None or real in walk.seen:
        return  # a folder without one: kustomize says so; one seen already: its paths were checked
    walk.seen.add(real)
    shown = found.as_posix()
    if depth > MAX_DEPTH or len(walk.seen) > MAX_KUSTOMIZATIONS:
        limit = f"{MAX_DEPTH} levels deep" if depth > MAX_DEPTH else f"{MAX_KUSTOMIZATIONS} kustomizations"
        walk.problems.append(_error(shown, 1, 1, f"the kustomizations reach more than {limit}; not built"))
        return
    read = _read(found, walk)
    if read is None:
        return
    data, node = read
    for key in HELM:
        if key in data:
            line, col = position(node, (key,))
            walk.problems.append(_error(shown, line, col, f"{key} needs helm, which kustomize-build never enables"))
    for keys, value in _entries(data):
        _check(folder, keys, value, walk, depth, (shown, node))


def _check(
    folder: Path, keys: tuple[str | int, ...], value: str, walk: _Walk, depth: int, at: tuple[str, yaml.Node | None]
) -> None:
    shown, node = at
    line, col = position(node, keys)
    target = os.path.normpath(os.path.join(folder, value))
    if _remote(value):
        message = f"{clip(value)!r} is a remote resource: kustomize-build reads the repository only"
    elif not os.path.lexists(target):
        message = f"{clip(value)!r} is not in the repository (kustomize would fetch it as a remote resource)"
    elif not is_within(os.path.realpath(target), walk.root):
        message = f"{clip(value)!r} leads out of the repository: kustomize-build reads the repository only"
    else:
        if keys[0] in FOLDERS and os.path.isdir(target):
            _visit(Path(target), walk, depth + 1)
        return
    walk.problems.append(_error(shown, line, col, message))


def refusals(folder: str, root: str) -> list[Diagnostic]:
    """Why ``kustomize build folder`` may not run for an application in the repository ``root``: no kustomization
    there, or a kustomization it reaches names what lies outside the repository, something remote, or helm."""
    start = Path(folder)
    if kustomization_in(start) is None:
        shown = (start / "kustomization.yaml").as_posix()
        return [_error(shown, 1, 1, f"{clip(folder)} holds no kustomization.yaml to build")]
    walk = _Walk(os.path.realpath(root))
    _visit(start, walk, 0)
    return walk.problems
