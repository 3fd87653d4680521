"""selection.lookup: the model and runtime an InferenceService gets, with the refusal of a named runtime apart."""

from __future__ import annotations

from typing import Any

from stage_objects import isvc, model, objects, runtime

from omerender import codes
from omerender.diagnostics import ERROR
from omerender.resolve.index import index
from omerender.resolve.inherit import resolve_all
from omerender.selection.lookup import find_model, find_runtime, webhook_selects

FORMAT = {
    "supportedModelFormats": [
        {
            "modelFormat": {"name": "safetensors", "version": "1.0.0"},
            "modelArchitecture": "LlamaForCausalLM",
            "autoSelect": True,
        }
    ]
}


def _lookup(spec: dict[str, Any], *runtimes: dict[str, Any]) -> Any:
    universe, _ = index(objects(isvc(spec=spec), model(), *runtimes))
    chains, _ = resolve_all(universe)
    (service,) = universe.isvcs.values()
    found, problem = find_model(universe, service, service.body)
    assert found is not None and problem is None
    return find_runtime(universe, chains, lambda _w, _a, _b, make: make(), service, found, service.body)


def test_a_missing_named_runtime_is_a_refusal_not_a_finding() -> None:
    lookup = _lookup({"model": {"name": "m"}, "runtime": {"name": "rtt"}, "engine": {}}, runtime("rt", FORMAT))
    assert lookup.found is None and lookup.diagnostics == [] and not lookup.crashed
    assert lookup.refusal is not None and lookup.refusal.code == codes.RUNTIME_VALIDATION_ERROR
    assert "did you mean" in lookup.refusal.message.lower() or "rt" in lookup.refusal.message


def test_a_named_runtime_that_supports_the_model_is_found_without_findings() -> None:
    lookup = _lookup({"model": {"name": "m"}, "runtime": {"name": "rt"}, "engine": {}}, runtime("rt", FORMAT))
    assert lookup.found is not None and lookup.found[0].name == "rt"
    assert lookup.refusal is None and lookup.diagnostics == []


def test_auto_selection_says_what_it_chose_and_a_failure_is_an_ordinary_error() -> None:
    chosen = _lookup({"model": {"name": "m"}, "engine": {}}, runtime("rt", FORMAT))
    assert chosen.found is not None and codes.RUNTIME_SELECTED in {d.code for d in chosen.diagnostics}
    none = _lookup({"model": {"name": "m"}, "engine": {}})
    assert none.found is None and none.refusal is None
    assert [(d.severity, d.code) for d in none.diagnostics][:1] == [(ERROR, codes.RUNTIME_SELECTION_ERROR)]


def test_a_missing_model_is_reported_by_find_model() -> None:
    universe, _ = index(objects(isvc(spec={"model": {"name": "nope"}, "engine": {}})))
    (service,) = universe.isvcs.values()
    found, problem = find_model(universe, service, service.body)
    assert found is None and problem is not None and problem.code == codes.MODEL_RECONCILE_ERROR


def test_an_isvc_without_a_model_reference_fails_the_controllers_model_step() -> None:
    """controller.go:218-222 records ModelReconcileError for reconciliation.go:52-54 (OME 17b77eda)."""
    universe, _ = index(objects(isvc(spec={"runtime": {"name": "rt"}, "engine": {}}), runtime("rt", FORMAT)))
    (service,) = universe.isvcs.values()
    found, problem = find_model(universe, service, service.body)
    assert found is None and problem is not None
    assert (problem.code, problem.message) == (codes.MODEL_RECONCILE_ERROR, "model reference is required")


def test_the_webhook_selects_only_for_an_engine_without_runtime_or_runner_image() -> None:
    """inference_service_validation.go:116-122,364-443: engine set, spec.runtime nil, no full runner config."""
    assert webhook_selects({"model": {"name": "m"}, "engine": {}})
    assert webhook_selects({"engine": {"runner": {"name": "x"}}})
    assert webhook_selects({"engine": {"leader": {"runner": {"image": "i"}}, "worker": {}}})
    assert not webhook_selects({"model": {"name": "m"}})
    assert not webhook_selects({"engine": {}, "runtime": {"name": ""}})  # the controller selects instead
    assert not webhook_selects({"engine": {"runner": {"image": "i"}}})
    assert not webhook_selects({"engine": {"leader": {"runner": {"image": "i"}}, "worker": {"runner": {"image": "j"}}}})


def test_a_failed_selection_is_worded_as_the_step_that_refuses_it() -> None:
    webhook = _lookup({"model": {"name": "m"}, "engine": {}})
    [failure] = [d for d in webhook.diagnostics if d.code == codes.RUNTIME_SELECTION_ERROR]
    assert failure.message.startswith(
        "OME's validating webhook refuses it: no supporting runtime found for model m and engine does not have "
        "complete runner configuration: "
    )
    controller = _lookup({"model": {"name": "m"}, "engine": {}, "runtime": {"name": ""}})
    [failure] = [d for d in controller.diagnostics if d.code == codes.RUNTIME_SELECTION_ERROR]
    assert failure.message.startswith("Failed to find runtime for model m: ")
