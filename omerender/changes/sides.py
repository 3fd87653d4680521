"""The two sides of ``diff``, and what concerns one InferenceService for ``effective``.

``two_sides`` reads the roots given to each side; ``sides`` says what each side of a diff reads and which
roots only resolve (a ``--search-path``); a search path inside a diffed path is read at GIT_REF with it.
``others_files`` are the files a search path reaches under the other side's PATHS (never read on this side);
``searched_isvcs`` names the InferenceServices found only in those roots, under no diffed PATH (never compared);
``relabel`` shows files of the GIT_REF side as ``REF:path``. ``concerning`` keeps the diagnostics about one
InferenceService.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable

from omerender import codes
from omerender.diagnostics import Diagnostic
from omerender.lifecycle.settle import Effective
from omerender.load.obj import Obj
from omerender.paths import holder
from omerender.result import BuildResult

CONFIG_CODES = (codes.CONTROLLER_CONFIG, codes.CONTROLLER_CONFIG_UNKNOWN, codes.CONTROLLER_CONFIG_POD_ONLY)


def two_sides(
    paths: tuple[str, ...], old: tuple[str, ...], new: tuple[str, ...], git_ref: str | None
) -> tuple[list[str], list[str]]:
    """The roots each side of a diff is given: ``OLD NEW``, or every ``--old`` and every ``--new`` (not both
    forms); with ``--against`` the PATHS on both sides (read at GIT_REF for the old one)."""
    from omerender.errors import UsageError

    if git_ref is not None:
        if old or new:
            raise UsageError("--against compares PATHS with GIT_REF: it takes no --old or --new")
        if not paths:
            raise UsageError("--against GIT_REF needs the paths to compare")
        return list(paths), list(paths)
    if old or new:
        if paths or not old or not new:
            raise UsageError("give --old PATH and --new PATH (each repeatable), or OLD NEW, not both")
        return list(old), list(new)
    if len(paths) != 2:
        raise UsageError("give two paths, OLD and NEW, or --against GIT_REF with the paths to compare")
    return [paths[0]], [paths[1]]


def sides(
    paths: list[str], search_path: tuple[str, ...], against: list[str] | None, other: list[str] | None = None
) -> tuple[list[str], list[str]]:
    """The inputs of one side of a diff and the roots whose objects only resolve (not compared).

    ``paths`` are the diffed paths of the working tree; ``against`` the same paths extracted at
    GIT_REF (or None). A --search-path inside a diffed path is already read with it (at GIT_REF for
    the old side); any other is read from the working tree, as given, unless it lies inside a PATH of the
    ``other`` side and under none of this side's: every file of it is the other side's, so this side does not
    read it (and does not call it empty).
    """
    inputs = list(against if against is not None else paths)
    roots: list[str] = []
    theirs = [p for p in other or () if p != "-"]
    for given in search_path:
        found = holder(given, paths)
        if found is None:
            if holder(given, theirs) is None:
                inputs.append(given)
                roots.append(given)
        elif against is None:
            roots.append(given)
        else:
            rel = os.path.relpath(os.path.realpath(given), os.path.realpath(found))
            roots.append(os.path.normpath(os.path.join(against[paths.index(found)], rel)))
    return inputs, roots


def others_files(search_path: tuple[str, ...], own: list[str], other: list[str]) -> frozenset[str]:
    """The files (resolved) a side reads through ``search_path`` that lie under a PATH of the ``other`` side and
    under none of its ``own``: they are the other side's, never this side's search-path objects (a search path
    covering both sides, or the working tree's copy of the PATHS on the GIT_REF side of --against)."""
    from omerender.load.reader import discover

    theirs = [p for p in other if p != "-" and holder(p, list(search_path)) is not None]
    if not theirs:
        return frozenset()
    found, _ = discover(list(search_path))
    mine = [p for p in own if p != "-"]
    return frozenset(os.path.realpath(f) for f in found if holder(f, theirs) is not None and holder(f, mine) is None)


def searched_isvcs(result: BuildResult, searched: Callable[[Obj], bool]) -> set[str]:
    """namespace/name of the InferenceServices ``searched`` found only on a search path (build's
    ``load.roots.only_searched`` over the side's roots and PATHS: a PATH that a search path also covers wins)."""
    from omerender.lifecycle.lock import isvc_key

    return {isvc_key(i) for i in result.universe.isvcs.values() if searched(i)}


def relabel(diagnostics: list[Diagnostic], scratch: str, label: str) -> list[Diagnostic]:
    """Diagnostics about files under ``scratch`` (a GIT_REF extracted) named ``label`` + their path there."""
    return [
        dataclasses.replace(d, path=label + d.path[len(scratch) :].lstrip("/")) if d.path.startswith(scratch) else d
        for d in diagnostics
    ]


def concerning(result: BuildResult, record: Effective | None, model_metadata: str | None) -> list[Diagnostic]:
    """The diagnostics about one InferenceService (``record``, or None when it was not found): its file, its
    runtimes', its model's, the lock's, the metadata overlay's, and a refused controller configuration
    (which stops OME's controller for everyone)."""
    files = {result.lifecycle.path, *((model_metadata,) if model_metadata else ())}
    files |= {d.path for d in result.diagnostics if d.code in CONFIG_CODES}
    if record is not None:
        files |= {record.isvc.path, *(r.path for r in (record.live.runtimes if record.live is not None else ()))}
        model_ref = record.isvc.spec.get("model")
        model = (
            result.universe.model_named(str(model_ref.get("name")), record.isvc.namespace)
            if isinstance(model_ref, dict)
            else None
        )
        if model is not None:
            files.add(model.path)
    return [d for d in result.diagnostics if d.path in files]


def dropped_error(shown: list[Diagnostic]) -> Diagnostic | None:
    """The first error among ``shown`` that leaves a field or an object out of what the API server stores (an
    unknown field, an invalid name, a schema refusal): an answer computed without it would be wrong."""
    from omerender.diagnostics import ERROR

    dropped = (codes.UNKNOWN_FIELD, codes.INVALID_NAME, codes.SCHEMA)
    return next((d for d in shown if d.severity == ERROR and d.code in dropped), None)
