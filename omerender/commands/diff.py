"""``diff``: which runtimes' merged specs change between two trees, and which InferenceServices roll out.

Each side is given its roots (``OLD NEW``, ``--old``/``--new``, or PATHS on both sides with ``--against GIT_REF``).
Each side is rendered with its own tree. With ``--against``, the GIT_REF side reads everything at GIT_REF (git
extracts it into a scratch folder: a ref git cannot read is a usage problem): its PATHS, its own settings file
(``changes.base_settings``: as untrusted as the working tree's), the search paths and the files the settings name,
and its locks. Without it, a search path is read from the working tree and the files it reaches under the other
side's PATHS are the other side's (a search path inside the other side's PATHS is not read at all). Each
InferenceService renders with the lock a build of its app reads (``changes.locks``; one ``--lock-file`` for all).
The InferenceServices found only on a search path are not compared, and a runtime found only there is reported
when a compared InferenceService's chain holds it. The old side's diagnostics about extracted files are named
``GIT_REF:path``.

Verdict: ``TREE_BROKEN`` (exit 4) when a side does not build (the report still lists what no longer renders),
``FINDINGS`` when anything changes, else ``OK``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from omerender.changes.base_settings import base_settings
from omerender.changes.diff import SideView, compare_views, merged, view
from omerender.changes.gitref import Checkout, GitError
from omerender.changes.locks import by_lock
from omerender.changes.report import DiffReport
from omerender.changes.sides import others_files, relabel, searched_isvcs, sides, two_sides
from omerender.commands.outcome import Note, Outcome, Verdict
from omerender.commands.request import build_options, lock_path
from omerender.constants import DEFAULT_KUBE_VERSION, STDIN
from omerender.diagnostics import Diagnostic, has_errors, sorted_unique
from omerender.lifecycle.lock import isvc_key
from omerender.load.roots import only_searched
from omerender.output.leftovers import scratch as scratch_folder
from omerender.paths import is_within
from omerender.pipeline import build
from omerender.result import BuildResult
from omerender.settings import Settings


@dataclass(frozen=True)
class DiffRequest:
    """The roots of each side (``old``, ``new``; with ``git_ref`` both are the PATHS, the old side read at
    GIT_REF) and the working tree's settings (the GIT_REF side reads its own settings file at GIT_REF)."""

    old: tuple[str, ...]
    new: tuple[str, ...]
    git_ref: str | None
    settings: Settings
    stdin: Callable[[], bytes] = lambda: b""

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        paths: Sequence[str] = (),
        *,
        old: Sequence[str] = (),
        new: Sequence[str] = (),
        git_ref: str | None = None,
        stdin: Callable[[], bytes] = lambda: b"",
    ) -> DiffRequest:
        """``paths``: OLD NEW, or with ``git_ref`` the paths to compare; ``old``/``new``: ``--old``/``--new``.
        Raises ``UsageError`` for a combination that names no two sides."""
        old_given, new_given = two_sides(tuple(paths), tuple(old), tuple(new), git_ref)
        return cls(tuple(old_given), tuple(new_given), git_ref, settings, stdin)


@dataclass(frozen=True)
class Diffed:
    """What ``diff`` shows: the report and the new side's build (markdown draws its affected subtree)."""

    report: DiffReport
    new: BuildResult
    unbuilt: tuple[str, ...] = ()  # the sides that do not build, as a report names them


@dataclass(frozen=True)
class _Side:
    """What one side reads: its PATHS (as read: extracted for the GIT_REF side), every input, the roots that only
    resolve, its settings, and the files it leaves to the other side."""

    paths: list[str]
    inputs: list[str]
    searched: list[str]
    settings: Settings
    skip: frozenset[str] = frozenset()


@dataclass(frozen=True)
class _Built:
    result: BuildResult  # the build with the side's own lock
    view: SideView  # what compare reads: each InferenceService with the lock of its app
    diagnostics: list[Diagnostic]
    locks: tuple[str, ...]  # the locks read


def run(request: DiffRequest) -> Outcome[Diffed]:
    """Build both sides and compare them."""
    with scratch_folder("omerender-diff-") as scratch:  # what a killed diff left there is removed first
        try:
            old_side, new_side, problems = _sides(request, scratch)
        except GitError as exc:
            return Outcome(notes=[Note(f"--against {request.git_ref}: {exc}")], verdict=Verdict.USAGE)
        old, new = _built(old_side, request.stdin), _built(new_side, request.stdin)
        label = f"{request.git_ref}:" if request.git_ref else ""
        old_diagnostics = relabel(problems + old.diagnostics, scratch, label) if label else old.diagnostics
        notes = _said(request, old_side, new_side, (old, new), scratch) if request.settings.verbose else []
    shown = sorted_unique(_only_before(old_diagnostics, new.diagnostics, label) + new.diagnostics)
    hidden = searched_isvcs(old.result, only_searched(old_side.searched, old_side.paths))
    hidden |= searched_isvcs(new.result, only_searched(new_side.searched, new_side.paths))
    report = compare_views(old.view, new.view, hidden)
    old_name = f"the old tree ({request.git_ref})" if request.git_ref else "the old tree"
    unbuilt = tuple(
        name for name, said in ((old_name, old_diagnostics), ("the new tree", new.diagnostics)) if has_errors(said)
    )
    if unbuilt:
        verdict = Verdict.TREE_BROKEN
    else:
        verdict = Verdict.FINDINGS if report.changed else Verdict.OK
    builds = (new.result,) if request.git_ref else (old.result, new.result)
    elsewhere = f"{request.git_ref}:" if request.git_ref else None
    return Outcome(Diffed(report, new.result, unbuilt), shown, verdict, notes, builds=builds, elsewhere=elsewhere)


def _only_before(old: list[Diagnostic], new: list[Diagnostic], label: str) -> list[Diagnostic]:
    """The GIT_REF side's diagnostics that the working tree does not repeat word for word at the same place: a
    finding both sides hold is shown once, at the checkout's file (the other side's copy would only double it)."""
    if not label:
        return old
    here = {dataclasses.replace(d, path=label + d.path) for d in new}
    return [d for d in old if d not in here]


def _sides(request: DiffRequest, scratch: str) -> tuple[_Side, _Side, list[Diagnostic]]:
    """What each side reads, and the problems of the GIT_REF side's settings file. Raises ``GitError`` when git
    cannot extract the PATHS at GIT_REF."""
    settings = request.settings
    new_given = list(request.new)
    search = tuple(settings.search_path)
    if request.git_ref is None:
        old_given = list(request.old)
        old_in, new_in = sides(old_given, search, None, new_given), sides(new_given, search, None, old_given)
        old = _Side(old_given, *old_in, settings, others_files(search, old_given, new_given))
        return old, _Side(new_given, *new_in, settings, others_files(search, new_given, old_given)), []
    local = [p for p in new_given if p != STDIN]
    if not local:
        raise GitError("--against needs paths inside a git work tree, not stdin")
    checkout = Checkout(local[0], request.git_ref, scratch)
    extracted = [checkout.path(given) for given in local]
    base = base_settings(settings, checkout, local[0])
    old_paths = [*extracted, *(STDIN for p in new_given if p == STDIN)]
    old_search = tuple(base.settings.search_path)
    old = _Side(old_paths, *sides(old_paths, old_search, None), base.settings)
    own = lock_path(base.settings, old_paths)  # beside a PATH that is a file: not extracted with it
    if is_within(os.path.abspath(own), os.path.abspath(scratch)):
        checkout.path(own, folder=False, scratch=True)
    return old, _Side(new_given, *sides(new_given, search, None), settings), base.problems


def _built(side: _Side, stdin: Callable[[], bytes]) -> _Built:
    """Build ``side`` with its own lock and, for the InferenceServices whose app has a lock of its own (without
    ``--lock-file``), once more per such lock."""
    options = build_options(side.settings, side.paths, kube_version=DEFAULT_KUBE_VERSION)
    result = build(side.inputs, options, stdin, side.skip)
    searched = only_searched(side.searched, side.paths)
    own = options.lock_file or lock_path(side.settings, side.paths)
    groups = {} if side.settings.lock_file else by_lock(result, side.paths, own, searched)
    if not groups:
        return _Built(result, view(result, searched), list(result.diagnostics), (own,))
    elsewhere = set().union(*groups.values())
    theirs = _files(result, elsewhere)
    views = [view(result, searched, only={isvc_key(i) for i in result.universe.isvcs.values()} - elsewhere)]
    diagnostics = [d for d in result.diagnostics if d.path not in theirs]
    for lock, keys in sorted(groups.items()):
        again = build(side.inputs, dataclasses.replace(options, lock_file=lock), stdin, side.skip)
        views.append(view(again, searched, only=keys))
        files = _files(again, keys)
        diagnostics += [d for d in again.diagnostics if d.path in files or d.path == lock]
    return _Built(result, merged(views), sorted_unique(diagnostics), (own, *sorted(groups)))


def _files(result: BuildResult, keys: set[str]) -> set[str]:
    """The files holding the InferenceServices ``keys`` (namespace/name)."""
    return {i.path for i in result.universe.isvcs.values() if isvc_key(i) in keys}


def _said(request: DiffRequest, old: _Side, new: _Side, built: tuple[_Built, _Built], scratch: str) -> list[Note]:
    """At ``-v``: the settings file, search paths and locks each side used (a lock looked for and not there
    says so: its pinned InferenceServices render live)."""
    label = f"{request.git_ref}:" if request.git_ref else ""

    def shown(path: str) -> str:
        return label + os.path.relpath(path, scratch) if label and is_within(os.path.abspath(path), scratch) else path

    notes = []
    names = (f"{request.git_ref} (old)", "working tree (new)") if request.git_ref is not None else ("old", "new")
    for name, side, done in ((names[0], old, built[0]), (names[1], new, built[1])):
        config = shown(side.settings.config) if side.settings.config else "none"
        search = ", ".join(shown(p) for p in side.settings.search_path) or "none"
        locks = ", ".join(shown(p) + ("" if os.path.isfile(p) else " (no such file)") for p in done.locks)
        notes.append(Note(f"diff: {name} side: settings file {config}; search paths {search}; locks {locks}"))
    return notes
