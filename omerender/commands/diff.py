"""``diff``: which runtimes' merged specs change between two trees, and which InferenceServices roll out.

Each side is given its roots (``OLD NEW``, ``--old``/``--new``, or PATHS on both sides with ``--against GIT_REF``,
whose side git extracts into a scratch folder: a ref git cannot read is a usage problem). A search path inside a
diffed PATH is read with it (at GIT_REF for that side); any other is read from the working tree, and the files it
reaches under the other side's PATHS are skipped (they are that side's). Each side is built with the lock beside
its own PATHS; the InferenceServices found only on a search path are not compared. The old side's diagnostics
about extracted files are named ``GIT_REF:path``.

Verdict: ``TREE_BROKEN`` (exit 4) when a side does not build (the report still lists what no longer renders),
``FINDINGS`` when anything changes, else ``OK``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from omerender.changes.diff import compare
from omerender.changes.gitref import GitError, paths_at
from omerender.changes.report import DiffReport
from omerender.changes.sides import others_files, relabel, searched_isvcs, sides, two_sides
from omerender.commands.outcome import Note, Outcome, Verdict
from omerender.commands.request import build_options
from omerender.constants import DEFAULT_KUBE_VERSION
from omerender.diagnostics import Diagnostic, sorted_unique
from omerender.lifecycle.lock import default_path
from omerender.load.roots import only_searched
from omerender.output.leftovers import scratch as scratch_folder
from omerender.pipeline import build
from omerender.result import BuildOptions, BuildResult
from omerender.settings import Settings


@dataclass(frozen=True)
class DiffRequest:
    """The roots of each side (``old``, ``new``; with ``git_ref`` both are the PATHS, the old side read at
    GIT_REF), the search paths both sides read, and the build's options (each side places its own lock)."""

    old: tuple[str, ...]
    new: tuple[str, ...]
    git_ref: str | None
    search_paths: tuple[str, ...]
    options: BuildOptions
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
        options = build_options(settings, new_given, kube_version=DEFAULT_KUBE_VERSION)
        return cls(tuple(old_given), tuple(new_given), git_ref, tuple(settings.search_path), options, stdin)

    def options_for(self, paths: Sequence[str]) -> BuildOptions:
        """The build's options for a side whose PATHS are ``paths``: its lock is the one beside them."""
        return dataclasses.replace(self.options, lock_file=default_path(list(paths)))


@dataclass(frozen=True)
class Diffed:
    """What ``diff`` shows: the report and the new side's build (markdown draws its affected subtree)."""

    report: DiffReport
    new: BuildResult


@dataclass(frozen=True)
class _Sides:
    old: BuildResult
    new: BuildResult
    hidden: set[str]  # InferenceServices found only on a search path: not compared
    old_diagnostics: list[Diagnostic]  # named GIT_REF:path for the extracted files


def run(request: DiffRequest) -> Outcome[Diffed]:
    """Build both sides and compare them."""
    with scratch_folder("omerender-diff-") as scratch:  # what a killed diff left there is removed first
        try:
            built = _sides_built(request, scratch)
        except GitError as exc:
            return Outcome(notes=[Note(f"--against {request.git_ref}: {exc}")], verdict=Verdict.USAGE)
    old, new = built.old, built.new
    shown = sorted_unique(built.old_diagnostics + new.diagnostics)  # in the order of every report, whatever the hash
    report = compare(old, new, built.hidden)
    if old.failed or new.failed:
        verdict = Verdict.TREE_BROKEN
    else:
        verdict = Verdict.FINDINGS if report.changed else Verdict.OK
    builds = (new,) if request.git_ref else (old, new)
    return Outcome(Diffed(report, new), shown, verdict, builds=builds)


def _sides_built(request: DiffRequest, scratch: str) -> _Sides:
    """Build the old and new side of the diff; the old one's diagnostics named ``GIT_REF:path``. Raises
    ``GitError`` when git cannot extract the PATHS at GIT_REF."""
    search = request.search_paths
    new_given = list(request.new)
    if request.git_ref is not None:
        extracted = paths_at(new_given, request.git_ref, scratch)
        old_paths, old_in = extracted, sides(new_given, search, extracted)
    else:
        old_paths, old_in = list(request.old), sides(list(request.old), search, None)
    new_in = sides(new_given, search, None)
    skip_old = others_files(search, old_paths, new_given)
    skip_new = others_files(search, new_given, old_paths)
    old = build(old_in[0], request.options_for(old_paths), request.stdin, skip_old)
    new = build(new_in[0], request.options_for(new_given), request.stdin, skip_new)
    # as build and status: what a side's PATH covers is that side's, even when a search path covers it too
    hidden = searched_isvcs(old, only_searched(old_in[1], old_paths))
    hidden |= searched_isvcs(new, only_searched(new_in[1], new_given))
    git_ref = request.git_ref
    diagnostics = relabel(old.diagnostics, scratch, f"{git_ref}:") if git_ref else old.diagnostics
    return _Sides(old, new, hidden, diagnostics)
