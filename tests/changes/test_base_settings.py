"""``changes.base_settings``: the GIT_REF side of ``diff --against`` reads its own settings file at GIT_REF, under
what the command line and the environment give; the paths its settings name are read at GIT_REF."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from omerender.changes.base_settings import base_settings
from omerender.changes.gitref import Checkout
from omerender.settings import Origin, Settings

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(root: Path, *args: str) -> None:
    env = ["-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(["git", *env, "-C", str(root), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    for folder in ("apps", "old-platform", "platform"):
        (root / folder).mkdir(parents=True)
        (root / folder / "x.yaml").write_text("a: 1\n")
    (root / ".omerender.yaml").write_text("search-path: [old-platform]\nnamespace: base-ns\n")
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    (root / ".omerender.yaml").write_text("search-path: [platform]\n")
    monkeypatch.chdir(root)
    return root


def test_the_ref_side_reads_its_own_settings_file(repo: Path, tmp_path: Path) -> None:
    head = Settings(search_path=("platform",), config=".omerender.yaml", origins={"search-path": Origin.FILE})
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    base = base_settings(head, Checkout("apps", "main", str(scratch)), "apps")
    assert base.problems == []
    assert base.settings.search_path == (str(scratch / "old-platform"),)
    assert (scratch / "old-platform" / "x.yaml").is_file(), "read at the ref"
    assert base.settings.namespace == "base-ns" and base.settings.config == str(scratch / ".omerender.yaml")


def test_the_command_line_holds_on_both_sides(repo: Path, tmp_path: Path) -> None:
    head = Settings(
        search_path=("platform",),
        namespace="cli-ns",
        config=".omerender.yaml",
        origins={"search-path": Origin.CLI, "namespace": Origin.ENV},
    )
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    base = base_settings(head, Checkout("apps", "main", str(scratch)), "apps")
    assert base.settings.search_path == (str(scratch / "platform"),), "the command line's path, at the ref"
    assert base.settings.namespace == "cli-ns"


def test_a_settings_file_the_ref_lacks_leaves_its_values_out(repo: Path, tmp_path: Path) -> None:
    (repo / "apps" / ".omerender.yaml").write_text("namespace: new-ns\n")  # only in the working tree
    head = Settings(namespace="new-ns", config="apps/.omerender.yaml", origins={"namespace": Origin.FILE})
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    base = base_settings(head, Checkout("apps", "main", str(scratch)), "apps")
    assert (base.settings.namespace, base.settings.config) == ("default", None)
