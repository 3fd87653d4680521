"""The deprecated ``spec.predictor``, migrated the way OME's defaulting webhook migrates it.

Mirrors ``DefaultInferenceService`` and ``migrateFromPredictorToNewArchitecture``
(``pkg/webhook/admission/isvc/inference_service_defaults.go:66-272`` at OME 17b77eda): the predictor's
pod and component-extension fields become ``spec.engine``, its ``ome`` container the engine's runner,
its ``workerSpec`` the engine's worker, and ``spec.model``/``spec.runtime`` are filled when unset.
``spec.predictor`` itself stays, which the external Service's selector notices
(``IsPredictorUsed``, ``utils/migration_util.go:54-79``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from omerender.data import copy
from omerender.ome import CLUSTER_SERVING_RUNTIME

DEPRECATION = "ome.io/deprecation-warning"
DEPRECATION_TEXT = (
    "The Predictor field is deprecated and will be removed in a future release. Please use Engine and Model fields "
    "instead."
)
# PredictorSpec keys that have no EngineSpec counterpart: the JSON round trip drops them.
_NOT_ENGINE = frozenset({"model", "workerSpec"})
# isPredictorUsed in the webhook (inference_service_defaults.go:142-167).
_WEBHOOK_USED = (
    "minReplicas",
    "serviceAccountName",
    "containers",
    "volumes",
    "nodeSelector",
    "tolerations",
    "affinity",
)


def _set(value: Any) -> bool:
    return value not in (None, "", [], {}, 0) and value is not False


def webhook_predictor_used(predictor: Any) -> bool:
    if not isinstance(predictor, dict):
        return False
    model = predictor.get("model")
    if isinstance(model, dict) and _set(model.get("baseModel")):
        return True
    return any(_set(predictor.get(key)) for key in _WEBHOOK_USED)


def controller_predictor_used(spec: dict[str, Any]) -> bool:
    """``IsPredictorUsed`` in the controller: the webhook's test plus ``maxReplicas`` and ``workerSpec``."""
    predictor = spec.get("predictor")
    if not isinstance(predictor, dict):
        return False
    return webhook_predictor_used(predictor) or _set(predictor.get("maxReplicas")) or _set(predictor.get("workerSpec"))


def _split_runner(containers: list[Any]) -> tuple[Any, list[Any] | None]:
    for i, container in enumerate(containers):
        name = str(container.get("name", "")) if isinstance(container, dict) else ""
        if name == "ome-container" or "ome" in name.lower():
            rest = containers[:i] + containers[i + 1 :]
            return container, rest or None
    return containers[0], (containers[1:] or None)


def migrate(body: dict[str, Any], model_kind: Callable[[str], str | None]) -> str | None:
    """Migrate ``body`` in place; OME's admission error if the base model does not exist.

    ``model_kind`` names the kind of the model called so (``ClusterBaseModel`` first), or ``None``.
    """
    spec = body["spec"]
    predictor = spec.get("predictor")
    if not isinstance(predictor, dict):
        return None
    if not webhook_predictor_used(predictor):
        return None
    meta = body.setdefault("metadata", {})
    annotations = dict(meta.get("annotations") or {})
    annotations.setdefault(DEPRECATION, DEPRECATION_TEXT)
    meta["annotations"] = annotations
    if spec.get("engine") is not None:
        return None
    engine = {k: copy(v) for k, v in predictor.items() if k not in _NOT_ENGINE}
    containers = engine.pop("containers", None)
    if isinstance(containers, list) and containers:
        runner, rest = _split_runner(containers)
        engine["runner"] = runner
        if rest is not None:
            engine["containers"] = rest
    if predictor.get("workerSpec") is not None:
        engine["worker"] = copy(predictor["workerSpec"])
    spec["engine"] = engine
    model = predictor.get("model")
    if not isinstance(model, dict):
        return None
    if spec.get("model") is None and model.get("baseModel") is not None:
        name = str(model["baseModel"])
        kind = model_kind(name)
        if kind is None:
            return f"neither ClusterBaseModel nor BaseModel found with name {name}"
        ref: dict[str, Any] = {"name": name, "kind": kind}
        if model.get("fineTunedWeights"):
            ref["fineTunedWeights"] = copy(model["fineTunedWeights"])
        spec["model"] = ref
    if spec.get("runtime") is None and model.get("runtime") is not None:
        spec["runtime"] = {"name": str(model["runtime"]), "kind": CLUSTER_SERVING_RUNTIME}
    return None
