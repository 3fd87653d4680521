"""Schema check against the JSON Schemas generated from OME's CRDs."""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from omerender.admission.schema import SchemaIssue, crd_schema_issues
from omerender.diagnostics import field_path as dotted
from omerender.ome import KINDS

REPO = Path(__file__).resolve().parents[2]
OME = REPO.parent / "shared" / "ome"
SCRIPT = REPO / "scripts" / "gen_schemas.py"
SCHEMA_FILES = sorted(f"{kind.lower()}.json" for kind in KINDS)


def _ome(folder: str) -> Path:
    path = OME / folder
    if not path.is_dir():
        pytest.skip(f"{path} not present")
    return path


def _corpus(folder: str) -> list[tuple[str, dict[str, Any]]]:
    root = _ome(folder)
    docs = []
    for path in sorted(root.rglob("*.yaml")):
        with path.open(encoding="utf-8") as fh:
            docs += [
                (str(path.relative_to(root)), d)
                for d in yaml.load_all(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
                if isinstance(d, dict)
            ]
    return docs


def _gen_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_schemas", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _runtime() -> dict[str, Any]:
    return {
        "apiVersion": "ome.io/v1beta1",
        "kind": "ClusterServingRuntime",
        "metadata": {"name": "child", "annotations": {"ome.io/inherit-from": "sglang-profile"}},
        "spec": {
            "disabled": False,
            "modelSizeRange": {"min": "2B", "max": "4B"},
            "engineConfig": {
                "runner": {
                    "name": "ome-container",
                    "args": ["--tp-size=1"],
                    "ports": [{"containerPort": 8080, "name": "http1"}],
                    "resources": {"requests": {"cpu": "10", "nvidia.com/gpu": 1}},
                }
            },
        },
    }


@pytest.mark.parametrize(("folder", "kind"), [("runtimes", "ClusterServingRuntime"), ("models", "ClusterBaseModel")])
def test_corpus_is_clean(folder: str, kind: str) -> None:
    docs = _corpus(folder)
    objects = [(name, doc) for name, doc in docs if doc.get("kind") == kind]
    assert len(objects) >= 200
    problems = {name: issues for name, doc in objects if (issues := crd_schema_issues(doc))}
    assert problems == {}


def test_valid_runtime_and_other_kinds() -> None:
    assert crd_schema_issues(_runtime()) == []
    assert (
        crd_schema_issues({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}, "data": {"a": 1}}) == []
    )
    assert crd_schema_issues({"kind": "Kustomization", "resources": []}) == []


def test_misspelled_field_is_unknown() -> None:
    obj = _runtime()
    obj["spec"]["engineConfig"]["runer"] = obj["spec"]["engineConfig"].pop("runner")
    obj["metadata"]["annotaions"] = {}
    issues = crd_schema_issues(obj)
    assert [(i.path, i.unknown_field) for i in issues] == [
        (("metadata", "annotaions"), True),
        (("spec", "engineConfig", "runer"), True),
    ]
    assert issues[1].message.startswith('unknown field "spec.engineConfig.runer"')


def test_wrong_type_is_an_error() -> None:
    obj = _runtime()
    obj["spec"]["modelSizeRange"]["min"] = 2
    obj["spec"]["engineConfig"]["runner"]["resources"]["requests"]["cpu"] = 0.5
    obj["metadata"]["annotations"]["ome.io/runtime-profile"] = True
    assert crd_schema_issues(obj) == [
        SchemaIssue(
            ("metadata", "annotations", "ome.io/runtime-profile"),
            "metadata.annotations[ome.io/runtime-profile]: True is not of type 'string'",
            False,
        ),
        SchemaIssue(
            ("spec", "engineConfig", "runner", "resources", "requests", "cpu"),
            "spec.engineConfig.runner.resources.requests.cpu: 0.5 is not of type 'integer' or 'string'",
            False,
        ),
        SchemaIssue(("spec", "modelSizeRange", "min"), "spec.modelSizeRange.min: 2 is not of type 'string'", False),
    ]


def test_required_and_top_level() -> None:
    obj = _runtime()
    del obj["spec"]["engineConfig"]["runner"]["name"]
    obj["apiVersion"] = "ome.io/v1"
    messages = [i.message for i in crd_schema_issues(obj)]
    assert messages == [
        "apiVersion: 'ome.io/v1beta1' was expected",
        "spec.engineConfig.runner: 'name' is a required property",
    ]
    assert [i.message for i in crd_schema_issues({"kind": "BaseModel"})] == [
        "'apiVersion' is a required property",
        "'metadata' is a required property",
    ]


def test_list_map_duplicates() -> None:
    obj = _runtime()
    runner = obj["spec"]["engineConfig"]["runner"]
    runner["ports"].append({"containerPort": 8080, "protocol": "TCP"})  # protocol defaults to TCP
    runner["ports"].append({"containerPort": 8080, "protocol": "UDP"})
    runner["env"] = [{"name": "A", "value": "1"}, {"name": "B"}, {"name": "A", "value": "2"}]
    assert [(i.path[-2:], i.message.split(": ", 1)[1]) for i in crd_schema_issues(obj)] == [
        (("env", 2), 'Duplicate value: {"name": "A"}'),
        (("ports", 1), 'Duplicate value: {"containerPort": 8080, "protocol": "TCP"}'),
    ]


def test_inheritance_fields() -> None:
    obj = _runtime()
    obj["metadata"]["annotations"]["ome.io/runtime-profile"] = "true"
    obj["status"] = {
        "inheritanceChain": ["sglang-profile", "child"],
        "conditions": [{"type": "InheritanceReady", "status": "False", "reason": "ParentNotFound", "message": "x"}],
    }
    assert crd_schema_issues(obj) == []
    obj["status"]["conditions"][0]["reason"] = "Nope"
    obj["metadata"]["annotations"]["ome.io/runtime-profile"] = "yes"
    assert [i.path for i in crd_schema_issues(obj)] == [
        ("metadata", "annotations", "ome.io/runtime-profile"),
        ("status", "conditions", 0, "reason"),
    ]
    isvc = {
        "apiVersion": "ome.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "llama", "namespace": "llama-demo"},
        "spec": {"model": {"name": "m"}, "runtime": {"name": "child", "autoSync": False, "revision": "child-3"}},
    }
    assert crd_schema_issues(isvc) == []
    isvc["spec"]["runtime"]["autoSync"] = "no"
    assert [i.message for i in crd_schema_issues(isvc)] == ["spec.runtime.autoSync: 'no' is not of type 'boolean'"]


def test_nulls_are_pruned() -> None:
    obj = _runtime()
    obj["spec"]["engineConfig"]["runner"]["args"] = None
    obj["spec"]["tolerations"] = None
    assert crd_schema_issues(obj) == []


def test_dotted() -> None:
    assert dotted(("spec", "containers", 0, "name")) == "spec.containers[0].name"
    assert dotted(("metadata", "labels", "app.kubernetes.io/name")) == "metadata.labels[app.kubernetes.io/name]"


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["spec", "name", "runner", "ports", "containerPort", "env", "1"]), inner, max_size=4
        )
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(
    kind=st.sampled_from(sorted(KINDS)),
    body=st.dictionaries(st.sampled_from(["spec", "metadata", "status", "x"]), _json),
)
def test_never_raises(kind: str, body: dict[str, Any]) -> None:
    obj = {"apiVersion": "ome.io/v1beta1", "kind": kind, **body}
    issues = crd_schema_issues(obj)
    assert all(isinstance(i, SchemaIssue) for i in issues)
    assert crd_schema_issues(copy.deepcopy(obj)) == issues


def test_odd_inputs() -> None:
    assert crd_schema_issues({"kind": ["x"]}) == []
    assert crd_schema_issues(
        {
            "kind": "BaseModel",
            1: 2,
            "apiVersion": "ome.io/v1beta1",
            "metadata": {"name": "m"},
            "spec": {"storage": {"storageUri": "hf://x"}},
        }
    ) == [
        SchemaIssue(
            ("1",),
            'unknown field "[1]" (kubectl apply rejects it by default; '
            "the API server drops it when field validation is off)",
            True,
        )
    ]
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(5000):
        node["spec"] = {}
        node = node["spec"]
    issues = crd_schema_issues(
        {"apiVersion": "ome.io/v1beta1", "kind": "ServingRuntime", "metadata": {"name": "r"}, "spec": deep}
    )
    assert [(i.path, i.unknown_field) for i in issues] == [(("spec", "spec"), True)]
    cyclic: dict[str, Any] = {"name": "c"}
    cyclic["env"] = [cyclic]
    assert all(isinstance(i, SchemaIssue) for i in crd_schema_issues({"kind": "ServingRuntime", "spec": cyclic}))


@pytest.mark.parametrize("name", SCHEMA_FILES)
def test_schemas_are_valid_2020_12(name: str) -> None:
    schema = json.loads((REPO / "omerender" / "schemas" / name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    text = json.dumps(schema)
    for ref in {part.split('"')[0] for part in text.split('"$ref": "')[1:]}:
        assert ref.startswith("#/$defs/") and ref[8:] in schema["$defs"], ref


def test_generated_files_are_current(tmp_path: Path) -> None:
    crds = _ome("crds")
    subprocess.run(
        [sys.executable, str(SCRIPT), "--crds", str(crds), "--out", str(tmp_path)], check=True, capture_output=True
    )
    for name in SCHEMA_FILES:
        fresh = (tmp_path / name).read_bytes()
        assert (REPO / "omerender" / "schemas" / name).read_bytes() == fresh, f"omerender/schemas/{name} is stale"
        assert (REPO / "schemas" / name).read_bytes() == fresh, f"schemas/{name} is stale"


def _expand(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if set(node) == {"$ref"}:
            return _expand(defs[node["$ref"][8:]], defs)
        return {k: _expand(v, defs) for k, v in node.items()}
    if isinstance(node, list):
        return [_expand(v, defs) for v in node]
    return node


def test_shared_definitions_change_nothing() -> None:
    crds = _ome("crds")
    gen = _gen_module()
    for kind in ("ServingRuntime", "BaseModel"):
        shared = copy.deepcopy(gen.build(kind, crds))
        defs = shared.pop("$defs", {})
        plain = gen.build(kind, crds, share=False)
        assert _expand(shared, defs) == plain


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_native_list_type_check_agrees_with_jsonschema(kind: str) -> None:
    # jsonschema-rs calls back into _duplicates for x-kubernetes-list-type; its verdict must be jsonschema's.
    from omerender.admission import schema as module

    checked = 0
    for _, body in _corpus("runtimes")[:40] + _corpus("models")[:20]:
        if body.get("kind") != kind:
            continue
        variants = [body]
        if isinstance(((body.get("spec") or {}).get("engineConfig") or {}).get("runner"), dict):
            doubled = copy.deepcopy(body)
            env = doubled["spec"]["engineConfig"]["runner"].setdefault("env", [])
            env += [{"name": "DUP", "value": "1"}, {"name": "DUP", "value": "2"}]
            variants.append(doubled)
        for variant in variants:
            instance = module._stored(variant)
            explained = list(module._validator(kind).iter_errors(instance))
            assert module._passes(kind, instance) == (not explained)
            checked += 1
        if len(variants) > 1:
            assert not module._passes(kind, variants[1])
            assert any("Duplicate value" in issue.message for issue in module.crd_schema_issues(variants[1]))
    assert checked or kind not in ("ClusterServingRuntime", "ClusterBaseModel")


@pytest.mark.parametrize(
    ("items", "duplicates"),
    [
        (["a", "b", "a"], [2]),
        ([1, True, "1", 1.0], []),
        ([1, 1, True, True, None, None], [1, 3, 5]),
        ([float("nan"), float("nan")], [1]),  # the same JSON text, though NaN is unequal to itself
        ([0.0, -0.0], []),
        ([{"a": 1}, {"a": 1}, {"a": [1]}, {"a": [1]}], [1, 3]),
    ],
)
def test_set_items_are_duplicates_when_their_json_texts_are(items: list[object], duplicates: list[int]) -> None:
    from omerender.admission.schema import _duplicates

    assert [index for index, _ in _duplicates("set", items, {})] == duplicates
