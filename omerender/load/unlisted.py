"""Objects in YAML files a kustomization leaves out: where a name the build cannot find is defined after all.

A folder holding a kustomization is read as ``kustomize build`` reads it (``load.kustomize``): a file lying in it
but not listed in ``resources`` is not part of the build. When the build then misses a model or runtime, the file
that defines it is the answer the user needs (OME's vendored ``config/models`` lists 86 of its 209 models); when
auto-selection finds no runtime, so is a runtime such a file defines that it would pick (``selection.left_out``).
This is looked for only then (``LeftOut`` reads on the first ask), and within bounds: at most ``MAX_ENTRIES``
folder entries walked and ``MAX_FILES`` files read, each under the run's file cap and all under what is left of
its byte budget. Only regular files found by walking the input folders (hidden entries and symlinks skipped, as
``discover`` skips them or refuses them) are read; below a kustomization the build refuses or cannot read (one
that leads out of the repository, say), nothing is looked at, since what it lists is not known.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path

from omerender import codes
from omerender.constants import STDIN, YAML_SUFFIXES
from omerender.load.bounded import Budget, ReadProblem, admit, read_text
from omerender.load.kustomize import FILE_NAMES, Expansion, expand, folder_problem, kustomization_in
from omerender.load.obj import Obj
from omerender.load.reader import parse_file, walk_folders
from omerender.load.source import Source
from omerender.ome import BASE_MODEL, CLUSTER_BASE_MODEL, CLUSTER_SERVING_RUNTIME, SERVING_RUNTIME
from omerender.paths import repository_of

MAX_ENTRIES = 50_000  # folder entries walked below kustomize folders, over the run
MAX_FILES = 2_000  # unlisted YAML files read, over the run
KINDS = (CLUSTER_SERVING_RUNTIME, SERVING_RUNTIME, CLUSTER_BASE_MODEL, BASE_MODEL)

Key = tuple[str, str, str]
"""(kind, namespace, name); the namespace is empty for a cluster-scoped kind."""


@dataclass(frozen=True)
class Unlisted:
    """An object defined at ``path``:``line`` in a file ``kustomization`` does not list; ``obj``: the object as
    parsed (what auto-selection is run against when it finds nothing, ``selection.left_out``)."""

    path: str
    line: int
    kustomization: str
    obj: Obj | None = field(default=None, compare=False, repr=False)


@dataclass
class _Walk:
    entries: int = 0

    def spend(self, count: int) -> bool:
        self.entries += count
        return self.entries <= MAX_ENTRIES


def _visible(entry: os.DirEntry[str]) -> bool:
    return not entry.name.startswith(".") and not entry.is_symlink()


def _omitting(folder: str, top: str, reached: set[str]) -> str:
    """The kustomization that leaves out a file of ``folder``: the nearest one at or above it, up to ``top``, that
    the build reads (``reached``: real folders); a folder it does not reach is left out by the one above."""
    here = folder
    while True:
        found = kustomization_in(Path(here))
        if found is not None and os.path.realpath(here) in reached:
            return found.as_posix()
        if os.path.normpath(here) == os.path.normpath(top):
            return (kustomization_in(Path(top)) or Path(top) / FILE_NAMES[0]).as_posix()
        here = os.path.dirname(here)


def _below(top: str, kustomization: Path, real_roots: list[str], walk: _Walk) -> list[tuple[str, str]]:
    """(file, the kustomization that leaves it out) for the YAML files below kustomize folder ``top`` that its
    kustomization does not list, directly or through the folders it lists."""
    listed = Expansion()
    expand(kustomization, [Path(r) for r in real_roots], listed, repo=repository_of(top))
    if listed.problems:  # a kustomization not read (a link out, say) or refused: what it lists is not known
        return []
    read = {os.path.realpath(f) for f in listed.files}
    reached = set(listed.reached) | {os.path.realpath(top)}
    found: list[tuple[str, str]] = []
    for dirpath, folders, files in walk_folders(top):
        if not walk.spend(len(folders) + len(files)) or folder_problem(Path(dirpath)) is not None:
            folders[:] = []
            continue
        folders[:] = sorted((e for e in folders if _visible(e)), key=lambda e: e.name)
        for entry in sorted(files, key=lambda e: e.name):
            if not _visible(entry) or not entry.name.endswith(YAML_SUFFIXES) or entry.name in FILE_NAMES:
                continue
            path = os.path.join(dirpath, entry.name)
            if os.path.realpath(path) not in read:
                found.append((Path(path).as_posix(), _omitting(dirpath, top, reached)))
    return found


def unlisted_files(paths: list[str]) -> list[tuple[str, str]]:
    """(file, the kustomization that leaves it out) for every YAML file below the kustomize folders of ``paths``
    that no kustomization lists, in walking order, within ``MAX_ENTRIES``."""
    real_roots = [os.path.realpath(p) for p in paths if p != STDIN]
    walk = _Walk()
    found: list[tuple[str, str]] = []
    for given in paths:
        if given == STDIN or not os.path.isdir(given) or os.path.islink(given):
            continue
        for dirpath, folders, files in walk_folders(given):
            if not walk.spend(len(folders) + len(files)) or folder_problem(Path(dirpath)) is not None:
                folders[:] = []
                continue
            kustomization = kustomization_in(Path(dirpath))
            if kustomization is not None:
                folders[:] = []
                found += _below(dirpath, kustomization, real_roots, walk)
            else:
                folders[:] = sorted((e for e in folders if _visible(e)), key=lambda e: e.name)
    return found


def unlisted_objects(paths: list[str], limits: Budget, namespace: str) -> dict[Key, Unlisted]:
    """The runtimes and models defined in the files ``unlisted_files`` finds, each at its first definition. Read
    under ``limits`` (the run's caps: what is left of its bytes); a file that cannot be read is passed over, and
    once the bytes are spent nothing more is read."""
    budget = Budget(
        max_file_bytes=limits.max_file_bytes,
        max_total_bytes=max(0, limits.max_total_bytes - limits.bytes_read),
        max_total_nodes=max(0, limits.max_total_nodes - limits.nodes),
    )
    found: dict[Key, Unlisted] = {}
    for path, kustomization in unlisted_files(paths)[:MAX_FILES]:
        try:
            text = read_text(path, budget)
        except ReadProblem as problem:
            if problem.code == codes.RUN_TOO_LARGE:
                break
            continue
        admit(budget, [text])
        objects, _ = parse_file(Source(path, text), budget, namespace)
        for obj in objects:
            if obj.is_ome and obj.kind in KINDS:
                scope = obj.namespace if obj.kind in (SERVING_RUNTIME, BASE_MODEL) else ""
                where = Unlisted(path, obj.at("metadata", "name")[0], kustomization, obj)
                found.setdefault((obj.kind, scope, obj.name), where)
    return found


class LeftOut:
    """What ``unlisted_objects`` finds under ``paths``, read on the first ask and kept: a run whose lookups all
    succeed reads nothing. The run's budget is taken as it stands when this is made, so the answer is the same
    whenever (and in whichever worker process) it is first asked for. Made with no paths, it holds nothing."""

    def __init__(self, paths: list[str] | None = None, limits: Budget | None = None, namespace: str = "") -> None:
        self._paths = list(paths or [])
        self._limits = dataclasses.replace(limits or Budget())
        self._namespace = namespace
        self._found: dict[Key, Unlisted] | None = None

    def objects(self) -> dict[Key, Unlisted]:
        if self._found is None:
            self._found = unlisted_objects(self._paths, self._limits, self._namespace) if self._paths else {}
        return self._found

    def get(self, key: Key) -> Unlisted | None:
        return self.objects().get(key)
