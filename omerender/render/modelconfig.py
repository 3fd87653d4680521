"""The ``modelconfig-<last 20 characters>`` ConfigMap: ``models.json`` as OME's Go code marshals it.

Mirrors ``reconcilers/modelconfig/modelconfig_reconciler.go`` at OME commit 17b77eda
(ome-rendering §4 item 1, ome-selection §3.2): one ``ModelConfigEntry`` (:40-44) with ``ModelSpecInfo`` keys in
struct order (:25-36), nil pointers and empty maps omitted, compact JSON with Go's HTML-safe escapes.
``generateModelConfigEntry`` (:246-337) has two cases: ``spec.model.kind: FineTunedWeight`` (:260-301) names the
weight itself, whose ``baseModelRef`` gives the base model; otherwise ``spec.model.fineTunedWeights[0]`` (:313-326)
adds ``fineTunedWeightSpec`` next to the base model's ``modelSpec``. The step runs first in a reconcile
(``controller.go:194-198``), so its errors are the ones OME reports.
"""

from __future__ import annotations

import json
from typing import Any

from omerender.load.obj import Obj
from omerender.names import model_config_map_name
from omerender.ome import BASE_MODEL, CLUSTER_BASE_MODEL
from omerender.render.companions import meta
from omerender.render.finetuned import KIND as FINE_TUNED_KIND
from omerender.render.finetuned import find_weight
from omerender.resolve.index import Universe

WEIGHTS_RESOURCE = "finetunedweights.ome.io"


def go_json(value: Any) -> str:
    """Compact JSON as Go's ``encoding/json`` writes it, HTML-safe escapes included."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for raw, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    return text


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _storage_fields(storage: Any) -> list[tuple[str, Any]]:
    """``populateStorageFields`` (:213-224): nothing for a nil ``storage``."""
    if not isinstance(storage, dict):
        return []
    return [
        ("storageUri", storage.get("storageUri")),
        ("path", storage.get("path")),
        ("schemaPath", storage.get("schemaPath")),
        ("parameters", storage.get("parameters")),
        ("storageKey", storage.get("key")),
    ]


def _info(fields: list[tuple[str, Any]]) -> dict[str, Any]:
    """A ``ModelSpecInfo``: ``omitempty`` drops nil pointers and empty maps (map keys sorted, as Go marshals)."""
    info: dict[str, Any] = {}
    for key, value in fields:
        if key == "parameters":
            if isinstance(value, dict) and value:
                info[key] = {str(k): str(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
        elif value is not None:
            info[key] = str(value)
    return info


def base_model_info(model_spec: dict[str, Any]) -> dict[str, Any]:
    """``populateBaseModelDetails`` (:226-239)."""
    fmt = _dict(model_spec.get("modelFormat"))
    framework = model_spec.get("modelFramework") if isinstance(model_spec.get("modelFramework"), dict) else None
    by_key = dict(_storage_fields(model_spec.get("storage")))
    by_key.update(
        {
            "modelFormatName": str(fmt.get("name") or ""),
            "modelFormatVersion": fmt.get("version"),
            "modelType": model_spec.get("modelType"),
            "modelFrameworkName": str(framework.get("name") or "") if framework is not None else None,
            "modelFrameworkVersion": framework.get("version") if framework is not None else None,
        }
    )
    return _info([(key, by_key.get(key)) for key in _INFO_ORDER])


def fine_tuned_info(weight_spec: dict[str, Any]) -> dict[str, Any]:
    """``populateFineTunedWeightDetails`` (:241-244): the weight's storage fields and its ``modelType``."""
    by_key = dict(_storage_fields(weight_spec.get("storage")))
    by_key["modelType"] = weight_spec.get("modelType")
    return _info([(key, by_key.get(key)) for key in _INFO_ORDER])


_INFO_ORDER = (
    "storageUri",
    "path",
    "schemaPath",
    "parameters",
    "storageKey",
    "modelFormatName",
    "modelFormatVersion",
    "modelType",
    "modelFrameworkName",
    "modelFrameworkVersion",
)


def models_json(model_name: str, model_spec: dict[str, Any], weight_spec: dict[str, Any] | None = None) -> str:
    """``models.json``: one entry; ``fineTunedWeightSpec`` only when a weight is served (a nil pointer otherwise)."""
    entry: dict[str, Any] = {"modelName": model_name, "modelSpec": base_model_info(model_spec)}
    if weight_spec is not None:
        entry["fineTunedWeightSpec"] = fine_tuned_info(weight_spec)
    return go_json([entry])


def _base_lookup(universe: Universe, kind: str, name: str, namespace: str) -> tuple[Obj | None, str]:
    """``getBaseModelSpec`` (:175-199): a BaseModel in ``namespace`` for that kind, else a ClusterBaseModel."""
    if kind == BASE_MODEL:
        return universe.models.get((namespace, name)), "basemodels.ome.io"
    return universe.cluster_models.get(name), "clusterbasemodels.ome.io"


def entry(ref: dict[str, Any], namespace: str, universe: Universe) -> tuple[Obj | None, Obj | None, str | None]:
    """(the base model, the served FineTunedWeight, OME's error) for ``spec.model``, as ``generateModelConfigEntry``.

    ``models.json`` is then ``models_json(model.name, model.spec, weight.spec)``: in both cases ``modelName`` is
    the base model's name.
    """
    name = str(ref.get("name", ""))
    kind = str(ref.get("kind") or "")
    if kind == FINE_TUNED_KIND:  # :260-301
        weight = find_weight(universe, name)
        if weight is None:
            return (
                None,
                None,
                (f'failed to get referenced fine tuned weight spec for {name}: {WEIGHTS_RESOURCE} "{name}" not found'),
            )
        base_ref = _dict(weight.spec.get("baseModelRef"))
        base_name = str(base_ref.get("name") or "")
        if not base_name:
            return None, None, f"FineTunedWeight {name} has no BaseModelRef.Name specified"
        base_namespace = str(base_ref.get("namespace") or "")
        base_kind = BASE_MODEL if base_namespace else CLUSTER_BASE_MODEL
        model, resource = _base_lookup(universe, base_kind, base_name, base_namespace)
        if model is None:
            return (
                None,
                None,
                (
                    f"failed to get base model spec for {base_name} (referenced by FTW {name}): "
                    f'{resource} "{base_name}" not found'
                ),
            )
        return model, weight, None
    model, resource = _base_lookup(universe, kind, name, namespace)
    if model is None:
        return None, None, f'failed to get base model spec for {name}: {resource} "{name}" not found'
    weights = ref.get("fineTunedWeights")
    first = str(weights[0]) if isinstance(weights, list) and weights and weights[0] else ""
    if not first:
        return model, None, None
    weight = find_weight(universe, first)  # :313-326
    if weight is None:
        return (
            None,
            None,
            (
                f"failed to get fine tuned weight spec {first} (listed in ModelRef.FineTunedWeights): "
                f'{WEIGHTS_RESOURCE} "{first}" not found'
            ),
        )
    return model, weight, None


def model_config(isvc_name: str, namespace: str, models: str) -> dict[str, Any]:
    """The ConfigMap, ``models`` being its ``models.json`` (``models_json``)."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": meta(model_config_map_name(isvc_name), namespace, {"ome.io/inferenceservice": isvc_name}),
        "data": {"models.json": models},
    }
