"""Which lock each InferenceService of a ``diff`` side renders with: the one a build of its app reads.

``build`` reads one lock per run (``commands.request.lock_path``: ``--lock-file``, else ``omerender.lock`` in the
deepest folder holding every PATH), so ``build apps/team-a`` (an Argo CD application, a pre-commit hook) reads
``apps/team-a/omerender.lock``. A diff over several apps at once (``diff apps platform``) keeps that answer for
each of them: without ``--lock-file``, an InferenceService renders with the ``omerender.lock`` nearest above its
file, up to the PATH that holds it, else with the side's own lock. The walk is bounded by the folders between the
file and its PATH.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from omerender.lifecycle.lock import FILENAME, isvc_key
from omerender.load.obj import Obj
from omerender.paths import holder
from omerender.result import Resolved


def nearest_lock(path: str, roots: Sequence[str]) -> str | None:
    """The ``omerender.lock`` nearest above the file ``path``, up to the root of ``roots`` that holds it (a
    regular file, not a symlink: ``lifecycle.lock.read`` refuses a link out anyway); None when there is none."""
    root = holder(path, list(roots))
    if root is None:
        return None
    top = os.path.normpath(root if os.path.isdir(root) else os.path.dirname(root) or ".")
    folder = os.path.normpath(os.path.dirname(path) or ".")
    for _ in range(folder.count(os.sep) + 2):  # one step per folder between the file and its PATH
        candidate = os.path.join(folder, FILENAME)
        if os.path.isfile(candidate) and not os.path.islink(candidate):
            return os.path.normpath(candidate)
        if folder == top or os.path.realpath(folder) == os.path.realpath(top):
            return None
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent or "."
    return None


def by_lock(result: Resolved, roots: Sequence[str], own: str, searched: Callable[[Obj], bool]) -> dict[str, set[str]]:
    """The InferenceServices (namespace/name) of ``result`` under the ``roots`` (not ``searched``), by the lock
    each renders with, for those whose lock is not the side's ``own``."""
    out: dict[str, set[str]] = {}
    given = [r for r in roots if r != "-"]
    by_folder: dict[str, str | None] = {}  # files of one folder have one nearest lock: one walk a folder
    for isvc in result.universe.isvcs.values():
        if searched(isvc) or isvc.path == "<stdin>":
            continue
        folder = os.path.dirname(isvc.path)
        if folder not in by_folder:
            by_folder[folder] = nearest_lock(isvc.path, given)
        found = by_folder[folder]
        if found is not None and os.path.realpath(found) != os.path.realpath(own):
            out.setdefault(found, set()).add(isvc_key(isvc))
    return out
