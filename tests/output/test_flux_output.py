"""Flux: --output-dir with --kustomization builds with the real kustomize; ${…} is flagged or protected."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from gitops_helpers import FIXTURE, by_identity, need, objects, omerender, run

SUBSTITUTE = "kustomize.toolkit.fluxcd.io/substitute"


def test_kubectl_kustomize_builds_the_rendered_folder(tmp_path: Path, reference_build: list[dict[str, Any]]) -> None:
    kubectl = need("kubectl")
    out = tmp_path / "rendered"
    proc = omerender("build", str(FIXTURE), "--output-dir", str(out), "--kustomization")
    assert proc.code == 0, proc
    listing = yaml.safe_load((out / "kustomization.yaml").read_text(encoding="utf-8"))
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.yaml") if p.name != "kustomization.yaml")
    assert listing["kind"] == "Kustomization" and listing["resources"] == written
    built = run([kubectl, "kustomize", str(out)])
    assert built.code == 0, built
    assert by_identity(objects(built.out)) == by_identity(reference_build)


def _with_substitution(tree: Path) -> None:
    runtime = tree / "runtime.yaml"
    text = runtime.read_text(encoding="utf-8").replace("- --mem-frac=0.9", "- --mem-frac=${MEM_FRACTION}")
    assert "${MEM_FRACTION}" in text
    runtime.write_text(text, encoding="utf-8")


def test_substitution_is_warned_at_the_runtime_that_holds_it(tree: Path, tmp_path: Path) -> None:
    _with_substitution(tree)
    proc = omerender("build", str(tree), "--output-dir", str(tmp_path / "out"), "--kustomization")
    assert proc.code == 0, proc
    line = next(
        n
        for n, text in enumerate((tree / "runtime.yaml").read_text(encoding="utf-8").splitlines(), 1)
        if "${MEM_FRACTION}" in text
    )
    assert re.search(
        rf"runtime\.yaml:{line}:\d+: warning: \[flux-substitution\] Deployment llama-3-2-3b-instruct-engine contains "
        r"\$\{MEM_FRACTION\}",
        proc.err,
    ), proc.err
    assert "--flux-substitute-disabled" in proc.err


def test_substitution_is_only_a_note_without_flux_output(tree: Path) -> None:
    _with_substitution(tree)
    quiet = omerender("build", str(tree))
    assert quiet.code == 0 and "MEM_FRACTION" not in quiet.err, quiet
    noted = omerender("build", str(tree), "-v")
    assert "info: [flux-substitution] Deployment llama-3-2-3b-instruct-engine contains ${MEM_FRACTION}" in noted.err, (
        noted
    )


def test_flux_substitute_disabled_annotates_instead_of_warning(tree: Path, tmp_path: Path) -> None:
    kubectl = need("kubectl")
    _with_substitution(tree)
    out = tmp_path / "out"
    proc = omerender(
        "build",
        str(tree),
        "--output-dir",
        str(out),
        "--kustomization",
        "--flux-substitute-disabled",
        "--emit",
        "inputs",
        "--emit",
        "rendered",
    )
    assert proc.code == 0, proc
    assert "MEM_FRACTION" not in proc.err
    built = run([kubectl, "kustomize", str(out)])
    assert built.code == 0, built
    docs = objects(built.out)
    assert docs and all(d["metadata"]["annotations"][SUBSTITUTE] == "disabled" for d in docs)
    assert "${MEM_FRACTION}" in built.out


def test_check_and_fail_on_change(tmp_path: Path) -> None:
    out = tmp_path / "rendered"
    first = omerender("build", str(FIXTURE), "--output-dir", str(out), "--kustomization", "--fail-on-change")
    assert first.code == 1 and "was regenerated" in first.err, first
    assert (out / "kustomization.yaml").is_file()
    again = omerender("build", str(FIXTURE), "--output-dir", str(out), "--kustomization", "--fail-on-change")
    assert again.code == 0, again
    assert omerender("build", str(FIXTURE), "--output-dir", str(out), "--kustomization", "--check").code == 0
    stale = next(out.rglob("deployment-*.yaml"))
    stale.write_text(stale.read_text(encoding="utf-8").replace("mem-frac=0.9", "mem-frac=0.5"), encoding="utf-8")
    check = omerender("build", str(FIXTURE), "--output-dir", str(out), "--kustomization", "--check")
    assert check.code == 1 and stale.relative_to(out).as_posix() in check.err, check
    assert "mem-frac=0.5" in stale.read_text(encoding="utf-8")  # --check writes nothing
    assert omerender("build", str(FIXTURE), "--check").out == ""


def test_the_flux_readme_recipe_works(tmp_path: Path, reference_build: list[dict[str, Any]]) -> None:
    """The README's YAML parses, and its render step, run on the example, builds with kustomize."""
    kubectl = need("kubectl")
    readme = (FIXTURE.parents[1] / "integrations" / "flux" / "README.md").read_text(encoding="utf-8")
    blocks = [yaml.safe_load_all(b) for b in re.findall(r"```yaml\n(.*?)```", readme, flags=re.DOTALL)]
    documents = [d for block in blocks for d in block if d is not None]
    workflow = next(d for d in documents if "jobs" in d)
    step = next(s for s in workflow["jobs"]["publish"]["steps"] if s.get("name") == "Render")
    argv = step["run"].split()
    assert argv[:3] == ["omerender", "build", "deploy/manifests"] and "--kustomization" in argv
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "manifests").symlink_to(FIXTURE, target_is_directory=True)
    proc = omerender(*argv[1:], cwd=tmp_path)
    assert proc.code == 0, proc
    built = run([kubectl, "kustomize", str(tmp_path / "out")])
    assert built.code == 0, built
    kinds = {d["kind"] for d in objects(built.out)}
    assert "InferenceService" in kinds and "Deployment" not in kinds
    assert {d.get("kind") for d in documents} >= {"OCIRepository", "Kustomization"}
