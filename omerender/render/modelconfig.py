"""The ``modelconfig-<last 20 characters>`` ConfigMap: ``models.json`` as OME's Go code marshals it.

Mirrors ``reconcilers/modelconfig/modelconfig_reconciler.go`` at OME commit 17b77eda
(ome-rendering §4 item 1, ome-selection §3.2): one entry, ``ModelSpecInfo`` keys in struct order,
nil pointers omitted, compact JSON with Go's HTML-safe escapes. Fine-tuned weights are not modelled.
"""

from __future__ import annotations

import json
from typing import Any

from omerender.names import model_config_map_name
from omerender.render.companions import meta


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


def models_json(model_name: str, model_spec: dict[str, Any]) -> str:
    """``models.json``: one entry, ``ModelSpecInfo`` keys in struct order, empty pointers omitted."""
    storage: dict[str, Any] = model_spec["storage"] if isinstance(model_spec.get("storage"), dict) else {}
    fmt: dict[str, Any] = model_spec["modelFormat"] if isinstance(model_spec.get("modelFormat"), dict) else {}
    framework = model_spec.get("modelFramework") if isinstance(model_spec.get("modelFramework"), dict) else None
    info: dict[str, Any] = {}
    for key, value in (
        ("storageUri", storage.get("storageUri")),
        ("path", storage.get("path")),
        ("schemaPath", storage.get("schemaPath")),
        ("parameters", storage.get("parameters")),
        ("storageKey", storage.get("key")),
        ("modelFormatName", str(fmt.get("name") or "")),
        ("modelFormatVersion", fmt.get("version")),
        ("modelType", model_spec.get("modelType")),
        ("modelFrameworkName", str(framework.get("name") or "") if framework is not None else None),
        ("modelFrameworkVersion", framework.get("version") if framework is not None else None),
    ):
        if key == "parameters":
            if isinstance(value, dict) and value:
                info[key] = {str(k): str(v) for k, v in sorted(value.items())}
        elif value is not None:
            info[key] = str(value)
    return go_json([{"modelName": model_name, "modelSpec": info}])


def model_config(isvc_name: str, namespace: str, models: str) -> dict[str, Any]:
    """The ConfigMap, ``models`` being its ``models.json`` (``models_json``)."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": meta(model_config_map_name(isvc_name), namespace, {"ome.io/inferenceservice": isvc_name}),
        "data": {"models.json": models},
    }
