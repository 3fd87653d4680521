"""The same input paths at another git revision, written into a scratch directory (for ``diff --against``)."""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
from pathlib import Path

from omerender.constants import STDIN
from omerender.errors import UsageError
from omerender.paths import is_within, resolves_within


class GitError(UsageError):
    """A git ref or path that cannot be read (``diff --against``)."""


def _git(cwd: str, *args: str) -> bytes:
    try:
        done = subprocess.run(["git", "-C", cwd, *args], capture_output=True, check=False)
    except OSError as exc:
        raise GitError(f"cannot run git: {exc.strerror}") from exc
    if done.returncode != 0:
        raise GitError(done.stderr.decode("utf-8", "replace").strip() or f"git {' '.join(args)} failed")
    return done.stdout


def _exists(top: str, ref: str, rel: str) -> bool:
    try:
        _git(top, "cat-file", "-e", f"{ref}:{'' if rel == '.' else rel}")
    except GitError:
        return False
    return True


class Checkout:
    """The repository holding the first of the diff's PATHS as it is at ``ref``, extracted on demand under ``dest``
    (which mirrors the work tree: ``dest/REL`` is ``REL`` at ``ref``). Only paths inside the work tree are read
    from git; nothing is written outside ``dest``."""

    def __init__(self, first: str, ref: str, dest: str) -> None:
        start = Path(first).resolve()
        self.top = _git(str(start if start.is_dir() else start.parent), "rev-parse", "--show-toplevel").decode().strip()
        self.commit = _git(self.top, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").decode().strip()
        self.dest = dest
        self._done: list[str] = []  # the paths extracted (relative to the top), each once

    def relative(self, given: str, scratch: bool = False) -> str | None:
        """``given`` relative to the top: a working-tree path, or with ``scratch`` one named under ``dest`` (the
        GIT_REF side's settings file names such paths); None when it is outside."""
        if scratch:
            lexical = os.path.normpath(os.path.abspath(given))
            inside = is_within(lexical, os.path.abspath(self.dest))
            return os.path.relpath(lexical, os.path.abspath(self.dest)) if inside else None
        if not resolves_within(given, self.top):
            return None
        return os.path.relpath(Path(given).resolve(), self.top)

    def exists(self, rel: str) -> bool:
        """Whether ``rel`` (relative to the top) exists at ``ref``."""
        return _exists(self.top, self.commit, rel)

    def path(self, given: str, folder: bool = True, scratch: bool = False) -> str:
        """Where ``given`` (``relative``) is at ``ref`` under ``dest``, extracted (once). Absent at ``ref``: an empty
        folder when ``folder`` (a tree added since), else nothing there. Raises ``GitError`` for a path outside the
        work tree."""
        rel = self.relative(given, scratch)
        if rel is None:
            raise GitError(f"{given} is outside the git work tree {self.top}")
        target = Path(self.dest) / rel
        if any(done in (rel, ".") or rel.startswith(done + os.sep) for done in self._done):
            return str(target)
        if not self.exists(rel):
            if folder:
                target.mkdir(parents=True, exist_ok=True)
            return str(target)
        data = _git(self.top, "archive", "--format=tar", self.commit, "--", rel)
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            archive.extractall(self.dest, filter="data")
        self._done.append(rel)
        return str(target)


def paths_at(paths: list[str], ref: str, dest: str) -> list[str]:
    """Extract each of ``paths`` as it is at ``ref`` under ``dest``; return the extracted paths.

    A path that does not exist at ``ref`` becomes an empty directory (a tree added since then).
    """
    local = [p for p in paths if p != STDIN]
    if not local:
        raise GitError("--against needs paths inside a git work tree, not stdin")
    checkout = Checkout(local[0], ref, dest)
    return [checkout.path(given) for given in local]
