"""FineTunedWeight serving: what OME's controller changes on the engine and decoder when the model names one.

Mirrors OME 17b77eda, ``pkg/controller/v1beta1/inferenceservice/components/base.go``: ``ReconcileFineTunedWeights``
(:48-80), ``ProcessBaseAnnotations`` (:371-422), ``ProcessBaseLabels`` (:425-476), ``UpdateEnvVariables`` (:133-174),
``UpdateVolumeMounts`` (:85-129), ``UpdatePodSpecVolumes`` (:229-255) and ``UpdatePodSpecNodeSelector`` (:193-226),
with ``utils/annotations.go:41-50`` and ``utils/utils.go:15-60``. The ``fine-tuned-adapter`` init container is not
part of the Deployment: OME's pod webhook adds it to each Pod when the Pod is created
(``pkg/webhook/admission/pod/fine_tuned_adapter_injector.go:113-134``).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any

from omerender.load.obj import Obj
from omerender.resolve.index import Universe

KIND = "FineTunedWeight"
INJECT_ADAPTER = "ome.io/inject-fine-tuned-adapter"
INJECT_MODEL_INIT = "ome.io/inject-model-init"
STRATEGY_ANNOTATION = "ome.io/fine-tuned-weight-ft-strategy"
MERGED_ANNOTATION = "ome.io/fine-tuned-serving-with-merged-weights"
EMPTY_DIR = "model-empty-dir"
MODEL_MOUNT = "/opt/ml/model"
SERVED_PREFIX = "/data"
WRAP = "failed to reconcile fine-tuned weights: "


@dataclass(frozen=True)
class FineTuned:
    name: str
    merged: bool
    strategy: str | None  # hyperParameters.strategy; None when absent


def find_weight(universe: Universe, name: str) -> Obj | None:
    """The cluster-scoped FineTunedWeight ``name`` (an ``ome.io`` object), as OME's client fetches it."""
    return next(
        (
            o
            for o in universe.others
            if o.kind == KIND and o.name == name and str(o.body.get("apiVersion", "")).startswith("ome.io/")
        ),
        None,
    )


def resolve(body: dict[str, Any], universe: Universe) -> tuple[FineTuned | None, str | None]:
    """The InferenceService's FineTunedWeight, or OME's error."""
    names = ((body.get("spec") or {}).get("model") or {}).get("fineTunedWeights") or []
    if not names:
        return None, None
    if len(names) > 1:
        return None, WRAP + "stacked fine-tuned serving is not supported yet"
    name = str(names[0])
    found = find_weight(universe, name)
    if found is None:
        return None, WRAP + f"No FineTunedWeight with the name: {name}"
    configuration = found.spec.get("configuration")
    if configuration is None:  # json.Unmarshal of an empty RawExtension
        return None, WRAP + "unexpected end of JSON input"
    merged = isinstance(configuration, dict) and configuration.get("merged_weights") is True
    hyper = found.spec.get("hyperParameters")
    strategy = hyper.get("strategy") if isinstance(hyper, dict) else None
    return FineTuned(name, merged, None if strategy is None else str(strategy)), None


def annotate(ft: FineTuned, annotations: dict[str, str]) -> dict[str, str] | None:
    """``ProcessBaseAnnotations``' fine-tuned part; ``None`` when OME returns no annotations (no strategy)."""
    annotations[INJECT_ADAPTER] = ft.name
    if ft.strategy is None:
        return None
    annotations[STRATEGY_ANNOTATION] = ft.strategy
    if ft.merged:
        annotations[MERGED_ANNOTATION] = "true"
        annotations[INJECT_MODEL_INIT] = "false"
    return annotations


def label(ft: FineTuned, labels: dict[str, str]) -> None:
    """``ProcessBaseLabels``' fine-tuned part."""
    labels["fine-tuned-serving"] = "true"
    labels["fine-tuned-weight-ft-strategy"] = ft.strategy or ""
    labels["fine-tuned-serving-with-merged-weights"] = "true" if ft.merged else "false"


def original_model_mount_needed(annotations: dict[str, str]) -> bool:
    """``IsOriginalModelVolumeMountNecessary``."""
    return annotations.get(INJECT_MODEL_INIT) != "true" and annotations.get(MERGED_ANNOTATION) != "true"


def empty_dir_needed(annotations: dict[str, str]) -> bool:
    """``IsEmptyModelDirVolumeRequired``."""
    return annotations.get(INJECT_MODEL_INIT) == "true" or bool(annotations.get(INJECT_ADAPTER))


def runner_env_and_mounts(ft: FineTuned, vendor: Any, runner: dict[str, Any], annotations: dict[str, str]) -> None:
    """The fine-tuned branch of ``UpdateEnvVariables`` and ``UpdateVolumeMounts`` (after the base-model mount)."""
    env = runner.setdefault("env", [])
    if vendor == "meta":
        served = posixpath.join(SERVED_PREFIX, annotations.get(INJECT_ADAPTER, ""))
        found = next((e for e in env if e.get("name") == "SERVED_MODEL_NAME"), None)
        if found is not None:
            found.clear()
            found.update({"name": "SERVED_MODEL_NAME", "value": served})
        else:
            env.append({"name": "SERVED_MODEL_NAME", "value": served})
        if not any(e.get("name") == "MODEL_PATH" for e in env):
            env.append({"name": "MODEL_PATH", "value": MODEL_MOUNT})
    if not env:
        del runner["env"]
    mounts = runner.setdefault("volumeMounts", [])
    if not any(m.get("name") == EMPTY_DIR for m in mounts):  # AppendVolumeMountIfNotExist: by name
        mounts.append({"name": EMPTY_DIR, "mountPath": MODEL_MOUNT})
