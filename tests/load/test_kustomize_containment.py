"""A kustomization may list only what lies inside the input roots: a sibling with the root's name as a prefix,
a ``..`` climb or a symlink out are refused; the root itself and what lies below it are read."""

from __future__ import annotations

import os
from pathlib import Path

from omerender.load.kustomize import Expansion, expand

DOC = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"


def _expand(root: Path, resources: list[str]) -> Expansion:
    (root / "kustomization.yaml").write_text("resources:\n" + "".join(f"  - {r}\n" for r in resources))
    out = Expansion()
    expand(root / "kustomization.yaml", [Path(os.path.realpath(root))], out)
    return out


def test_a_resource_below_the_root_is_read(tmp_path: Path) -> None:
    root = tmp_path / "in"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.yaml").write_text(DOC)
    out = _expand(root, ["sub/a.yaml"])
    assert (out.files, out.problems) == ([(root / "sub" / "a.yaml").as_posix()], [])


def test_a_sibling_sharing_the_root_name_as_prefix_is_outside(tmp_path: Path) -> None:
    root = tmp_path / "in"
    root.mkdir()
    (tmp_path / "in-other").mkdir()
    (tmp_path / "in-other" / "a.yaml").write_text(DOC)
    out = _expand(root, ["../in-other/a.yaml"])
    assert out.files == []
    assert [p.message for p in out.problems] == [
        "resource '../in-other/a.yaml' lies outside the input paths: give its folder, with a kustomization of its "
        "own, as a PATH or --search-path (kustomize reads a listed file only in or below the listing kustomization's "
        "folder)"
    ]


def test_a_symlink_out_of_the_root_is_outside(tmp_path: Path) -> None:
    root = tmp_path / "in"
    root.mkdir()
    (tmp_path / "a.yaml").write_text(DOC)
    (root / "link.yaml").symlink_to(tmp_path / "a.yaml")
    out = _expand(root, ["link.yaml"])
    assert out.files == [] and len(out.problems) == 1 and "lies outside the input paths" in out.problems[0].message


def test_a_kustomization_in_another_input_root_is_read_outside_any_repository(tmp_path: Path) -> None:
    # no .git: each PATH is its own repository, and a folder the user named (diff's extracted sides, say) is theirs
    apps, platform = tmp_path / "apps", tmp_path / "platform"
    platform.mkdir()
    (platform / "a.yaml").write_text(DOC)
    (platform / "kustomization.yaml").write_text("resources: [a.yaml]\n")
    apps.mkdir()
    (apps / "kustomization.yaml").write_text("resources: [../platform]\n")
    out = Expansion()
    expand(apps / "kustomization.yaml", [Path(os.path.realpath(apps)), Path(os.path.realpath(platform))], out)
    assert out.files == [(platform / "a.yaml").as_posix()] and out.problems == []


def test_a_kustomization_linked_out_of_the_repository_and_the_inputs_is_refused_unread(tmp_path: Path) -> None:
    repo, other = tmp_path / "repo", tmp_path / "other"
    (repo / ".git").mkdir(parents=True)
    (repo / "app").mkdir()
    other.mkdir()
    (other / "kustomization.yaml").write_text("SECRET_KEY: x\nresources: [../repo/app/a.yaml]\n")
    (repo / "app" / "kustomization.yaml").symlink_to(other / "kustomization.yaml")
    out = Expansion()
    expand(repo / "app" / "kustomization.yaml", [Path(os.path.realpath(repo / "app"))], out)
    assert out.files == [] and [(p.line, p.col, p.message) for p in out.problems] == [
        (1, 1, "the kustomization file leads out of the repository (a symlink); not read")
    ]
