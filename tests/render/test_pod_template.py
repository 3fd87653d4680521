"""render.pod_template: each runtime's pod rendered once and specialised per InferenceService gives what
rendering the whole pod per InferenceService gives, objects and diagnostics alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from omerender import pipeline
from omerender.render import pod_template
from omerender.result import BuildOptions, BuildResult
from omerender.yamlwrite import dump_stream

CASES = Path(__file__).parent.parent / "cases"
API = "ome.io/v1beta1"


def _build(paths: list[str], monkeypatch: pytest.MonkeyPatch, *, templates: bool) -> BuildResult:
    with monkeypatch.context() as patch:
        if not templates:
            patch.setattr(pod_template, "_template", lambda *_args: None)
        return pipeline.build(paths, BuildOptions(lock_file=str(Path(paths[0]) / "no.lock")))


def _same(paths: list[str], monkeypatch: pytest.MonkeyPatch) -> BuildResult:
    once = _build(paths, monkeypatch, templates=True)
    whole = _build(paths, monkeypatch, templates=False)
    assert dump_stream(once.objects) == dump_stream(whole.objects)
    assert once.diagnostics == whole.diagnostics
    return once


def _templates_used(result: BuildResult) -> int:
    return sum(1 for what, _a, _b in result.memo if what.startswith("pod-template "))


@pytest.mark.parametrize("name", sorted(p.name for p in CASES.iterdir() if (p / "input").is_dir()))
def test_every_golden_input_renders_the_same_with_and_without_templates(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _same([str(CASES / name / "input")], monkeypatch)


def _runtime(name: str, spec: dict[str, Any], parent: str | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if parent:
        meta["annotations"] = {"ome.io/inherit-from": parent}
    return {"apiVersion": API, "kind": "ClusterServingRuntime", "metadata": meta, "spec": spec}


def _model(name: str, path: str | None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "modelFormat": {"name": "safetensors", "version": "1.0.0"},
        "modelFramework": {"name": "transformers", "version": "4.45.0"},
        "modelArchitecture": "LlamaForCausalLM",
        "modelParameterSize": "3B",
        "storage": {"storageUri": f"hf://x/{name}"},
    }
    if path is not None:
        spec["storage"]["path"] = path
    return {"apiVersion": API, "kind": "ClusterBaseModel", "metadata": {"name": name}, "spec": spec}


def _isvc(name: str, runtime: str, model: str, spec: dict[str, Any], **meta: Any) -> dict[str, Any]:
    body = {"model": {"name": model}, "runtime": {"name": runtime}, **spec}
    return {"apiVersion": API, "kind": "InferenceService", "metadata": {"name": name, **meta}, "spec": body}


FORMATS = [
    {
        "modelFormat": {"name": "safetensors", "version": "1.0.0"},
        "modelFramework": {"name": "transformers", "version": "4.45.0"},
        "modelArchitecture": "LlamaForCausalLM",
    }
]
RUNNER = {
    "name": "ome-container",
    "image": "engine:1",
    "command": ["serve", "--model=$(MODEL_PATH)", "--name={{.Name}}", "--team={{index .Labels `team`}}"],
    "env": [
        {"name": "A", "value": "{{.Namespace}}"},
        {"name": "PARALLELISM_SIZE", "value": "old"},
        {"name": "B", "value": "$(A)-$(LATER)"},
        {"name": "LATER", "value": "x"},
    ],
    "resources": {"requests": {"nvidia.com/gpu": 2, "memory": "1024Mi"}, "limits": {"nvidia.com/gpu": 2}},
    "ports": [{"containerPort": 8080, "name": "http1"}],
    "volumeMounts": [{"name": "shm", "mountPath": "/dev/shm"}],
}
SIDECAR = {"name": "side", "image": "side:1", "args": ["{{.Name}}"], "resources": {"limits": {"cpu": "0.5"}}}


def _tree(tmp_path: Path) -> Path:
    engine = {
        "runner": RUNNER,
        "containers": [SIDECAR],
        "volumes": [{"name": "shm", "emptyDir": {"medium": "Memory"}}],
        "tolerations": [{"key": "gpu", "operator": "Exists"}],
        "nodeSelector": {"pool": "gpu", "ome.io/models.m1": "Pinned"},
        "minReplicas": 2,
        "labels": {"from": "runtime"},
    }
    with_path = dict(engine, runner={**RUNNER, "env": [{"name": "MODEL_PATH", "value": "/own"}, *RUNNER["env"]]})
    gpu = dict(engine, runner={**RUNNER, "env": [{"name": "A", "value": "a"}]})
    router = {"runner": {"name": "router", "image": "r:1", "args": ["{{.Name}}"]}, "config": {"b": "2", "a": "x"}}
    docs = [
        _runtime("profile", {"disabled": True, "engineConfig": engine, "routerConfig": router}),
        _runtime("rt", {"disabled": False, "supportedModelFormats": FORMATS}, "profile"),
        _runtime("rt-path", {"disabled": False, "supportedModelFormats": FORMATS, "engineConfig": with_path}),
        _runtime("rt-gpu", {"disabled": False, "supportedModelFormats": FORMATS, "engineConfig": gpu}),
        _model("m1", "/models/m1"),
        _model("m2", None),
        _model("m3", "/models/m3"),
    ]
    labelled = {"labels": {"team": "a"}, "annotations": {"ome.io/inject-model-init": "true"}}
    cases: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = [
        ("rt", "m1", {"engine": {"minReplicas": 1}}, {"labels": {"team": "a"}}),
        ("rt", "m1", {"engine": {"maxReplicas": 3, "labels": {"x": "y"}}}, {}),
        ("rt", "m2", {"engine": {}}, {}),
        ("rt", "m3", {"engine": {}, "router": {"minReplicas": 1}}, labelled),
        ("rt", "m1", {"engine": {"runner": {"name": "ome-container", "args": ["--own"]}}}, {}),
        ("rt", "m3", {"engine": {"nodeSelector": {"mine": "1"}}}, {}),
        ("rt-path", "m1", {"engine": {}}, {}),
        ("rt-path", "m2", {"engine": {"minReplicas": 2}}, {}),
        ("rt-gpu", "m1", {"engine": {}}, {}),
    ]
    for i, (runtime, model, spec, meta) in enumerate(cases):
        docs.append(_isvc(f"svc-{i}", runtime, model, spec, namespace="default", **meta))
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "all.yaml").write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return folder


def test_a_runtime_shared_by_many_inferenceservices_renders_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = _same([str(_tree(tmp_path))], monkeypatch)
    assert _templates_used(result) == 4  # rt's engine and router, rt-path's and rt-gpu's engine: each made once
    deployments = {o["metadata"]["name"]: o for o in result.objects if o["kind"] == "Deployment"}
    assert len(deployments) == 10
    gpu = deployments["svc-8-engine"]["spec"]["template"]["spec"]["containers"][1]
    assert [e["name"] for e in gpu["env"]] == ["A", "MODEL_PATH", "PARALLELISM_SIZE"]
    main = deployments["svc-0-engine"]["spec"]["template"]["spec"]["containers"][1]
    assert [e["name"] for e in main["env"]] == ["A", "PARALLELISM_SIZE", "B", "LATER", "MODEL_PATH"]
    assert main["command"][2:] == ["--name=svc-0", "--team=a"]


def test_specialised_pods_do_not_change_the_template(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _build([str(_tree(tmp_path))], monkeypatch, templates=True)
    for (what, _a, _b), (_ka, _kb, template) in result.memo.items():
        if what.startswith("pod-template ") and template is not None:
            main = template.pod["containers"][template.main]
            assert not any(e["name"] == "MODEL_PATH" for e in main.get("env") or []) or template.env_at is None
            assert any("{{" in str(a) for a in main.get("command") or main.get("args") or [])
            assert "readinessProbe" not in main and "terminationMessagePath" not in main
