"""verify.rejections: what the API server would refuse in a rendered pod, blamed on where it was written."""

from __future__ import annotations

from typing import Any

from stage_objects import context

from omerender import codes
from omerender.diagnostics import ERROR
from omerender.verify.rejections import pod_rejections, pod_specs


def _deployment(containers: list[dict[str, Any]], **pod: Any) -> dict[str, Any]:
    template = {"spec": {"containers": containers, **pod}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "svc-engine"},
        "spec": {"template": template},
    }


def test_pod_specs_finds_the_pods_of_a_deployment_and_of_a_leaderworkerset_and_nothing_else() -> None:
    assert [path for path, _ in pod_specs(_deployment([]))] == [("spec", "template", "spec")]
    lws = {"spec": {"leaderWorkerTemplate": {"leaderTemplate": {"spec": {}}, "workerTemplate": {"spec": {}}}}}
    assert len(pod_specs(lws)) == 2
    assert pod_specs({"kind": "Service", "spec": {"ports": []}}) == []


def test_a_clean_pod_has_no_rejections() -> None:
    ctx = context({"engineConfig": {"runner": {"name": "main", "image": "x"}}})
    assert pod_rejections(ctx, [_deployment([{"name": "main", "image": "x"}])]) == []


def test_a_container_defined_twice_is_an_error_located_in_the_runtime_that_wrote_it() -> None:
    spec = {"engineConfig": {"runner": {"name": "main", "image": "x"}, "containers": [{"name": "main"}]}}
    ctx = context(spec)
    found = pod_rejections(ctx, [_deployment([{"name": "main", "image": "x"}, {"name": "main", "image": "y"}])])
    assert [(d.severity, d.code) for d in found] == [(ERROR, codes.DUPLICATE_CONTAINER)]
    assert found[0].path == ctx.sources[1].path  # the runtime's file, not the InferenceService's


def test_a_request_above_its_limit_is_refused() -> None:
    resources = {"requests": {"cpu": "4"}, "limits": {"cpu": "2"}}
    ctx = context({"engineConfig": {"runner": {"name": "main", "image": "x", "resources": resources}}})
    found = pod_rejections(ctx, [_deployment([{"name": "main", "image": "x", "resources": resources}])])
    assert codes.REQUEST_ABOVE_LIMIT in {d.code for d in found}


def test_an_invalid_container_name_is_refused() -> None:
    ctx = context({})
    found = pod_rejections(ctx, [_deployment([{"name": "Main_Container", "image": "x"}])])
    assert [d.code for d in found] == [codes.INVALID_NAME]
