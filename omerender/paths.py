"""Whether a path lies inside a folder: the one test that every read and write boundary relies on.

Paths are compared after every symlink is resolved (``os.path.realpath``), so ``a/../b``, a trailing
separator or a link out of the folder cannot pass for a path inside it. Components are compared as
the filesystem spells them: on a case-sensitive filesystem ``/In/x`` is not inside ``/in``.
"""

from __future__ import annotations

import os


def is_within(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or lies below it; both already resolved (absolute, normalised; else
    ``resolves_within``)."""
    if path == root:
        return True
    top = root.rstrip(os.sep) + os.sep  # "/" stays "/"; "/in/" and "/in" mean the same folder
    return path.startswith(top)


def resolves_within(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or lies below it, with every symlink of both resolved first."""
    return is_within(os.path.realpath(path), os.path.realpath(root))


def holder(path: str, roots: list[str]) -> str | None:
    """The first of ``roots`` that ``path`` is inside (both resolved), else None."""
    real = os.path.realpath(path)
    return next((root for root in roots if is_within(real, os.path.realpath(root))), None)


def repository_of(folder: str) -> str:
    """The repository holding ``folder``: the nearest folder at or above it holding ``.git``, else ``folder``
    itself (absolute, as written: symlinks on the way are not resolved, so a link out stays visible)."""
    here = os.path.abspath(folder)
    probe = here
    while not os.path.lexists(os.path.join(probe, ".git")):
        parent = os.path.dirname(probe)
        if parent == probe:
            return here
        probe = parent
    return probe


def symlink_below(path: str, root: str) -> str | None:
    """The first folder or file on the way from ``root`` down to ``path`` (both absolute, normalised, ``path``
    inside ``root`` as written) that is a symlink, as a path relative to ``root``; None when there is none."""
    rest = os.path.relpath(path, root)
    if rest == os.curdir:
        return None
    probe = root
    for part in rest.split(os.sep):
        probe = os.path.join(probe, part)
        if os.path.islink(probe):
            return os.path.relpath(probe, root)
    return None
