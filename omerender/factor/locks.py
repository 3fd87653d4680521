"""The lock files factor keeps up to date: a lock records each runtime's chain, which factor changes (a child's chain
gains its profile) while every revision stays the same. A lock that ``omerender lock --check`` accepted before the
change gets the text ``omerender lock`` would write after it, as one more file of the change, so the pre-commit lock
check still passes; a lock that was already out of date is left for ``lock`` to report."""

from __future__ import annotations

from dataclasses import dataclass

from omerender.changes.relock import recorded
from omerender.load.roots import only_searched
from omerender.result import BuildResult


@dataclass(frozen=True)
class Relocked:
    path: str
    before: str
    after: str
    roots: tuple[str, ...]  # the build that reads it (``omerender lock ROOTS`` writes it)


def relocked(old: BuildResult, new: BuildResult, roots: list[str], search_paths: list[str]) -> Relocked | None:
    """The lock a build of ``roots`` reads, when it was up to date before the change and the change alters it."""
    life = old.lifecycle
    if life.lock_text is None:
        return None
    searched = only_searched(search_paths, roots)  # as lock: a PATH wins over a search path
    before = life.relocked(old.universe, old.chains, recorded(old, searched), searched)
    if before != life.lock_text:
        return None
    after = new.lifecycle.relocked(new.universe, new.chains, recorded(new, searched), searched)
    return None if after == before else Relocked(life.path, before, after, tuple(roots))
