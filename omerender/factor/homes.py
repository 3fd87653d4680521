"""Where a child's profile must lie so that every build reading the child reads the profile too: its home.

A build reads a file through the kustomizations that list it, or, where none does, by walking the folders from the
PATH or search path it was given. So, for each runtime factor may turn into a child:

* **listed**: the kustomizations at or above its folder, in the repository, whose ``resources`` name its file (each
  is the one that lists it in some build: ``platform/runtimes/kustomization.yaml``, an app's kustomization). Its
  home is the deepest of them: the profile goes to ``profiles/`` in that folder and each of them must read it
  (``kustomization.list_profiles`` adds it to their resources; kustomize reads files only in or below a
  kustomization's folder, so the deepest is the one folder all of them may list).
* **searched**: the search path it lies in, read by every build of the repository. Its home is the search path, or
  the PATH that holds the runtime when that PATH lies inside the search path (both read the profile then).
* otherwise the app that holds it: the nearest folder at or above its file, inside its PATH, that holds an
  InferenceService (what ``build``, Argo CD or Flux is pointed at), else its PATH.

Children of one profile share a home (``plan`` groups by it). Pure apart from reading kustomization files (bounded,
inside the repository, each expanded once).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from omerender.constants import STDIN
from omerender.load.kustomize import Expansion, expand, kustomization_in
from omerender.load.obj import Obj
from omerender.paths import is_within, repository_of

MAX_DEPTH = 64  # folders walked up from a runtime's file to its repository's top


@dataclass(frozen=True)
class Lister:
    """A kustomization that lists a file, and where its entry is (1-based line and column)."""

    path: str
    line: int
    col: int


@dataclass(frozen=True)
class Home:
    """Where the profile of a child goes: ``folder``/profiles, listed by ``listers`` (deepest first)."""

    folder: str
    listers: tuple[Lister, ...] = ()
    searched: str | None = None  # the search path the child lies in: every build reads it


@dataclass
class Homes:
    """Each runtime's home, by its file: computed once per file (a file's documents share a home)."""

    paths: list[str]
    search_paths: list[str]
    isvc_files: list[str]
    _expanded: dict[str, Expansion] = field(default_factory=dict)
    _found: dict[str, Home] = field(default_factory=dict)
    _apps: set[str] | None = None

    def of(self, runtime: Obj) -> Home:
        found = self._found.get(runtime.path)
        if found is None:
            found = self._found[runtime.path] = self._home(runtime.path)
        return found

    def listers(self, path: str) -> tuple[Lister, ...]:
        """The kustomizations that list ``path`` directly, deepest first (as the user's paths spell them)."""
        real = os.path.realpath(path)
        top = self._top(real, os.path.dirname(os.path.abspath(path)))
        found: dict[str, Lister] = {}
        folder = os.path.dirname(path) or "."
        for _ in range(MAX_DEPTH):
            kustomization = kustomization_in(Path(folder))
            reached = self._expansion(kustomization, top).reached.get(real) if kustomization is not None else None
            if reached is not None:  # "KUSTOMIZATION:LINE:COL" of the entry that lists it
                where, line, col = reached.rsplit(":", 2)
                found.setdefault(where, Lister(where, int(line), int(col)))
            if os.path.realpath(folder) in (top, os.path.realpath(os.path.join(folder, os.pardir))):
                break
            folder = os.path.normpath(os.path.join(folder, os.pardir))
        return tuple(sorted(found.values(), key=lambda k: (-len(Path(os.path.abspath(k.path)).parts), k.path)))

    def _top(self, real: str, folder: str) -> str:
        """How far up kustomizations that list a file are looked for: the repository's top (the folder holding
        ``.git``), or the highest PATH or search path holding the file when that lies higher (no ``.git``)."""
        tops = [os.path.realpath(repository_of(folder))]
        tops += [os.path.realpath(p) for p in [*self.paths, *self.search_paths] if p != STDIN and os.path.isdir(p)]
        return min((t for t in tops if is_within(real, t)), key=len, default=tops[0])

    def _expansion(self, kustomization: Path, top: str) -> Expansion:
        key = f"{os.path.realpath(kustomization)}\0{top}"
        done = self._expanded.get(key)
        if done is None:
            done = self._expanded[key] = Expansion()
            expand(kustomization, [Path(top)], done, repo=top)  # its problems are the builds' to report
        return done

    def _home(self, path: str) -> Home:
        listers = self.listers(path)
        given = self._path_of(path)
        real = os.path.realpath(path)
        searched = next((s for s in self.search_paths if is_within(real, os.path.realpath(s))), None)
        if listers:
            return Home(os.path.dirname(listers[0].path) or ".", listers, searched)
        real_searched = os.path.realpath(searched) if searched is not None else ""
        if searched is not None and os.path.isdir(searched):
            inner = given is not None and os.path.isdir(given) and is_within(os.path.realpath(given), real_searched)
            return Home(given if inner and given is not None else searched, (), searched)
        if given is None:
            return Home(os.path.dirname(path) or ".", (), searched)
        return Home(self._app(path, given), (), searched)

    def _path_of(self, path: str) -> str | None:
        real = os.path.realpath(path)
        inside = [p for p in self.paths if p != STDIN and is_within(real, os.path.realpath(p))]
        return max(inside, key=lambda p: len(os.path.realpath(p)), default=None)

    def _app(self, path: str, given: str) -> str:
        """The nearest folder at or above ``path``, inside ``given``, holding an InferenceService; else ``given``."""
        root = given if os.path.isdir(given) else os.path.dirname(given) or "."
        if self._apps is None:  # the folders holding an InferenceService file, and every folder above them
            folders = {os.path.dirname(os.path.realpath(f)) for f in self.isvc_files}
            self._apps = folders | {str(parent) for f in folders for parent in Path(f).parents}
        top = os.path.realpath(root)
        folder = os.path.dirname(path) or "."
        for _ in range(MAX_DEPTH):
            real = os.path.realpath(folder)
            if not is_within(real, top):
                break
            if real in self._apps:
                return folder
            if real == top:
                break
            folder = os.path.dirname(folder) or "."
        return root
