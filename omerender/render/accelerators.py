"""What an InferenceService asks of AcceleratorClasses, and what omerender reports about it (ome-rendering §2.5)."""

from __future__ import annotations

from typing import Any

from omerender import codes
from omerender.diagnostics import ERROR, WARNING, Diagnostic
from omerender.load.obj import Obj
from omerender.ome import ACCELERATOR_CLASS as ACCELERATOR_ANNOTATION
from omerender.selection.matching import ACCELERATOR_REASON, accelerator_compatible


def required_classes(body: dict[str, Any]) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The union of accelerator classes an InferenceService requires, and where each is written."""
    classes: list[str] = []
    where: list[tuple[Any, ...]] = []
    annotations = (body.get("metadata") or {}).get("annotations") or {}
    if annotations.get(ACCELERATOR_ANNOTATION):
        classes.append(str(annotations[ACCELERATOR_ANNOTATION]))
        where.append(("metadata", "annotations", ACCELERATOR_ANNOTATION))
    spec = body.get("spec") or {}
    for keys in (("acceleratorSelector",), ("engine", "acceleratorOverride"), ("decoder", "acceleratorOverride")):
        part: Any = spec
        for key in keys:
            part = part.get(key) if isinstance(part, dict) else None
        if isinstance(part, dict) and part.get("acceleratorClass"):
            classes.append(str(part["acceleratorClass"]))
            where.append(("spec", *keys, "acceleratorClass"))
    return classes, where


def accelerator_findings(
    isvc: Obj, body: dict[str, Any], runtime_name: str, runtime_spec: dict[str, Any], model_name: str
) -> list[Diagnostic]:
    classes, where = required_classes(body)
    selector = (body.get("spec") or {}).get("acceleratorSelector")
    policy = selector.get("policy") if isinstance(selector, dict) else None
    if not classes and not policy:
        return []
    keys = where[0] if where else ("spec", "acceleratorSelector", "policy")
    named = bool(((body.get("spec") or {}).get("runtime") or {}).get("name"))
    wanted = ", ".join(classes) if classes else f"policy {policy}"
    out = [
        isvc.diag(
            WARNING,
            f"InferenceService asks for accelerator class {wanted}, but omerender does not model AcceleratorClasses: the "
            "rendered pods lack what a resolved class adds (resources, nodeSelector, affinity, env/args overrides) and "
            "carry PARALLELISM_SIZE, which OME omits when a class resolves",
            *keys,
            code=codes.ACCELERATOR_NOT_MODELLED,
        )
    ]
    if classes and not accelerator_compatible(runtime_spec, classes):
        if named:
            message = (
                f"Runtime {runtime_name} does not support model {model_name}: runtime {runtime_name} does not support "
                f"model : {ACCELERATOR_REASON}"
            )
            out.append(isvc.diag(ERROR, message, *keys, code=codes.RUNTIME_VALIDATION_ERROR))
        else:
            message = (
                f"OME's auto-selection excludes every runtime whose acceleratorRequirements.acceleratorClasses lacks "
                f"{wanted} ({ACCELERATOR_REASON}), so it would not select {runtime_name}"
            )
            out.append(isvc.diag(ERROR, message, *keys, code=codes.RUNTIME_SELECTION_ERROR))
    return out
