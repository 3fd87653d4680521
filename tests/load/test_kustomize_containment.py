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
