"""The Kubernetes schemas shipped in omerender/schemas/kubernetes/: complete, self-contained, and what the generator
writes."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from omerender.constants import DEFAULT_KUBE_VERSION
from omerender.verify import kube_schema as kv

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "omerender" / "schemas" / "kubernetes"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_kube_schemas", ROOT / "scripts" / "gen_kube_schemas.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _bundles() -> dict[str, dict[str, Any]]:
    return {path.name: json.loads(path.read_text(encoding="utf-8")) for path in sorted(SHIPPED.glob("v*.json"))}


def test_every_minor_release_from_1_25_to_the_default_is_shipped() -> None:
    versions = kv.available_versions()
    minors = [int(v.split(".")[1]) for v in versions]
    assert versions[0] == "1.25" and versions[-1] == DEFAULT_KUBE_VERSION
    assert minors == list(range(minors[0], minors[-1] + 1))


def test_every_rendered_kind_has_a_schema_and_every_reference_resolves() -> None:
    gen = _generator()
    external = gen.refs(json.loads((ROOT / "omerender" / "schemas" / "knative-service-serving-v1.json").read_text()))
    external = {name for name in external if name.startswith("io.k8s.")}
    assert {"io.k8s.api.core.v1.PodSpec", "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"} <= external
    for name, bundle in _bundles().items():
        kinds, defined = bundle["kinds"], set(bundle["definitions"]["$defs"])
        assert set(kinds) == {gen.schema_name(kind, api) for kind, api in gen.KINDS}, name
        assert gen.refs(bundle) <= defined, (name, gen.refs(bundle) - defined)
        assert external <= defined, name
        assert gen.refs(kinds) | external >= defined - gen.refs(bundle["definitions"]), name  # nothing unreachable


def test_descriptions_are_dropped_but_a_field_named_description_stays() -> None:
    gen = _generator()
    schema = {"description": "x", "properties": {"description": {"type": "string", "description": "y"}}}
    assert gen.strip(schema) == {"properties": {"description": {"type": "string"}}}
    for name, bundle in _bundles().items():
        assert '"description":"' not in json.dumps(bundle, separators=(",", ":")), name


def test_the_shipped_files_are_what_the_generator_writes() -> None:
    if importlib.util.find_spec("kubernetes_validate") is None:
        pytest.skip("kubernetes-validate is not installed (pip install -e '.[generate]')")
    gen = _generator()
    written = gen.generate(gen.default_source())
    assert sorted(written) == sorted(p.name for p in SHIPPED.glob("v*.json"))
    for name, data in written.items():
        assert (SHIPPED / name).read_bytes() == data, f"{name} is stale: run scripts/gen_kube_schemas.py"


def test_a_rendered_deployment_is_checked_against_each_shipped_release() -> None:
    bad = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"}, "spec": {"replicas": "two"}}
    for version in kv.available_versions():
        issues = kv.schema_issues(bad, version) or []
        assert any(re.search(r"'two' is not of type", i.message) for i in issues), version
