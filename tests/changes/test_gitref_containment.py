"""``diff --against``: a path outside the git work tree (a sibling sharing its name as a prefix too) is refused;
a path inside is extracted."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from omerender.changes.gitref import GitError, paths_at

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _repo(path: Path) -> Path:
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    (path / "a.yaml").write_text("x: 1\n")
    env = ["-c", "user.email=t@example.org", "-c", "user.name=t"]
    subprocess.run(["git", "-C", str(path), "add", "."], check=True)
    subprocess.run(["git", *env, "-C", str(path), "commit", "-qm", "one"], check=True)
    return path


def test_a_path_in_the_work_tree_is_extracted(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    dest = tmp_path / "out"
    dest.mkdir()
    assert paths_at([str(repo / "a.yaml")], "HEAD", str(dest)) == [str(dest / "a.yaml")]
    assert (dest / "a.yaml").read_text() == "x: 1\n"


def test_a_sibling_named_like_the_work_tree_is_outside(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    (tmp_path / "repo2").mkdir()
    (tmp_path / "repo2" / "b.yaml").write_text("y: 2\n")
    with pytest.raises(GitError, match="is outside the git work tree"):
        paths_at([str(repo / "a.yaml"), str(tmp_path / "repo2" / "b.yaml")], "HEAD", str(tmp_path))
