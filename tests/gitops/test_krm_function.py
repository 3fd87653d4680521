"""`omerender krm`: the KRM function under the real kpt and kustomize, and the ResourceList contract."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from gitops_helpers import (
    FIXTURE,
    REPO,
    by_identity,
    env_with_omerender,
    need,
    objects,
    omerender,
    run,
    without_tool_annotations,
)

from omerender.gitops.krm import KrmError, ResourceList, parse_config, process

PLUGIN_HOME = REPO / "integrations" / "kustomize" / "plugin"
OME_KINDS = {"ClusterServingRuntime", "ServingRuntime", "InferenceService", "BaseModel", "ClusterBaseModel"}


def _rendered(docs: list[dict[str, Any]]) -> dict[tuple[str, str, str, str], dict[str, Any]]:
    return by_identity([without_tool_annotations(d) for d in docs if d["kind"] not in OME_KINDS])


def _package(tmp_path: Path) -> Path:
    pkg = tmp_path / "pkg"
    shutil.copytree(FIXTURE, pkg)
    return pkg


def _resource_list(pkg: Path) -> dict[str, Any]:
    items = []
    for path in sorted(pkg.glob("*.yaml")):
        for index, doc in enumerate(d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d is not None):
            doc.setdefault("metadata", {}).setdefault("annotations", {}).update(
                {"internal.config.kubernetes.io/path": path.name, "internal.config.kubernetes.io/index": str(index)}
            )
            items.append(doc)
    return {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": items}


def test_kpt_fn_eval_exec_gives_the_build_objects(tmp_path: Path, reference_build: list[dict[str, Any]]) -> None:
    kpt = need("kpt")
    pkg = _package(tmp_path)
    proc = run([kpt, "fn", "eval", str(pkg), "--exec", "omerender krm", "-o", "unwrap"])
    assert proc.code == 0, proc
    docs = objects(proc.out)
    assert _rendered(docs) == _rendered(reference_build)
    assert {d["kind"] for d in docs} >= OME_KINDS - {"BaseModel"}  # the package is kept


def test_kpt_fn_eval_in_place_writes_rendered_files_and_keeps_the_package(
    tmp_path: Path, reference_build: list[dict[str, Any]]
) -> None:
    kpt = need("kpt")
    pkg = _package(tmp_path)
    before = {p.name: objects(p.read_text(encoding="utf-8")) for p in pkg.glob("*.yaml")}
    proc = run([kpt, "fn", "eval", str(pkg), "--exec", "omerender krm"])
    assert proc.code == 0, proc
    assert {p.name: objects(p.read_text(encoding="utf-8")) for p in pkg.glob("*.yaml")} == before  # kpt may requote
    written = [
        doc for path in sorted((pkg / "rendered").rglob("*.yaml")) for doc in objects(path.read_text(encoding="utf-8"))
    ]
    assert _rendered(written) == _rendered(reference_build)


def test_kpt_results_locate_a_broken_chain(tmp_path: Path) -> None:
    kpt = need("kpt")
    pkg = _package(tmp_path)
    runtime = pkg / "runtime.yaml"
    runtime.write_text(
        runtime.read_text(encoding="utf-8").replace("inherit-from: sglang-profile", "inherit-from: sglang-base"),
        encoding="utf-8",
    )
    proc = run([kpt, "fn", "eval", str(pkg), "--exec", "omerender krm", "--results-dir", str(tmp_path / "results")])
    assert proc.code != 0, proc
    listing = yaml.safe_load((tmp_path / "results" / "results.yaml").read_text(encoding="utf-8"))
    results = listing["items"][0]["results"]
    chain = next(r for r in results if r.get("tags", {}).get("code") == "ParentNotFound")
    assert chain["message"] == 'inherit-from parent "sglang-base" not found (chain so far: [sglang-llama-3-2-3b])'
    assert chain["severity"] == "error"
    assert chain["file"]["path"] == "runtime.yaml"
    assert chain["field"]["path"] == "metadata.annotations['ome.io/inherit-from']"
    assert chain["resourceRef"] == {
        "apiVersion": "ome.io/v1beta1",
        "kind": "ServingRuntime",
        "name": "sglang-llama-3-2-3b",
        "namespace": "llama-demo",
    }
    assert not (pkg / "rendered").exists()


def test_resource_list_contract_preserves_path_and_index(tmp_path: Path) -> None:
    listing = _resource_list(_package(tmp_path))
    proc = omerender("krm", stdin=yaml.safe_dump(listing))
    assert proc.code == 0, proc
    out = yaml.safe_load(proc.out)
    assert out["apiVersion"] == "config.kubernetes.io/v1" and out["kind"] == "ResourceList"
    assert "results" not in out  # no warnings or errors for the example
    given = {(i["kind"], i["metadata"]["name"]): i for i in listing["items"]}
    returned = {(i["kind"], i["metadata"]["name"]): i for i in out["items"]}
    for key, item in given.items():
        assert returned[key] == item  # inputs come back unchanged, annotations and all
    deployment = returned[("Deployment", "llama-3-2-3b-instruct-engine")]
    annotations = deployment["metadata"]["annotations"]
    assert (
        annotations["internal.config.kubernetes.io/path"]
        == "rendered/llama-demo/deployment-llama-3-2-3b-instruct-engine.yaml"
    )
    assert annotations["internal.config.kubernetes.io/index"] == "0"
    assert not any(k.startswith("internal.") for k in deployment["spec"]["template"]["metadata"].get("annotations", {}))


def test_flattened_items_keep_their_place_and_the_kptfile_stays() -> None:
    listing = _resource_list(FIXTURE)
    listing["items"].append(
        {
            "apiVersion": "kpt.dev/v1",
            "kind": "Kptfile",
            "metadata": {
                "name": "pkg",
                "annotations": {
                    "config.kubernetes.io/local-config": "true",
                    "internal.config.kubernetes.io/path": "Kptfile",
                },
            },
        }
    )
    listing["functionConfig"] = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "cfg"},
        "data": {"emit": "passthrough,flattened"},
    }
    out, failed = process(ResourceList.of(listing), parse_config(listing["functionConfig"]))
    assert not failed
    kinds = [i["kind"] for i in out["items"]]
    assert kinds == ["Kptfile", "ClusterBaseModel", "ServingRuntime", "InferenceService"]
    runtime = out["items"][2]
    annotations = runtime["metadata"]["annotations"]
    assert (
        annotations["internal.config.kubernetes.io/path"] == "runtime.yaml" and "ome.io/inherit-from" not in annotations
    )
    assert runtime["spec"]["engineConfig"]["runner"]["image"].startswith("docker.io/lmsysorg/sglang")


def test_items_omerender_cannot_read_are_reported_and_kept() -> None:
    listing = {
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": [{"metadata": {"name": "x", "annotations": {"internal.config.kubernetes.io/path": "odd.yaml"}}}],
    }
    out, failed = process(ResourceList.of(listing), parse_config(None))
    assert failed
    assert out["items"] == listing["items"]
    assert out["results"][0]["file"] == {"path": "odd.yaml"}  # no index annotation: none invented
    assert "has no kind" in out["results"][0]["message"]
    with pytest.raises(KrmError):
        ResourceList.of({"kind": "List"})  # what process is given is a ResourceList
    with pytest.raises(KrmError, match="items must be a list"):
        ResourceList.of({"kind": "ResourceList", "items": {"a": 1}})
    with pytest.raises(KrmError):
        parse_config({"kind": "ConfigMap", "data": {"emit": "inputs,flattened"}})


def test_kubectl_kustomize_exec_generator_gives_the_build_objects(
    tmp_path: Path, reference_build: list[dict[str, Any]]
) -> None:
    kubectl = need("kubectl")
    shutil.copytree(REPO / "integrations" / "kustomize" / "example", tmp_path / "example")
    config = tmp_path / "example" / "omerender.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("../../../fixtures/llama-demo", "manifests"), encoding="utf-8"
    )
    shutil.copytree(FIXTURE, tmp_path / "example" / "manifests")
    env = env_with_omerender({"KUSTOMIZE_PLUGIN_HOME": str(PLUGIN_HOME)})
    plain = run([kubectl, "kustomize", str(tmp_path / "example")], env=env)
    assert plain.code != 0, plain  # without --enable-alpha-plugins kustomize refuses the generator
    proc = run([kubectl, "kustomize", "--enable-alpha-plugins", str(tmp_path / "example")], env=env)
    assert proc.code == 0, proc
    assert by_identity(objects(proc.out)) == by_identity(reference_build)


def test_kustomize_exec_generator_fails_on_a_broken_chain(tmp_path: Path) -> None:
    kubectl = need("kubectl")
    example = tmp_path / "example"
    shutil.copytree(REPO / "integrations" / "kustomize" / "example", example)
    config = example / "omerender.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("../../../fixtures/llama-demo", "manifests"), encoding="utf-8"
    )
    shutil.copytree(FIXTURE, example / "manifests")
    (example / "manifests" / "profile.yaml").unlink()
    proc = run(
        [kubectl, "kustomize", "--enable-alpha-plugins", str(example)],
        env=env_with_omerender({"KUSTOMIZE_PLUGIN_HOME": str(PLUGIN_HOME)}),
    )
    assert proc.code != 0 and proc.out == "", proc
    assert 'inherit-from parent "sglang-profile" not found' in proc.err, proc
    # the generator plugin keeps file:line:col and the code, as build reports them
    assert re.search(r"manifests/runtime\.yaml:\d+:\d+: error: \[ParentNotFound\] inherit-from parent", proc.err), proc


def test_standalone_kustomize_exec_krm_function(tmp_path: Path, reference_build: list[dict[str, Any]]) -> None:
    """kubectl kustomize has no --enable-exec (it skips exec functions silently); the standalone kustomize does."""
    kustomize = need("kustomize")
    shutil.copytree(FIXTURE, tmp_path / "manifests")
    shim = PLUGIN_HOME / "omerender.io" / "v1alpha1" / "omerender" / "OmeRender"
    assert os.access(shim, os.X_OK)
    (tmp_path / "fn.yaml").write_text(
        "apiVersion: omerender.io/v1alpha1\nkind: OmeRender\nmetadata:\n  name: omerender\n  annotations:\n"
        f"    config.kubernetes.io/function: |\n      exec:\n        path: {shim}\nspec:\n  emit: [rendered]\n",
        encoding="utf-8",
    )
    names = " ".join(p.name for p in sorted((tmp_path / "manifests").glob("*.yaml")))
    (tmp_path / "kustomization.yaml").write_text(
        f"resources: [{', '.join('manifests/' + n for n in names.split())}]\ntransformers: [fn.yaml]\n",
        encoding="utf-8",
    )
    proc = run([kustomize, "build", "--enable-alpha-plugins", "--enable-exec", str(tmp_path)])
    assert proc.code == 0, proc
    assert _rendered(objects(proc.out)) == _rendered(reference_build)


def test_kpt_fn_eval_runs_again_on_its_own_output(tmp_path: Path, reference_build: list[dict[str, Any]]) -> None:
    # The first run's rendered/ files come back as input items; the function regenerates them.
    kpt = need("kpt")
    pkg = _package(tmp_path)
    assert run([kpt, "fn", "eval", str(pkg), "--exec", "omerender krm"]).code == 0
    first = {p: p.read_text(encoding="utf-8") for p in sorted((pkg / "rendered").rglob("*.yaml"))}
    proc = run([kpt, "fn", "eval", str(pkg), "--exec", "omerender krm"])
    assert proc.code == 0, proc
    assert {p: p.read_text(encoding="utf-8") for p in sorted((pkg / "rendered").rglob("*.yaml"))} == first


def test_an_unknown_function_config_setting_is_refused() -> None:
    with pytest.raises(KrmError, match="unknown setting\\(s\\) emitt"):
        parse_config({"apiVersion": "v1", "kind": "ConfigMap", "data": {"emitt": "flattened"}})
