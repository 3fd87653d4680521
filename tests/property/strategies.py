"""Hypothesis strategies for the property tests: runtime specs, chains and worlds, and OME-ish junk."""

from __future__ import annotations

from typing import Any

import yaml
from click.testing import CliRunner
from hypothesis import strategies as st

API = "ome.io/v1beta1"
NAMES = ("alpha", "beta", "gamma", "delta")
FORMAT = {
    "modelFormat": {"name": "safetensors", "version": "1.0.0"},
    "modelFramework": {"name": "transformers", "version": "4.45.0"},
    "modelArchitecture": "LlamaForCausalLM",
}

scalar_text = st.text(alphabet="abcxyz019-_./=$(){}", min_size=1, max_size=12)
quantity = st.sampled_from(["1", "2", "500m", "1Gi", "30Gi", "4"])
env_item = st.fixed_dictionaries({"name": st.sampled_from(["A", "B", "MODEL_PATH", "HF_HOME"]), "value": scalar_text})
port = st.fixed_dictionaries(
    {"containerPort": st.sampled_from([8080, 9090, 8000]), "name": st.sampled_from(["http1", "metrics", "grpc"])}
)
volume = st.fixed_dictionaries(
    {"name": st.sampled_from(["dshm", "cache", "tmp"]), "emptyDir": st.just({"medium": "Memory"})}
)
resources = st.fixed_dictionaries(
    {},
    optional={
        "requests": st.dictionaries(st.sampled_from(["cpu", "memory"]), quantity, max_size=2),
        "limits": st.dictionaries(st.sampled_from(["cpu", "memory"]), quantity, max_size=2),
    },
)


def _unique(items: st.SearchStrategy[dict[str, Any]], key: str) -> st.SearchStrategy[list[dict[str, Any]]]:
    return st.lists(items, max_size=3, unique_by=lambda item: item[key])


runner = st.fixed_dictionaries(
    {"name": st.just("ome-container")},
    optional={
        "image": st.sampled_from(["engine:1", "engine:2"]),
        "args": st.lists(scalar_text, max_size=3),
        "command": st.lists(scalar_text, min_size=1, max_size=3),
        "env": _unique(env_item, "name"),
        "ports": _unique(port, "containerPort"),
        "resources": resources,
    },
)
engine_config = st.fixed_dictionaries(
    {"runner": runner},
    optional={
        "volumes": _unique(volume, "name"),
        "nodeSelector": st.dictionaries(st.sampled_from(["zone", "gpu"]), scalar_text, max_size=2),
        "tolerations": st.lists(st.fixed_dictionaries({"key": scalar_text, "operator": st.just("Exists")}), max_size=2),
    },
)
runtime_spec = st.fixed_dictionaries(
    {"engineConfig": engine_config},
    optional={
        "disabled": st.booleans(),
        "modelSizeRange": st.fixed_dictionaries({}, optional={"min": st.just("1B"), "max": st.just("9B")}),
    },
)


@st.composite
def worlds(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A profile, a chain of children, a model and InferenceServices naming runtimes of the chain."""
    depth = draw(st.integers(1, 4))
    docs: list[dict[str, Any]] = []
    for i in range(depth):
        spec = draw(runtime_spec)
        meta: dict[str, Any] = {"name": f"rt-{i}"}
        if i:
            meta["annotations"] = {"ome.io/inherit-from": f"rt-{i - 1}"}
            spec["disabled"] = False
            spec["supportedModelFormats"] = [FORMAT]
        docs.append({"apiVersion": API, "kind": "ClusterServingRuntime", "metadata": meta, "spec": spec})
    model_spec = {**FORMAT, "modelParameterSize": "3B", "storage": {"storageUri": "hf://a/b", "path": "/models/m"}}
    docs.append({"apiVersion": API, "kind": "ClusterBaseModel", "metadata": {"name": "m"}, "spec": model_spec})
    for j in range(draw(st.integers(1, 3))):
        target = f"rt-{draw(st.integers(0, depth - 1))}"
        docs.append(
            {
                "apiVersion": API,
                "kind": "InferenceService",
                "metadata": {"name": f"svc-{j}", "namespace": "ns"},
                "spec": {"model": {"name": "m"}, "runtime": {"name": target}, "engine": {}},
            }
        )
    return docs


OME_KEYS = (
    "apiVersion", "kind", "metadata", "name", "namespace", "annotations", "spec", "engineConfig", "decoderConfig",
    "runner", "image", "args", "command", "env", "value", "valueFrom", "resources", "requests", "limits", "cpu",
    "nvidia.com/gpu", "volumes", "emptyDir", "containers", "initContainers", "ports", "containerPort", "model",
    "runtime", "engine", "decoder", "router", "disabled", "supportedModelFormats", "modelFormat", "storage", "path",
    "ome.io/inherit-from", "ome.io/runtime-profile", "leader", "worker", "size", "minReplicas", "labels",
)  # fmt: skip
junk_scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 10**6),
    st.sampled_from(["", "x", "{{.Name}}", "{{call}}", "$(X)", "1Gi", API, "true"]),
    st.text(max_size=8),
)
junk = st.recursive(
    junk_scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(OME_KEYS), inner, max_size=4)),
    max_leaves=25,
)


@st.composite
def ome_junk(draw: st.DrawFn) -> dict[str, Any]:
    """A document that looks like an OME object (right apiVersion and kind, mostly) over a junk body."""
    kind = draw(
        st.sampled_from(
            ["ClusterServingRuntime", "ServingRuntime", "InferenceService", "ClusterBaseModel", "BaseModel"]
        )
    )
    doc: dict[str, Any] = {
        "apiVersion": API,
        "kind": kind,
        "metadata": {"name": draw(st.sampled_from(NAMES)), "namespace": "ns"},
    }
    doc.update(draw(st.dictionaries(st.sampled_from(("spec", "metadata", "status")), junk, max_size=2)))
    return doc


def dump(docs: list[dict[str, Any]]) -> str:
    return yaml.safe_dump_all(docs, sort_keys=False)


def run(*args: str) -> tuple[int, str, str]:
    from omerender.cli import main

    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr
