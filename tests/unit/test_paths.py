"""The containment tests every read and write boundary relies on: omerender.paths, and a planned output file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from omerender.output.paths import lands_inside
from omerender.paths import holder, is_within, resolves_within


@pytest.mark.parametrize(
    ("path", "root", "expected"),
    [
        ("/in", "/in", True),
        ("/in/a.yaml", "/in", True),
        ("/in/deep/a.yaml", "/in", True),
        ("/in/", "/in", True),  # a trailing separator names the same folder
        ("/in/a", "/in/", True),  # a root with a trailing separator is the same folder
        ("/inside/a", "/in", False),  # a shared prefix is not a parent
        ("/in2", "/in", False),
        ("/", "/in", False),
        ("/in/a", "/", True),  # everything is inside the root folder
        ("/IN/a", "/in", False),  # compared as spelled: case-sensitive filesystems tell them apart
        ("/in/a", "/IN", False),
    ],
)
def test_is_within_compares_resolved_paths_component_by_component(path: str, root: str, expected: bool) -> None:
    assert is_within(path, root) is expected


def test_dot_dot_is_resolved_before_comparing(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "out").mkdir()
    assert not resolves_within(str(tmp_path / "in" / ".." / "out" / "x.yaml"), str(tmp_path / "in"))
    assert resolves_within(str(tmp_path / "in" / "sub" / ".." / "x.yaml"), str(tmp_path / "in"))
    assert resolves_within(str(tmp_path / "in"), str(tmp_path / "in" / "."))


def test_relative_and_absolute_spellings_of_one_folder_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "in").mkdir()
    monkeypatch.chdir(tmp_path)
    assert resolves_within("in/x.yaml", str(tmp_path / "in"))
    assert resolves_within(str(tmp_path / "in" / "x.yaml"), "in/")
    assert not resolves_within("x.yaml", "in")


def test_a_symlink_is_judged_by_where_it_points(tmp_path: Path) -> None:
    root, outside = tmp_path / "in", tmp_path / "out"
    root.mkdir()
    outside.mkdir()
    (root / "escape").symlink_to(outside)
    (root / "loop").symlink_to(root / "sub")
    (root / "sub").mkdir()
    assert not resolves_within(str(root / "escape" / "x.yaml"), str(root))
    assert resolves_within(str(root / "loop" / "x.yaml"), str(root))
    os.symlink(root, tmp_path / "alias")  # a root given through a link is the folder it names
    assert resolves_within(str(root / "x.yaml"), str(tmp_path / "alias"))
    assert resolves_within(str(tmp_path / "alias" / "x.yaml"), str(root))


def test_holder_names_the_first_root_holding_the_path(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    roots = [str(tmp_path / "z"), str(tmp_path / "a"), str(tmp_path / "a" / "b")]
    assert holder(str(tmp_path / "a" / "b" / "x"), roots) == roots[1]
    assert holder(str(tmp_path / "c"), roots) is None


def test_a_planned_file_lands_inside_only_as_a_plain_relative_path(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "link").symlink_to(tmp_path)
    assert lands_inside(str(tmp_path / "out"), "ns/x.yaml")
    for rel in ("", "/etc/x.yaml", "ns/../x.yaml", "./x.yaml", "ns//x.yaml", "link/x.yaml"):
        assert not lands_inside(str(tmp_path / "out"), rel), rel
