"""Diagnostic paths as CI systems place them: relative to the repository root, with forward slashes.

GitLab's Code Quality report wants ``location.path`` relative to the repository, GitHub's annotations and
code scanning resolve paths against the checkout, and a path is typed relative to wherever omerender ran
(``cd apps && omerender build team-a`` reports ``team-a/x.yaml``). ``RepoRoot`` holds the two folders (the
CLI finds them); the mapping here is lexical (``posixpath``), so it reads nothing and gives the same answer
for the same input on every machine.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass


@dataclass(frozen=True)
class RepoRoot:
    """The folder omerender ran in (absolute) and the repository root holding it (absolute; that folder when
    it is in no repository)."""

    cwd: str
    root: str

    def absolute(self, path: str) -> str:
        """``path`` as typed, made absolute from ``cwd`` and normalised, with forward slashes."""
        return posixpath.normpath(posixpath.join(self.cwd, path.replace("\\", "/")))

    def relative(self, path: str) -> str | None:
        """``path`` relative to the root (``apps/team-a/x.yaml``), or None when it is outside the root or not a
        file at all (``<stdin>``)."""
        if is_pseudo(path):
            return None
        full = self.absolute(path)
        if full == self.root:
            return "."
        prefix = self.root.rstrip("/") + "/"
        return full[len(prefix) :] if full.startswith(prefix) else None


def is_pseudo(path: str) -> bool:
    """A name that stands for no file: ``<stdin>`` (and the empty path)."""
    return not path or (path.startswith("<") and path.endswith(">"))


def plain(path: str) -> str:
    """``path`` with forward slashes and no leading ``./`` (what a report without a RepoRoot shows)."""
    posix = path.replace("\\", "/")
    while posix.startswith("./"):
        posix = posix[2:]
    return posix
