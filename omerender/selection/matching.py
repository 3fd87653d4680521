"""OME runtime matching and named-runtime validation over plain dicts (parsed YAML specs).

Mirrors ``pkg/runtimeselector`` (matcher.go, scorer.go, selector.go, errors.go) at OME commit
17b77eda, message texts included. Go pointer semantics: a key that is absent or ``null`` is a nil
pointer; a present value (even ``""`` or ``{}``) is set.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from omerender.data import Key
from omerender.names import clip
from omerender.ome import ACCELERATOR_CLASS as ACCELERATOR_ANNOTATION
from omerender.selection.versions import parse_model_size, versions_match

DEFAULT_PRIORITY = 1  # types.go NewConfig
MODEL_FORMAT_WEIGHT = 10  # used only when a weight is exactly 0
MODEL_FRAMEWORK_WEIGHT = 5
DISABLED_REASON = "runtime is disabled"
ACCELERATOR_REASON = "runtime does not support the required accelerator class"
NO_AUTOSELECT = "runtime does not have auto-select enabled for any supported format"
NON_POSITIVE_SCORE = "runtime has non-positive score"  # OME only logs this
_SELECTOR_KEYS = ("modelFormat", "modelFramework")
_COMPONENTS = ("scheduler", "textEncoder", "tokenizer", "transformer", "vae")
INT64_MIN = -(2**63)


class OMEPanic(RuntimeError):
    """Input on which OME itself would crash (nil-pointer dereference) instead of answering."""


def ptr(d: Any, key: str) -> Any:
    return d.get(key) if isinstance(d, dict) else None


def text(d: Any, key: str) -> Any:
    value = ptr(d, key)
    return "" if value is None else value


def formats(spec: dict[str, Any]) -> list[dict[str, Any]]:
    entries = ptr(spec, "supportedModelFormats") or []
    return [e if isinstance(e, dict) else {} for e in entries]


# --- CRD defaults, size bounds -------------------------------------------------------------


def apply_format_defaults(spec: dict[str, Any]) -> dict[str, Any]:
    """A runtime spec or model spec with the CRD defaults applied: operator 'Equal' and weight 1 on
    modelFormat and modelFramework (for runtimes: inside every supportedModelFormats[] entry; for
    models: spec.modelFormat / spec.modelFramework). ``null`` counts as unset (the API server
    prunes nulls before defaulting).

    Only the containers on the way to a defaulted field are copied; the rest is shared with
    ``spec``, so treat the result as read-only. This runs once per InferenceService and, during
    auto-selection, once per candidate runtime."""
    out = _defaulted(spec)
    entries = ptr(spec, "supportedModelFormats")
    if isinstance(entries, list):
        out["supportedModelFormats"] = [_defaulted(e) if isinstance(e, dict) else e for e in entries]
    return out


def _defaulted(target: dict[str, Any]) -> dict[str, Any]:
    out = dict(target)
    for key in _SELECTOR_KEYS:
        selector = out.get(key)
        if isinstance(selector, dict):
            out[key] = {
                **selector,
                **{f: d for f, d in (("operator", "Equal"), ("weight", 1)) if selector.get(f) is None},
            }
    return out


def size_bounds(runtime_spec: dict[str, Any], model_spec: dict[str, Any]) -> tuple[float, float, float] | None:
    """Parsed (model size, min, max) when both sides constrain size; OME dereferences both bounds."""
    size, size_range = ptr(model_spec, "modelParameterSize"), ptr(runtime_spec, "modelSizeRange")
    if size is None or size_range is None:
        return None
    for bound in ("min", "max"):
        if ptr(size_range, bound) is None:
            raise OMEPanic(
                "runtime error: invalid memory address or nil pointer dereference "
                f"(modelSizeRange.{bound} is unset; OME dereferences both bounds)"
            )
    return parse_model_size(size), parse_model_size(size_range["min"]), parse_model_size(size_range["max"])


# --- per-entry matching (compareSupportedModelFormats / getFormatMismatchReason) -----------


def _component_reason(name: str, model_c: Any, runtime_c: Any) -> str | None:
    if runtime_c is None:
        return None
    if model_c is None:
        return f"component {name} required by runtime but not specified in model"
    for field in ("library", "type"):
        want, got = text(runtime_c, field), text(model_c, field)
        if want not in ("", got):
            return f"{name} {field} mismatch (model={got}, runtime={want})"
    return None


def _pipeline_reason(model_p: Any, runtime_p: Any) -> str | None:
    """``compareDiffusionPipeline``: None when compatible. ``additionalComponents`` are visited
    in document order (Go iterates a map, so with several failures OME's pick is random)."""
    if runtime_p is None:
        return None
    if model_p is None:
        return "diffusion pipeline required by runtime but not specified in model"
    cls, model_cls = ptr(runtime_p, "className"), ptr(model_p, "className")
    if cls is not None and (model_cls is None or model_cls != cls):
        shown = "<nil>" if model_cls is None else model_cls
        return f"pipeline class mismatch (model={shown}, runtime={cls})"
    for name in _COMPONENTS:
        reason = _component_reason(name, ptr(model_p, name), ptr(runtime_p, name))
        if reason:
            return reason
    extra, model_extra = ptr(runtime_p, "additionalComponents"), ptr(model_p, "additionalComponents")
    if not extra:
        return None
    if not model_extra:
        return "diffusion pipeline missing required additional components"
    for key, component in extra.items():
        if key not in model_extra:
            return f"diffusion component {key} missing in model"
        reason = _component_reason(key, model_extra[key] or {}, component or {})
        if reason:
            return reason
    return None


def _optional_reasons(what: str, model_v: Any, runtime_v: Any) -> list[str]:
    if model_v is not None and runtime_v is not None:
        return [f"{what} mismatch (model={model_v}, runtime={runtime_v})"] if model_v != runtime_v else []
    if model_v is None and runtime_v is not None:
        return [f"model has no {what} but runtime requires {runtime_v}"]
    if model_v is not None:
        return [f"model has {what} {model_v} but runtime has no {what} requirement"]
    return []


def _selector_reasons(what: str, model_sel: dict[str, Any], runtime_sel: dict[str, Any]) -> list[str]:
    """Name and version of modelFormat/modelFramework, both sides set (``what``: format|framework)."""
    model_name, runtime_name = text(model_sel, "name"), text(runtime_sel, "name")
    if runtime_name != model_name:
        return [f"{what} name mismatch (model={model_name}, runtime={runtime_name})"]
    model_v, runtime_v = ptr(model_sel, "version"), ptr(runtime_sel, "version")
    if model_v is not None and runtime_v is not None:
        if versions_match(runtime_v, model_v, ptr(runtime_sel, "operator")):
            return []
        return [f"{what} version mismatch (model={model_v}, runtime={runtime_v})"]
    if runtime_v is not None:
        return [f"model has no {what} version but runtime requires {runtime_v}"]
    if model_v is not None:
        return [f"model has {what} version but runtime has no version requirement"]
    return []


def entry_mismatches(model: dict[str, Any], entry: dict[str, Any]) -> list[str]:
    """The reason fragments ``getFormatMismatchReason`` collects for one supported format."""
    reasons = []
    pipeline = _pipeline_reason(ptr(model, "diffusionPipeline"), ptr(entry, "diffusionPipeline"))
    if pipeline is not None:
        reasons.append(pipeline or "diffusion pipeline mismatch")
    for what, key in (("architecture", "modelArchitecture"), ("quantization", "quantization")):
        reasons += _optional_reasons(what, ptr(model, key), ptr(entry, key))
    if ptr(entry, "modelFormat") is not None:
        reasons += _selector_reasons("format", ptr(model, "modelFormat") or {}, entry["modelFormat"])
    model_fw, runtime_fw = ptr(model, "modelFramework"), ptr(entry, "modelFramework")
    if model_fw is not None and runtime_fw is not None:
        reasons += _selector_reasons("framework", model_fw, runtime_fw)
    elif runtime_fw is not None:
        reasons.append(f"model has no framework but runtime requires {text(runtime_fw, 'name')}")
    elif model_fw is not None:
        reasons.append(f"model has framework {text(model_fw, 'name')} but runtime has no framework requirement")
    return reasons


def entry_matches(model: dict[str, Any], entry: dict[str, Any]) -> bool:
    """``compareSupportedModelFormats``: an entry without ``modelFormat`` never matches."""
    return ptr(entry, "modelFormat") is not None and not entry_mismatches(model, entry)


def format_label(model: dict[str, Any]) -> str:
    """``getModelFormatLabel``: ``mt:<format>[:<ver>][:<arch>][:<quant>][:<fw>[:<fwver>]]``."""
    fmt, framework = ptr(model, "modelFormat") or {}, ptr(model, "modelFramework")
    parts = [f"mt:{text(fmt, 'name')}"]
    for value in (ptr(fmt, "version"), ptr(model, "modelArchitecture"), ptr(model, "quantization")):
        if value is not None:
            parts.append(f"{value}")
    if framework is not None:
        parts.append(f"{text(framework, 'name')}")
        if ptr(framework, "version") is not None:
            parts.append(f"{framework['version']}")
    return ":".join(parts)


# --- compatibility and named-runtime validation -------------------------------------------


def _size_reason(runtime_spec: dict[str, Any], model_spec: dict[str, Any]) -> str | None:
    sizes = size_bounds(runtime_spec, model_spec)
    if sizes is None or not (sizes[0] < sizes[1] or sizes[0] > sizes[2]):
        return None  # written as in Go: a NaN anywhere passes
    bounds = runtime_spec["modelSizeRange"]
    return (
        f"model size {clip(model_spec['modelParameterSize'])} is outside supported range "
        f"[{clip(bounds['min'])}, {clip(bounds['max'])}]"
    )


def incompatibility(
    runtime_spec: dict[str, Any], model_spec: dict[str, Any], required_classes: Iterable[str] = ()
) -> str | None:
    """OME GetCompatibilityDetails for a runtime: None when compatible, else the first reason
    string, exactly as OME words it: disabled, then the accelerator classes the InferenceService
    requires (``required_classes``, matcher.go:77-82), then the formats and the size. Raises
    ``OMEPanic`` for a one-sided ``modelSizeRange`` when OME would dereference it."""
    if ptr(runtime_spec, "disabled") is True:
        return DISABLED_REASON
    if not accelerator_compatible(runtime_spec, required_classes):
        return ACCELERATOR_REASON
    reasons = []
    for entry in formats(runtime_spec):
        if entry_matches(model_spec, entry):
            return _size_reason(runtime_spec, model_spec)
        reasons.append(", ".join(entry_mismatches(model_spec, entry)) or "unknown mismatch")
    detail = "; ".join(reasons) or "no supported formats defined"
    return f"model format '{format_label(model_spec)}' not in supported formats: {detail}"


FORMAT_NAME_REQUIRED = "model format name is required"  # the model agent fills it in a cluster


def model_error(model_spec: dict[str, Any] | None) -> str | None:
    """``validateModel`` as the ``ModelValidationError`` text, or None."""
    if model_spec is None:
        return "invalid model specification: model: model specification is nil"
    if text(ptr(model_spec, "modelFormat"), "name") == "":
        return "invalid model specification: modelFormat.name: " + FORMAT_NAME_REQUIRED
    return None


def validate_named_runtime(
    runtime_name: str, runtime_spec: dict[str, Any], namespaced: bool, model_spec: dict[str, Any]
) -> str | None:
    """OME ValidateRuntime steps 1,3,4,5 (the fetch step is the caller's job): the OME error
    text or None. autoSelect is not required for a named runtime."""
    error = model_error(model_spec)
    if error:
        return error
    if ptr(runtime_spec, "disabled") is True:
        scope = "namespace-scoped" if namespaced else "cluster-scoped"
        return f"{scope} runtime {runtime_name} is disabled"
    reason = incompatibility(runtime_spec, model_spec)
    if reason is None:
        return None
    return f"runtime {runtime_name} does not support model {model_spec['modelFormat']['name']}: {reason}"


def required_classes(body: dict[str, Any]) -> tuple[list[str], list[tuple[Key, ...]]]:
    """The accelerator classes an InferenceService requires, and where each is written, as ``compareAcceleratorClass``
    collects them (matcher.go:266-279): the annotation when present (even empty), then each ``acceleratorClass``
    that is set (a non-nil pointer, even ``""``)."""
    classes: list[str] = []
    where: list[tuple[Key, ...]] = []
    annotations = (body.get("metadata") or {}).get("annotations") or {}
    if isinstance(annotations, dict) and annotations.get(ACCELERATOR_ANNOTATION) is not None:
        classes.append(str(annotations[ACCELERATOR_ANNOTATION]))
        where.append(("metadata", "annotations", ACCELERATOR_ANNOTATION))
    spec = body.get("spec") or {}
    for keys in (("acceleratorSelector",), ("engine", "acceleratorOverride"), ("decoder", "acceleratorOverride")):
        part: Any = spec
        for key in keys:
            part = part.get(key) if isinstance(part, dict) else None
        if isinstance(part, dict) and part.get("acceleratorClass") is not None:
            classes.append(str(part["acceleratorClass"]))
            where.append(("spec", *keys, "acceleratorClass"))
    return classes, where


def accelerator_compatible(runtime_spec: dict[str, Any], required_classes: Iterable[str]) -> bool:
    """``compareAcceleratorClass`` given the union of classes the InferenceService requires."""
    required = set(required_classes)
    if not required:
        return True
    classes = ptr(ptr(runtime_spec, "acceleratorRequirements"), "acceleratorClasses") or []
    return bool(classes) and required <= set(classes)
