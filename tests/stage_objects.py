"""Objects made in memory for the stage unit tests: located like loaded ones, no files needed."""

from __future__ import annotations

from typing import Any

from omerender.load.memory import objects_from_documents
from omerender.load.obj import Obj

API = "ome.io/v1beta1"


def objects(*bodies: dict[str, Any], namespace: str = "default") -> list[Obj]:
    made, problems = objects_from_documents([(f"in/{i}.yaml", body) for i, body in enumerate(bodies)], namespace)
    assert not problems, problems
    return made


def runtime(name: str, spec: dict[str, Any] | None = None, parent: str | None = None, **meta: Any) -> dict[str, Any]:
    annotations = {"ome.io/inherit-from": parent} if parent else {}
    metadata = {"name": name, **({"annotations": annotations} if annotations else {}), **meta}
    return {"apiVersion": API, "kind": "ClusterServingRuntime", "metadata": metadata, "spec": spec or {}}


def model(name: str = "m") -> dict[str, Any]:
    spec = {"modelFormat": {"name": "safetensors", "version": "1.0.0"}, "modelArchitecture": "LlamaForCausalLM"}
    return {"apiVersion": API, "kind": "ClusterBaseModel", "metadata": {"name": name}, "spec": spec}


def isvc(name: str = "svc", spec: dict[str, Any] | None = None) -> dict[str, Any]:
    body = spec if spec is not None else {"model": {"name": "m"}, "runtime": {"name": "rt"}, "engine": {}}
    return {"apiVersion": API, "kind": "InferenceService", "metadata": {"name": name}, "spec": body}


def context(runtime_spec: dict[str, Any], isvc_spec: dict[str, Any] | None = None) -> Any:
    """A render Context for InferenceService ``svc`` of model ``m`` on runtime ``rt`` with ``runtime_spec``."""
    from omerender.render.context import Context

    service, made_model, made_runtime = objects(isvc(spec=isvc_spec), model(), runtime("rt", runtime_spec))
    return Context(service, service.body, made_model, "rt", runtime_spec, (service, made_runtime))
