"""A model, runtime or parent the build misses because a kustomization does not list the file defining it: the
error names that file and the kustomization (issue 33), through ``omerender build``. Only regular files inside
the input folders are looked at: a symlinked file is never read for a hint."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

MODEL = """apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: {name}
spec:
  modelFormat: {{name: safetensors, version: "1.0.0"}}
  storage: {{storageUri: "hf://x/{name}", path: /models/{name}}}
"""
RUNTIME = """apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: {name}
spec:
  supportedModelFormats:
  - modelFormat: {{name: safetensors, version: "1.0.0"}}
    modelFramework: {{name: transformers, version: "4.45.0"}}
    autoSelect: false
  engineConfig:
    runner: {{name: ome-container, image: "x:1", command: [serve]}}
"""
CHILD = """apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: child
  annotations: {{ome.io/inherit-from: {parent}}}
spec: {{}}
"""
ISVC = """apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {{name: app, namespace: team}}
spec:
  model: {{name: {model}}}
  runtime: {{name: {runtime}}}
  engine: {{}}
"""


@pytest.fixture
def repo(write_tree, tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return write_tree(
        {
            "platform/models/kustomization.yaml": "resources: [listed.yaml]\n",
            "platform/models/listed.yaml": MODEL.format(name="listed"),
            "platform/models/vendor/left-out.yaml": MODEL.format(name="left-out"),
            "platform/runtimes/kustomization.yaml": "resources: [rt.yaml, srt]\n",
            "platform/runtimes/rt.yaml": RUNTIME.format(name="rt"),
            "platform/runtimes/srt/kustomization.yaml": "resources: [a.yaml]\n",
            "platform/runtimes/srt/a.yaml": RUNTIME.format(name="a"),
            "platform/runtimes/srt/b.yaml": RUNTIME.format(name="b"),
            "platform/runtimes/vllm/kustomization.yaml": "resources: [c.yaml]\n",
            "platform/runtimes/vllm/c.yaml": RUNTIME.format(name="c"),
        }
    )


def _build(run_cli, repo: Path, monkeypatch: pytest.MonkeyPatch, isvc: str):
    (repo / "apps").mkdir(exist_ok=True)
    (repo / "apps" / "app.yaml").write_text(isvc, encoding="utf-8")
    monkeypatch.chdir(repo)
    return run_cli("build", "apps", "--search-path", "platform")


def test_a_model_in_a_file_the_kustomization_does_not_list_is_named(run_cli, repo, monkeypatch) -> None:
    result = _build(run_cli, repo, monkeypatch, ISVC.format(model="left-out", runtime="rt"))
    assert result.exit_code == 1
    assert (
        "apps/app.yaml:5:17: error: [ModelReconcileError] referenced model 'left-out' not found in namespace 'team': "
        "ClusterBaseModel left-out is defined in platform/models/vendor/left-out.yaml:4 but "
        "platform/models/kustomization.yaml does not list it (resources:), so the build does not read it; add the "
        "file to that kustomization's resources\n"
    ) in result.stderr


def test_a_runtime_left_out_by_a_nested_kustomization_names_that_kustomization(run_cli, repo, monkeypatch) -> None:
    result = _build(run_cli, repo, monkeypatch, ISVC.format(model="listed", runtime="b"))
    assert result.exit_code == 1
    assert (
        "runtime b not found in namespace team or at cluster scope: ClusterServingRuntime b is defined in "
        "platform/runtimes/srt/b.yaml:4 but platform/runtimes/srt/kustomization.yaml does not list it"
    ) in result.stderr


def test_a_folder_the_kustomization_does_not_list_is_named_by_the_one_above(run_cli, repo, monkeypatch) -> None:
    # vllm/ has a kustomization listing c.yaml, but runtimes/kustomization.yaml does not list vllm
    result = _build(run_cli, repo, monkeypatch, ISVC.format(model="listed", runtime="c"))
    assert (
        "ClusterServingRuntime c is defined in platform/runtimes/vllm/c.yaml:4 but "
        "platform/runtimes/kustomization.yaml does not list it"
    ) in result.stderr


def test_a_parent_left_out_is_named(run_cli, repo, monkeypatch, write_tree) -> None:
    write_tree({"platform/runtimes/child.yaml": CHILD.format(parent="b")}, repo)
    (repo / "platform/runtimes/kustomization.yaml").write_text("resources: [rt.yaml, srt, child.yaml]\n")
    result = _build(run_cli, repo, monkeypatch, ISVC.format(model="listed", runtime="child"))
    assert result.exit_code == 1
    assert (
        'platform/runtimes/child.yaml:5:38: error: [ParentNotFound] inherit-from parent "b" not found (chain so '
        "far: [child]): ClusterServingRuntime b is defined in platform/runtimes/srt/b.yaml:4 but "
        "platform/runtimes/srt/kustomization.yaml does not list it (resources:)"
    ) in result.stderr


def test_a_name_no_file_defines_keeps_the_advice(run_cli, repo, monkeypatch) -> None:
    result = _build(run_cli, repo, monkeypatch, ISVC.format(model="nowhere", runtime="rt"))
    assert result.exit_code == 1
    assert "ensure a BaseModel exists in this namespace or a ClusterBaseModel exists" in result.stderr
    assert "does not list it" not in result.stderr


def test_a_symlinked_file_is_never_read_for_a_hint(run_cli, repo, monkeypatch, tmp_path_factory) -> None:
    outside = tmp_path_factory.mktemp("outside") / "secret.yaml"
    outside.write_text(MODEL.format(name="secret"), encoding="utf-8")
    os.symlink(outside, repo / "platform/models/vendor/secret.yaml")
    inside = repo / "platform/models/vendor/inside.yaml"
    os.symlink(repo / "platform/models/vendor/left-out.yaml", inside)
    os.remove(repo / "platform/models/vendor/left-out.yaml")
    os.symlink(inside, repo / "platform/models/vendor/left-out.yaml")  # a chain of links, inside the tree
    for name in ("secret", "left-out"):
        result = _build(run_cli, repo, monkeypatch, ISVC.format(model=name, runtime="rt"))
        assert result.exit_code == 1
        assert "does not list it" not in result.stderr
        assert "secret.yaml" not in result.stderr and "inside.yaml" not in result.stderr


def test_a_namespaced_model_in_another_namespace_is_not_offered(run_cli, repo, monkeypatch, write_tree) -> None:
    model = MODEL.format(name="ns-model").replace("ClusterBaseModel", "BaseModel")
    model = model.replace("  name: ns-model\n", "  name: ns-model\n  namespace: elsewhere\n")
    write_tree({"platform/models/vendor/ns-model.yaml": model}, repo)
    result = _build(run_cli, repo, monkeypatch, ISVC.format(model="ns-model", runtime="rt"))
    assert result.exit_code == 1
    assert "does not list it" not in result.stderr


def test_nothing_is_offered_below_a_kustomization_that_leads_out(run_cli, repo, monkeypatch, tmp_path_factory) -> None:
    outside = tmp_path_factory.mktemp("outside") / "kustomization.yaml"
    outside.write_text("resources: [listed.yaml]\n", encoding="utf-8")
    kustomization = repo / "platform/models/kustomization.yaml"
    kustomization.unlink()
    kustomization.symlink_to(outside)
    result = _build(run_cli, repo, monkeypatch, ISVC.format(model="left-out", runtime="rt"))
    assert result.exit_code == 1
    assert "leads out of the repository" in result.stderr
    assert "does not list it" not in result.stderr


def test_the_look_is_bounded(repo, monkeypatch) -> None:
    from omerender.load import unlisted
    from omerender.load.bounded import Budget

    monkeypatch.chdir(repo)
    for n in range(30):
        (repo / f"platform/models/vendor/m{n:02}.yaml").write_text(MODEL.format(name=f"m{n:02}"), encoding="utf-8")
    everything = unlisted.unlisted_files(["platform"])
    assert len(everything) == 33  # 31 models, srt/b.yaml, and vllm/c.yaml (its folder is not listed)
    monkeypatch.setattr(unlisted, "MAX_ENTRIES", 10)
    assert len(unlisted.unlisted_files(["platform"])) < 10
    monkeypatch.setattr(unlisted, "MAX_ENTRIES", 50_000)
    found = unlisted.unlisted_objects(["platform"], Budget(), "default")
    assert len(found) == 33
    spent = Budget(max_total_bytes=len(MODEL) * 5)
    few = unlisted.unlisted_objects(["platform"], spent, "default")
    assert 0 < len(few) <= 5  # the run's bytes left: once spent, nothing more is read
    monkeypatch.setattr(unlisted, "MAX_FILES", 3)
    assert len(unlisted.unlisted_objects(["platform"], Budget(), "default")) == 3


def test_a_name_defined_in_two_left_out_files_names_the_first_in_path_order(run_cli, repo, monkeypatch) -> None:
    for folder in ("zz", "aa", "mm"):
        (repo / f"platform/models/{folder}").mkdir()
        (repo / f"platform/models/{folder}/dup.yaml").write_text(MODEL.format(name="dup"), encoding="utf-8")
    result = _build(run_cli, repo, monkeypatch, ISVC.format(model="dup", runtime="rt"))
    assert "ClusterBaseModel dup is defined in platform/models/aa/dup.yaml:4 but" in result.stderr
