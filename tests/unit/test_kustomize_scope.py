"""kustomize-build's check of what `kustomize build` would read: every path a kustomization names, through the
folders it lists, lies in the repository; located at the entry."""

from __future__ import annotations

from pathlib import Path

from omerender.gitops.kustomize_scope import MAX_KUSTOMIZATIONS, refusals


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _said(folder: Path, root: Path) -> list[tuple[str, int, int, str]]:
    return [(Path(d.path).name, d.line, d.col, d.message) for d in refusals(str(folder), str(root))]


def test_a_tree_inside_the_repository_passes(tmp_path: Path) -> None:
    _write(tmp_path / "base" / "kustomization.yaml", "resources: [a.yaml]\n")
    _write(tmp_path / "base" / "a.yaml", "kind: ConfigMap\n")
    _write(tmp_path / "app" / "kustomization.yaml", "resources: [../base]\npatches: [{path: p.yaml}]\n")
    _write(tmp_path / "app" / "p.yaml", "kind: ConfigMap\n")
    assert refusals(str(tmp_path / "app"), str(tmp_path)) == []


def test_each_refusal_is_located_at_its_entry_also_below_a_listed_folder(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _write(root / "base" / "kustomization.yaml", "resources:\n  - a.yaml\n  - ../../outside\n")
    _write(root / "base" / "a.yaml", "kind: ConfigMap\n")
    (tmp_path / "outside").mkdir()
    _write(root / "app" / "kustomization.yaml", "resources: [../base]\nhelmCharts: [{name: x}]\n")
    said = _said(root / "app", root)
    assert [(name, line, col) for name, line, col, _ in said] == [
        ("kustomization.yaml", 2, 13),
        ("kustomization.yaml", 3, 5),
    ]
    assert "needs helm" in said[0][3] and "leads out of the repository" in said[1][3]


def test_no_kustomization_and_a_cycle(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert "holds no kustomization.yaml" in _said(tmp_path / "empty", tmp_path)[0][3]
    _write(tmp_path / "a" / "kustomization.yaml", "resources: [../b]\n")
    _write(tmp_path / "b" / "kustomization.yaml", "resources: [../a]\n")
    assert refusals(str(tmp_path / "a"), str(tmp_path)) == []  # kustomize reports the cycle; nothing leaves


def test_the_walk_is_bounded(tmp_path: Path) -> None:
    count = MAX_KUSTOMIZATIONS + 5
    _write(
        tmp_path / "app" / "kustomization.yaml", "resources: [" + ", ".join(f"../k{n}" for n in range(count)) + "]\n"
    )
    for n in range(count):
        _write(tmp_path / f"k{n}" / "kustomization.yaml", "resources: []\n")
    said = _said(tmp_path / "app", tmp_path)
    assert said and all(f"{MAX_KUSTOMIZATIONS} kustomizations" in message for *_, message in said)
