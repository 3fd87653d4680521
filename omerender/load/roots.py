"""Which input root an object was read from: a PATH, or only a search path (which resolves parents and models
and is not the command's own)."""

from __future__ import annotations

import os
from collections.abc import Callable

from omerender.constants import STDIN
from omerender.load.obj import Obj
from omerender.paths import is_within


def under(roots: list[str]) -> Callable[[Obj], bool]:
    """A predicate: the object was read from a file below one of ``roots``."""
    if not roots:
        return lambda obj: False  # no roots: no realpath (a few lstat calls) for each object
    real = [os.path.realpath(r) for r in roots]

    def read_under(obj: Obj) -> bool:
        where = os.path.realpath(obj.path)
        return any(is_within(where, r) for r in real)

    return read_under


def only_searched(search_paths: list[str], paths: list[str]) -> Callable[[Obj], bool]:
    """A predicate: the object was read from a search path and from no PATH (a PATH named on its own wins: an
    application at platform/profiles emits its profiles even when .omerender.yaml searches that folder)."""
    searched, given = under(search_paths), under([p for p in paths if p != STDIN])
    return lambda obj: searched(obj) and not given(obj)
