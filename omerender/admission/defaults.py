"""What happens to objects before the controller sees them: CRD defaults and OME's admission webhooks."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from omerender import codes
from omerender.admission import predictor
from omerender.data import copy
from omerender.diagnostics import ERROR, WARNING, Diagnostic
from omerender.load.obj import Obj
from omerender.ome import CLUSTER_BASE_MODEL, CLUSTER_SERVING_RUNTIME, DEPLOYMENT_MODE, REPLICA_DEFAULTS

ISVC_NAME = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_CONTAINER_LISTS = ("containers", "initContainers")


def _default_ports(container: Any) -> None:
    if isinstance(container, dict):
        for port in container.get("ports") or []:
            if isinstance(port, dict):
                port.setdefault("protocol", "TCP")


def _default_pod_ports(pod: Any) -> None:
    if not isinstance(pod, dict):
        return
    _default_ports(pod.get("runner"))
    for field in _CONTAINER_LISTS:
        for container in pod.get(field) or []:
            _default_ports(container)
    for part in ("leader", "worker"):
        if isinstance(pod.get(part), dict):
            _default_pod_ports(pod[part])


def runtime_defaults(spec: dict[str, Any]) -> dict[str, Any]:
    """A copy of a runtime spec with the CRD's structural defaults (``protocol: TCP`` on ports)."""
    out: dict[str, Any] = copy(spec)
    for field in ("engineConfig", "decoderConfig", "routerConfig"):
        _default_pod_ports(out.get(field))
    for container in out.get("containers") or []:
        _default_ports(container)
    return out


def _mode_annotation(spec: dict[str, Any], default_mode: str) -> str | None:
    """``DefaultInferenceService`` (``isvc/inference_service_defaults.go:72-94``): only a RawDeployment default is
    written; with ``defaultDeploymentMode: Serverless`` an InferenceService without components' hint gets none."""
    engine, decoder = spec.get("engine"), spec.get("decoder")
    if engine is not None and decoder is not None:
        return "PDDisaggregated"
    if (
        isinstance(engine, dict)
        and engine.get("leader")
        and engine.get("worker")
        and int((engine["worker"] or {}).get("size") or 0) > 0
    ):
        return "MultiNode"
    return default_mode if default_mode == "RawDeployment" else None


def isvc_defaults(
    isvc: Obj,
    model_kind: Callable[[str], str | None] = lambda name: None,
    default_mode: str = "RawDeployment",
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The InferenceService as stored: the defaulting webhook, then CRD defaults.

    ``model_kind`` answers ``DetermineModelKind`` for the predictor migration; ``default_mode`` is the
    controller configuration's ``deploy.defaultDeploymentMode``.
    """
    body = copy(isvc.body)
    spec = body.setdefault("spec", {})
    if not isinstance(spec, dict):
        body["spec"] = spec = {}
    problems: list[Diagnostic] = []
    for component in REPLICA_DEFAULTS:
        _default_pod_ports(spec.get(component))
    meta = body.setdefault("metadata", {})
    annotations = meta.get("annotations") or {}
    if DEPLOYMENT_MODE not in annotations:
        mode = _mode_annotation(spec, default_mode)
        if mode is not None:
            meta["annotations"] = {**annotations, DEPLOYMENT_MODE: mode}
    refused = predictor.migrate(body, model_kind)
    if refused is not None:
        problems.append(isvc.diag(ERROR, refused, "spec", "predictor", code=codes.ADMISSION_DENIED))
        return body, problems
    _default_pod_ports(spec.get("engine"))
    model = spec.get("model")
    if isinstance(model, dict):
        model.setdefault("kind", CLUSTER_BASE_MODEL)
        model.setdefault("apiGroup", "ome.io")
    runtime = spec.get("runtime")
    if isinstance(runtime, dict):
        runtime.setdefault("kind", CLUSTER_SERVING_RUNTIME)
        runtime.setdefault("apiGroup", "ome.io")
    for component, (low, high) in REPLICA_DEFAULTS.items():
        part = spec.get(component)
        if not isinstance(part, dict):
            continue
        if part.get("minReplicas") is None:
            part["minReplicas"] = low
        if not part.get("maxReplicas"):
            part["maxReplicas"] = high
    return body, problems


def isvc_validation(isvc: Obj) -> list[Diagnostic]:
    """The validating webhook's checks that need no other object."""
    problems: list[Diagnostic] = []
    if not ISVC_NAME.match(isvc.name):
        problems.append(
            isvc.diag(
                ERROR,
                f"invalid InferenceService name {isvc.name!r}, must match {ISVC_NAME.pattern!r}",
                "metadata",
                "name",
                code=codes.INVALID_NAME,
            )
        )
    spec = isvc.spec
    if spec.get("decoder") is not None and spec.get("engine") is None:
        problems.append(
            isvc.diag(
                ERROR,
                "decoder cannot be specified without engine",
                "spec",
                "decoder",
                code=codes.DECODER_WITHOUT_ENGINE,
            )
        )
    return problems


def replica_override_warnings(
    isvc: Obj, runtime_spec: dict[str, Any], runtime: Obj, chain: tuple[Obj, ...] = ()
) -> list[Diagnostic]:
    """OME's webhook fills min/max replicas on the InferenceService first, so a runtime's are never used.

    Reported at the runtime in ``chain`` (root first) whose own spec sets the value, else at the
    InferenceService. An explicit ``minReplicas: 0`` on the InferenceService is kept by the webhook.
    """
    problems: list[Diagnostic] = []
    for component, (low, high) in REPLICA_DEFAULTS.items():
        own = isvc.spec.get(component)
        config = runtime_spec.get(f"{component}Config") or {}
        if not isinstance(own, dict) or not isinstance(config, dict):
            continue
        for key, default in (("minReplicas", low), ("maxReplicas", high)):
            unset = own.get(key) is None or (key == "maxReplicas" and own.get(key) == 0)
            if key not in config or not unset or config[key] == default:
                continue
            message = (
                f"runtime {runtime.name} sets {component}Config.{key}: {config[key]}, but OME's admission webhook "
                f"defaults spec.{component}.{key} of InferenceService {isvc.name} to {default} first, which overrides "
                "it; "
                "set it on the InferenceService"
            )
            setter = next((r for r in reversed(chain) if key in (r.spec.get(f"{component}Config") or {})), None)
            if setter is not None:
                problems.append(
                    setter.diag(WARNING, message, "spec", f"{component}Config", key, code=codes.REPLICAS_OVERRIDDEN)
                )
            else:
                problems.append(isvc.diag(WARNING, message, "spec", component, code=codes.REPLICAS_OVERRIDDEN))
    return problems
