"""How the repository is consumed, and the proof that each consumer renders the same objects after factor.

A repository with a settings file is not built as one tree: each app is (``omerender build apps/team-a``, its
pre-commit hook, its Argo CD application, its Flux Kustomization), with the settings file's search paths. So factor's
proof covers, besides the run itself (PATHS with the search paths):

* **the apps**: each folder, outside the search paths, that holds a file with an InferenceService, or the folder of
  the kustomization that lists such a file (the deepest one). They are looked for in the repository the settings
  file configures (its folder, when it lies at or above the first PATH and inside the repository holding it), else
  in the PATHS.
* each app is built as ``build APP`` builds it, with the search paths and its own lock, before and after: from the
  files on disk, then with factor's new texts and the profiles it would read (through the kustomizations factor
  edits). An app that reads no file factor changes or adds renders the same bytes and is not built; one that does
  not build before factor is named and not compared (its diagnostics are for ``build`` to give).

``clashes``: a new profile whose name a runtime elsewhere in that repository already has (one that no build of the
PATHS reads, so the plan could not avoid it): in a cluster, one would overwrite or shadow the other.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from omerender import codes
from omerender.constants import STDIN
from omerender.diagnostics import ERROR, Diagnostic
from omerender.factor.homes import Homes
from omerender.factor.kustomization import Reach
from omerender.factor.locks import Relocked, relocked
from omerender.factor.plan import Profile
from omerender.factor.proof import prove
from omerender.load.bounded import Budget
from omerender.load.kustomize import kustomization_in
from omerender.load.obj import Obj
from omerender.load.reader import LoadResult, discover, load
from omerender.load.roots import only_searched
from omerender.ome import CLUSTER_SERVING_RUNTIME, INFERENCE_SERVICE, SERVING_RUNTIME
from omerender.paths import is_within, repository_of
from omerender.result import BuildOptions

MAX_APPS = 256  # apps built for the proof; more is refused (factor a smaller PATH)
MAX_DEPTH = 64


def repository(settings_file: str | None, paths: list[str]) -> str | None:
    """The folder of ``settings_file`` when it configures the PATHS' builds (it lies at or above the first PATH,
    inside the repository holding that PATH): the repository whose apps factor proves. None otherwise."""
    given = [p for p in paths if p != STDIN]
    if settings_file is None or not given:
        return None
    folder = os.path.dirname(settings_file) or "."
    first = given[0] if os.path.isdir(given[0]) else os.path.dirname(given[0]) or "."
    top = os.path.realpath(repository_of(first))
    real = os.path.realpath(folder)
    if is_within(os.path.realpath(first), real) and is_within(real, top):
        return folder
    return None


def apps(isvcs: list[Obj], homes: Homes, search_paths: list[str], within: list[str]) -> list[str]:
    """The app folders holding ``isvcs`` (see the module), inside ``within`` and outside the search paths."""
    searched = [os.path.realpath(s) for s in search_paths]
    tops = [os.path.realpath(w) for w in within]
    found: dict[str, str] = {}
    for path in sorted({isvc.path for isvc in isvcs if isvc.kind == INFERENCE_SERVICE and isvc.path != "<stdin>"}):
        real = os.path.realpath(path)
        if any(is_within(real, s) for s in searched) or not any(is_within(real, t) for t in tops):
            continue
        listers = homes.listers(path)
        folder = os.path.dirname(listers[0].path if listers else path) or "."
        found.setdefault(os.path.realpath(folder), folder)
    return sorted(found.values())


@dataclass
class Change:
    """What factor would change: the objects of each rewritten file and new profile (by real path), and the
    kustomizations that list each new profile once it is written."""

    rewritten: dict[str, list[Obj]]  # real path -> the objects of its new text
    profiles: dict[str, list[Obj]]  # a profile's path (as written) -> its objects
    listed_by: dict[str, list[str]] = field(default_factory=dict)  # a profile's path -> kustomizations listing it
    reaches: Reach = field(default_factory=Reach)

    def profiles_read(self, roots: list[str]) -> list[str]:
        """The new profiles a build of ``roots`` reads once the change is made (as ``discover`` would find them)."""
        return [path for path in sorted(self.profiles) if any(self._reads(root, path) for root in roots)]

    def _reads(self, root: str, profile: str) -> bool:
        top, real = os.path.realpath(root), os.path.realpath(profile)
        if not os.path.isdir(root) or not is_within(real, top):
            return False
        folder = top
        below = Path(os.path.relpath(os.path.dirname(real), top)).parts
        for part in (*below, None)[: MAX_DEPTH + 1]:  # the first kustomization on the way down decides
            found = kustomization_in(Path(folder))
            if found is not None:
                return any(self.reaches(found, Path(k)) for k in self.listed_by.get(profile, []))
            if part is None or part == os.curdir:
                break
            if part.startswith("."):
                return False  # a hidden folder is not read
            folder = os.path.join(folder, part)
        return True


@dataclass
class Proved:
    """The apps the proof built (``built``), left alone (``unchanged``: they read nothing factor changes) or could
    not compare (``broken``: they do not build before factor); and what differs."""

    built: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)
    locks: list[Relocked] = field(default_factory=list)  # the apps' locks the change alters (``locks``)


class _Inputs:
    """What each app's build reads: its own folder, and the search paths, read once for every app (an app whose
    files the search paths reach too is read whole, so that each file counts once, as ``load`` reads it). A model
    metadata overlay fills the models it reads in place, so with one every build reads its inputs afresh."""

    def __init__(self, search_paths: list[str], options: BuildOptions, skip: frozenset[str]) -> None:
        self.search_paths, self.options, self.skip = search_paths, options, skip
        self._shared: LoadResult | None = None
        self._reals: dict[str, str] = {}

    def real(self, path: str) -> str:
        found = self._reals.get(path)
        if found is None:
            found = self._reals[path] = os.path.realpath(path)
        return found

    def _load(self, roots: list[str]) -> LoadResult:
        budget = Budget(max_file_bytes=self.options.max_file_bytes)  # each read within its own budget
        return load(roots, self.options.namespace, budget, skip=self.skip)

    def load(self, app: str) -> LoadResult:
        if self.options.model_metadata:
            return self._load([app, *self.search_paths])
        if self._shared is None:
            self._shared = self._load(self.search_paths)
        own = self._load([app])
        if {self.real(f) for f in own.files} & {self.real(f) for f in self._shared.files}:
            return self._load([app, *self.search_paths])
        both = LoadResult()
        both.files = own.files + self._shared.files
        both.objects = own.objects + self._shared.objects
        both.diagnostics = own.diagnostics + self._shared.diagnostics
        return both


def prove_apps(
    found: list[str], search_paths: list[str], change: Change, options: BuildOptions, converted: set[str]
) -> Proved:
    """Build each app of ``found`` before and after ``change`` (see the module) and compare."""
    from omerender.pipeline import build_objects, settings_files, spare_unused

    proved = Proved()
    if len(found) > MAX_APPS:
        message = (
            f"more than {MAX_APPS} apps of the repository hold InferenceServices; factor proves each app's build and "
            "stops there: factor a smaller PATH"
        )
        proved.problems.append(Diagnostic("<factor>", 1, 1, ERROR, message, codes.FACTOR_PROOF))
        return proved
    skip = settings_files(options)
    inputs = _Inputs(search_paths, options, skip)
    for app in found:
        roots = [app, *search_paths]
        files, _ = discover(roots, skip)
        reals = {inputs.real(f) for f in files}
        changed = sorted(reals & change.rewritten.keys())
        profiles = change.profiles_read(roots)
        if not changed and not profiles:
            proved.unchanged.append(app)
            continue
        loaded = inputs.load(app)
        old = build_objects(loaded.objects, loaded.diagnostics, options, [app])
        owned = _owned(search_paths, app)  # as `build APP`: what only a search path holds and APP does not use
        spared = spare_unused(old, loaded.objects, owned) if search_paths else frozenset()  # may stay broken
        if old.failed:
            proved.broken.append(app)
            continue
        again = inputs.load(app) if options.model_metadata else loaded
        kept = [o for o in again.objects if inputs.real(o.path) not in change.rewritten]
        added = [o for real in changed for o in change.rewritten[real]]
        added += [o for path in profiles for o in change.profiles[path]]
        new = build_objects(kept + added, again.diagnostics, options, [app])
        if search_paths:
            spare_unused(new, kept + added, owned)
        differences = prove(old, new, converted, app, spared)
        if differences:
            differences.append(_unread(app, search_paths, profiles, sorted(change.profiles)))
        proved.problems.extend(differences)
        proved.built.append(app)
        lock = relocked(old, new, [app], search_paths)
        proved.locks += [lock] if lock is not None else []
    return proved


def _owned(search_paths: list[str], app: str) -> Callable[[Obj], bool]:
    """A predicate: the object is ``app``'s own (not read only from a search path)."""
    searched = only_searched(search_paths, [app])
    return lambda obj: not searched(obj)


def _unread(app: str, search_paths: list[str], read: list[str], written: list[str]) -> Diagnostic:
    """Why an app's build would change: what it reads, and which of factor's new profiles it would not."""
    unread = [path for path in written if path not in read]
    shown = ", ".join(unread[:3]) + (f" and {len(unread) - 3} more" if len(unread) > 3 else "")
    searched = f" and the search paths ({', '.join(search_paths)})" if search_paths else ""
    message = (
        f"`omerender build {app}` reads {app}{searched}, and would not read {shown or 'the profiles'} that factor "
        "would write; leave out --profiles-dir (factor then writes each profile where every build reading its "
        "children reads it) or name a folder those builds read"
    )
    return Diagnostic("<factor>", 1, 1, ERROR, message, codes.FACTOR_PROOF)


def clashes(profiles: list[Profile], written: dict[str, str], runtimes: list[Obj]) -> list[Diagnostic]:
    """New profiles whose names a runtime of the repository has (see ``plan.Names`` for the rule)."""
    named: dict[str, list[Obj]] = {}
    for runtime in runtimes:
        named.setdefault(runtime.name, []).append(runtime)
    problems: list[Diagnostic] = []
    for profile in profiles:
        for runtime in named.get(profile.name, []):
            namespaced = runtime.kind == SERVING_RUNTIME
            if profile.namespace is not None and namespaced and runtime.namespace != profile.namespace:
                continue
            kind = CLUSTER_SERVING_RUNTIME if profile.namespace is None else f"ServingRuntime in {profile.namespace}"
            other = f"{runtime.kind} {runtime.namespace + '/' if namespaced else ''}{runtime.name}"
            message = (
                f"factor would write the profile {profile.name} ({kind}) at {written[profile.name]}, but {other} "
                "already has that name here, in a folder no build of PATHS reads: in a cluster one would "
                f"{'shadow' if namespaced != (profile.namespace is not None) else 'overwrite'} the other; "
                "name the profile with --profile-name, or give this folder as a PATH too"
            )
            problems.append(runtime.diag(ERROR, message, "metadata", "name", code=codes.FACTOR_PROOF))
            break
    return problems
