"""Small YAML builders for CLI tests: a profile, a child, a model and an InferenceService."""

from __future__ import annotations

from typing import Any

import yaml

MODEL = {
    "apiVersion": "ome.io/v1beta1",
    "kind": "ClusterBaseModel",
    "metadata": {"name": "m3b"},
    "spec": {
        "modelFormat": {"name": "safetensors", "version": "1.0.0"},
        "modelFramework": {"name": "transformers", "version": "4.45.0"},
        "modelArchitecture": "LlamaForCausalLM",
        "modelParameterSize": "3B",
        "storage": {"storageUri": "hf://example/m3b", "path": "/models/m3b"},
    },
}

FORMATS = [
    {
        "modelFormat": {"name": "safetensors", "version": "1.0.0"},
        "modelFramework": {"name": "transformers", "version": "4.45.0"},
        "modelArchitecture": "LlamaForCausalLM",
    }
]


def runtime(
    name: str,
    spec: dict[str, Any],
    *,
    parent: str | None = None,
    kind: str = "ClusterServingRuntime",
    namespace: str | None = None,
    profile: bool = False,
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    annotations = {}
    if parent is not None:
        annotations["ome.io/inherit-from"] = parent
    if profile:
        annotations["ome.io/runtime-profile"] = "true"
    if annotations:
        meta["annotations"] = annotations
    if namespace:
        meta["namespace"] = namespace
    return {"apiVersion": "ome.io/v1beta1", "kind": kind, "metadata": meta, "spec": spec}


def isvc(
    name: str = "svc",
    runtime_name: str = "child",
    *,
    namespace: str = "default",
    model: str = "m3b",
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {"model": {"name": model}, "runtime": {"name": runtime_name}, "engine": {}}
    spec.update(extra or {})
    return {
        "apiVersion": "ome.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def profile_spec(**engine: Any) -> dict[str, Any]:
    runner = {
        "name": "ome-container",
        "image": "engine:1",
        "command": ["serve", "--port=8080"],
        "ports": [{"containerPort": 8080, "name": "http1"}],
    }
    config: dict[str, Any] = {"runner": runner}
    config.update(engine)
    return {"disabled": True, "engineConfig": config}


def child_spec(engine: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "disabled": False,
        "supportedModelFormats": FORMATS,
        "engineConfig": {"runner": {"name": "ome-container"}},
    }
    if engine:
        spec["engineConfig"] = engine
    spec.update(fields)
    return spec


def dump(*docs: dict[str, Any]) -> str:
    return yaml.safe_dump_all(list(docs), sort_keys=False)


def objects(stdout: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(stdout) if d]


def only(stdout: str, kind: str = "Deployment", name: str | None = None) -> dict[str, Any]:
    found = [o for o in objects(stdout) if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
    assert len(found) == 1, f"expected one {kind}, got {len(found)}"
    return found[0]


def main_container(deployment: dict[str, Any], name: str = "ome-container") -> dict[str, Any]:
    return next(c for c in deployment["spec"]["template"]["spec"]["containers"] if c["name"] == name)
