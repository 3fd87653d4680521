"""Deployment modes: the InferenceService-level mode and the mode of each component.

Mirrors ``utils/annotations.go`` (``GetDeploymentMode``) and ``utils/deployment.go``
(``DetermineDeploymentModes``) at OME commit 17b77eda (ome-rendering §3.1, ome-selection §3.5).
"""

from __future__ import annotations

from typing import Any

from omerender.ome import COMPONENTS, DEPLOYMENT_MODE

RAW = "RawDeployment"
MULTI_NODE = "MultiNode"
SERVERLESS = "Serverless"
RAY_VLLM = "MultiNodeRayVLLM"
VIRTUAL = "VirtualDeployment"
VALID_MODES = (SERVERLESS, RAW, RAY_VLLM, MULTI_NODE, VIRTUAL)  # constants.go IsValid()
DEFAULT_MODE = RAW  # inferenceservice-config deploy.defaultDeploymentMode as shipped


def mode_from_annotations(annotations: object) -> str | None:
    """``GetDeploymentModeFromAnnotations``: the annotation's value if it is a valid mode."""
    if not isinstance(annotations, dict):
        return None
    value = annotations.get(DEPLOYMENT_MODE)
    return value if value in VALID_MODES else None


def isvc_mode(annotations: object) -> str:
    """The InferenceService-level mode: a valid annotation, else the configured default.

    ``PDDisaggregated``, which the defaulting webhook writes, is not valid and is ignored.
    """
    return mode_from_annotations(annotations) or DEFAULT_MODE


def _multi(spec: dict[str, Any]) -> bool:
    return spec.get("leader") is not None or spec.get("worker") is not None


def _zero_min(spec: dict[str, Any]) -> bool:
    value = spec.get("minReplicas")
    return value is not None and value == 0 and not isinstance(value, bool)


def engine_mode(engine: dict[str, Any]) -> str:
    """``DetermineEngineDeploymentMode``: the merged engine's own annotation, then leader/worker, then minReplicas."""
    found = mode_from_annotations(engine.get("annotations"))
    if found:
        return found
    if _multi(engine):
        return MULTI_NODE
    if _zero_min(engine):
        return SERVERLESS
    return RAW


def component_modes(merged: dict[str, dict[str, Any] | None]) -> tuple[dict[str, str], str | None]:
    """Each present component's mode, or OME's ``DeploymentModeError`` text."""
    engine, decoder, router = (merged.get(c) for c in COMPONENTS)
    modes: dict[str, str] = {}
    if engine is not None:
        modes["engine"] = engine_mode(engine)
    if decoder is not None:
        if modes.get("engine") == SERVERLESS:
            modes["engine"] = RAW
        modes["decoder"] = MULTI_NODE if _multi(decoder) else RAW
    if router is not None:
        modes["router"] = SERVERLESS if _zero_min(router) else RAW
    if engine is None:
        return modes, "engine component is required"
    return modes, None
