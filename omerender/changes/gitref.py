"""The same input paths at another git revision, written into a scratch directory (for ``diff --against``)."""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
from pathlib import Path

from omerender.constants import STDIN
from omerender.errors import UsageError
from omerender.paths import resolves_within


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


def paths_at(paths: list[str], ref: str, dest: str) -> list[str]:
    """Extract each of ``paths`` as it is at ``ref`` under ``dest``; return the extracted paths.

    A path that does not exist at ``ref`` becomes an empty directory (a tree added since then).
    """
    local = [p for p in paths if p != STDIN]
    if not local:
        raise GitError("--against needs paths inside a git work tree, not stdin")
    first = Path(local[0]).resolve()
    top = _git(str(first if first.is_dir() else first.parent), "rev-parse", "--show-toplevel").decode().strip()
    commit = _git(top, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").decode().strip()
    out: list[str] = []
    for given in local:
        if not resolves_within(given, top):
            raise GitError(f"{given} is outside the git work tree {top}")
        rel = os.path.relpath(Path(given).resolve(), top)
        target = Path(dest) / rel
        if not _exists(top, commit, rel):
            target.mkdir(parents=True, exist_ok=True)
        else:
            data = _git(top, "archive", "--format=tar", commit, "--", rel)
            with tarfile.open(fileobj=io.BytesIO(data)) as archive:
                archive.extractall(dest, filter="data")
        out.append(str(target))
    return out
