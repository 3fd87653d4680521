"""``changes.locks.nearest_lock``: the lock a build of an InferenceService's app reads, found up to its PATH."""

from __future__ import annotations

from pathlib import Path

import pytest

from omerender.changes.locks import nearest_lock


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for folder in ("apps/team-a/deep", "apps/team-b"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "apps" / "team-a" / "omerender.lock").write_text("")
    (tmp_path / "omerender.lock").write_text("")  # above every PATH: never an app's
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_nearest_lock_above_the_file_up_to_its_path(tree: Path) -> None:
    assert nearest_lock("apps/team-a/deep/isvc.yaml", ["apps"]) == "apps/team-a/omerender.lock"
    assert nearest_lock("apps/team-a/isvc.yaml", ["apps", "platform"]) == "apps/team-a/omerender.lock"


def test_none_under_the_path_is_none_even_with_one_above_it(tree: Path) -> None:
    assert nearest_lock("apps/team-b/isvc.yaml", ["apps"]) is None
    assert nearest_lock("apps/team-b/isvc.yaml", ["platform"]) is None  # under no PATH


def test_a_symlinked_lock_is_not_an_apps_lock(tree: Path) -> None:
    (tree / "apps" / "team-b" / "omerender.lock").symlink_to(tree / "omerender.lock")
    assert nearest_lock("apps/team-b/isvc.yaml", ["apps"]) is None


def test_a_path_that_is_the_folder_itself(tree: Path) -> None:
    assert nearest_lock("apps/team-a/isvc.yaml", ["apps/team-a"]) == "apps/team-a/omerender.lock"
    assert nearest_lock(str(tree / "apps/team-a/isvc.yaml"), [str(tree / "apps")]) == str(
        tree / "apps/team-a/omerender.lock"
    )
