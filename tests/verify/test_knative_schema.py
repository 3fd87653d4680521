"""The Knative Service schema omerender ships (schemas/knative-service-serving-v1.json) is used and can fail."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from omerender.constants import DEFAULT_KUBE_VERSION
from omerender.diagnostics import field_path
from omerender.verify import kube_schema as kv

ROOT = Path(__file__).resolve().parents[2]


def ksvc(**revision: Any) -> dict[str, Any]:
    spec = {"containers": [{"name": "ome-container", "image": "engine:1"}], **revision}
    return {
        "apiVersion": "serving.knative.dev/v1",
        "kind": "Service",
        "metadata": {"name": "chat-engine", "namespace": "team-a"},
        "spec": {"template": {"spec": spec}, "traffic": [{"latestRevision": True, "percent": 100}]},
    }


def test_a_valid_knative_service_passes() -> None:
    assert kv.schema_issues(ksvc(containerConcurrency=10, timeoutSeconds=60), DEFAULT_KUBE_VERSION) == []


def test_knative_bounds_and_pod_spec_are_checked() -> None:
    bad = ksvc(containerConcurrency=2000)
    bad["spec"]["traffic"][0]["percent"] = 101
    bad["spec"]["template"]["spec"]["containers"][0]["ports"] = [{"containerPort": "http"}]
    issues = kv.schema_issues(bad, DEFAULT_KUBE_VERSION)
    paths = sorted(field_path(i.path) for i in issues or [])
    assert paths == [
        "spec.template.spec.containerConcurrency",
        "spec.template.spec.containers[0].ports[0].containerPort",
        "spec.traffic[0].percent",
    ]


def test_unknown_fields_in_the_knative_envelope_are_refused() -> None:
    bad = ksvc()
    bad["spec"]["rollout"] = {}
    assert [field_path(i.path) for i in kv.schema_issues(bad, DEFAULT_KUBE_VERSION) or []] == ["spec"]


def test_shipped_copies_are_identical() -> None:
    name = "knative-service-serving-v1.json"
    top = json.loads((ROOT / "schemas" / name).read_text(encoding="utf-8"))
    assert top == json.loads((ROOT / "omerender" / "schemas" / name).read_text(encoding="utf-8"))
    assert "v0.39.3" in top["description"] and "Apache-2.0" in top["description"]
