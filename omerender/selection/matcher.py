"""OME runtime matching, validation and auto-selection over plain dicts (parsed YAML specs).

Mirrors ``pkg/runtimeselector`` (matcher.go, scorer.go, selector.go, errors.go) at OME commit
17b77eda, message texts included. Go pointer semantics: a key that is absent or ``null`` is a nil
pointer; a present value (even ``""`` or ``{}``) is set. The accelerator-class step of
``GetCompatibilityDetails`` is not part of ``incompatibility``; see ``accelerator_compatible``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cmp_to_key
from typing import Any

from omerender.selection.versions import parse_model_size, versions_match  # parse_model_size is part of this API

DEFAULT_PRIORITY = 1  # types.go NewConfig
MODEL_FORMAT_WEIGHT = 10  # used only when a weight is exactly 0
MODEL_FRAMEWORK_WEIGHT = 5
DISABLED_REASON = "runtime is disabled"
ACCELERATOR_REASON = "runtime does not support the required accelerator class"
NO_AUTOSELECT = "runtime does not have auto-select enabled for any supported format"
NON_POSITIVE_SCORE = "runtime has non-positive score"  # OME only logs this
_SELECTOR_KEYS = ("modelFormat", "modelFramework")
_COMPONENTS = ("scheduler", "textEncoder", "tokenizer", "transformer", "vae")
_INT64_MIN = -(2**63)


class OMEPanic(RuntimeError):
    """Input on which OME itself would crash (nil-pointer dereference) instead of answering."""


def _ptr(d: Any, key: str) -> Any:
    return d.get(key) if isinstance(d, dict) else None


def _str(d: Any, key: str) -> Any:
    value = _ptr(d, key)
    return "" if value is None else value


def _formats(spec: dict) -> list[dict]:
    entries = _ptr(spec, "supportedModelFormats") or []
    return [e if isinstance(e, dict) else {} for e in entries]


# --- CRD defaults, size bounds -------------------------------------------------------------


def apply_format_defaults(spec: dict) -> dict:
    """A runtime spec or model spec with the CRD defaults applied: operator 'Equal' and weight 1 on
    modelFormat and modelFramework (for runtimes: inside every supportedModelFormats[] entry; for
    models: spec.modelFormat / spec.modelFramework). ``null`` counts as unset (the API server
    prunes nulls before defaulting).

    Only the containers on the way to a defaulted field are copied; the rest is shared with
    ``spec``, so treat the result as read-only. This runs once per InferenceService and, during
    auto-selection, once per candidate runtime."""
    out = _defaulted(spec)
    entries = _ptr(spec, "supportedModelFormats")
    if isinstance(entries, list):
        out["supportedModelFormats"] = [_defaulted(e) if isinstance(e, dict) else e for e in entries]
    return out


def _defaulted(target: dict) -> dict:
    out = dict(target)
    for key in _SELECTOR_KEYS:
        selector = out.get(key)
        if isinstance(selector, dict):
            out[key] = {
                **selector,
                **{f: d for f, d in (("operator", "Equal"), ("weight", 1)) if selector.get(f) is None},
            }
    return out


def _sizes(runtime_spec: dict, model_spec: dict) -> tuple[float, float, float] | None:
    """Parsed (model size, min, max) when both sides constrain size; OME dereferences both bounds."""
    size, size_range = _ptr(model_spec, "modelParameterSize"), _ptr(runtime_spec, "modelSizeRange")
    if size is None or size_range is None:
        return None
    for bound in ("min", "max"):
        if _ptr(size_range, bound) is None:
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
        want, got = _str(runtime_c, field), _str(model_c, field)
        if want != "" and want != got:
            return f"{name} {field} mismatch (model={got}, runtime={want})"
    return None


def _pipeline_reason(model_p: Any, runtime_p: Any) -> str | None:
    """``compareDiffusionPipeline``: None when compatible. ``additionalComponents`` are visited
    in document order (Go iterates a map, so with several failures OME's pick is random)."""
    if runtime_p is None:
        return None
    if model_p is None:
        return "diffusion pipeline required by runtime but not specified in model"
    cls, model_cls = _ptr(runtime_p, "className"), _ptr(model_p, "className")
    if cls is not None and (model_cls is None or model_cls != cls):
        shown = "<nil>" if model_cls is None else model_cls
        return f"pipeline class mismatch (model={shown}, runtime={cls})"
    for name in _COMPONENTS:
        reason = _component_reason(name, _ptr(model_p, name), _ptr(runtime_p, name))
        if reason:
            return reason
    extra, model_extra = _ptr(runtime_p, "additionalComponents"), _ptr(model_p, "additionalComponents")
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


def _selector_reasons(what: str, model_sel: dict, runtime_sel: dict) -> list[str]:
    """Name and version of modelFormat/modelFramework, both sides set (``what``: format|framework)."""
    model_name, runtime_name = _str(model_sel, "name"), _str(runtime_sel, "name")
    if runtime_name != model_name:
        return [f"{what} name mismatch (model={model_name}, runtime={runtime_name})"]
    model_v, runtime_v = _ptr(model_sel, "version"), _ptr(runtime_sel, "version")
    if model_v is not None and runtime_v is not None:
        if versions_match(runtime_v, model_v, _ptr(runtime_sel, "operator")):
            return []
        return [f"{what} version mismatch (model={model_v}, runtime={runtime_v})"]
    if runtime_v is not None:
        return [f"model has no {what} version but runtime requires {runtime_v}"]
    if model_v is not None:
        return [f"model has {what} version but runtime has no version requirement"]
    return []


def entry_mismatches(model: dict, entry: dict) -> list[str]:
    """The reason fragments ``getFormatMismatchReason`` collects for one supported format."""
    reasons = []
    pipeline = _pipeline_reason(_ptr(model, "diffusionPipeline"), _ptr(entry, "diffusionPipeline"))
    if pipeline is not None:
        reasons.append(pipeline or "diffusion pipeline mismatch")
    for what, key in (("architecture", "modelArchitecture"), ("quantization", "quantization")):
        reasons += _optional_reasons(what, _ptr(model, key), _ptr(entry, key))
    if _ptr(entry, "modelFormat") is not None:
        reasons += _selector_reasons("format", _ptr(model, "modelFormat") or {}, entry["modelFormat"])
    model_fw, runtime_fw = _ptr(model, "modelFramework"), _ptr(entry, "modelFramework")
    if model_fw is not None and runtime_fw is not None:
        reasons += _selector_reasons("framework", model_fw, runtime_fw)
    elif runtime_fw is not None:
        reasons.append(f"model has no framework but runtime requires {_str(runtime_fw, 'name')}")
    elif model_fw is not None:
        reasons.append(f"model has framework {_str(model_fw, 'name')} but runtime has no framework requirement")
    return reasons


def entry_matches(model: dict, entry: dict) -> bool:
    """``compareSupportedModelFormats``: an entry without ``modelFormat`` never matches."""
    return _ptr(entry, "modelFormat") is not None and not entry_mismatches(model, entry)


def format_label(model: dict) -> str:
    """``getModelFormatLabel``: ``mt:<format>[:<ver>][:<arch>][:<quant>][:<fw>[:<fwver>]]``."""
    fmt, framework = _ptr(model, "modelFormat") or {}, _ptr(model, "modelFramework")
    parts = [f"mt:{_str(fmt, 'name')}"]
    for value in (_ptr(fmt, "version"), _ptr(model, "modelArchitecture"), _ptr(model, "quantization")):
        if value is not None:
            parts.append(f"{value}")
    if framework is not None:
        parts.append(f"{_str(framework, 'name')}")
        if _ptr(framework, "version") is not None:
            parts.append(f"{framework['version']}")
    return ":".join(parts)


# --- compatibility and named-runtime validation -------------------------------------------


def _size_reason(runtime_spec: dict, model_spec: dict) -> str | None:
    sizes = _sizes(runtime_spec, model_spec)
    if sizes is None or not (sizes[0] < sizes[1] or sizes[0] > sizes[2]):
        return None  # written as in Go: a NaN anywhere passes
    bounds = runtime_spec["modelSizeRange"]
    return (
        f"model size {model_spec['modelParameterSize']} is outside supported range [{bounds['min']}, {bounds['max']}]"
    )


def incompatibility(runtime_spec: dict, model_spec: dict) -> str | None:
    """OME GetCompatibilityDetails for a runtime: None when compatible, else the first reason
    string, exactly as OME words it. Accelerator-class check is NOT done here. Raises
    ``OMEPanic`` for a one-sided ``modelSizeRange`` when OME would dereference it."""
    if _ptr(runtime_spec, "disabled") is True:
        return DISABLED_REASON
    reasons = []
    for entry in _formats(runtime_spec):
        if entry_matches(model_spec, entry):
            return _size_reason(runtime_spec, model_spec)
        reasons.append(", ".join(entry_mismatches(model_spec, entry)) or "unknown mismatch")
    detail = "; ".join(reasons) or "no supported formats defined"
    return f"model format '{format_label(model_spec)}' not in supported formats: {detail}"


def model_error(model_spec: dict | None) -> str | None:
    """``validateModel`` as the ``ModelValidationError`` text, or None."""
    if model_spec is None:
        return "invalid model specification: model: model specification is nil"
    if _str(_ptr(model_spec, "modelFormat"), "name") == "":
        return "invalid model specification: modelFormat.name: model format name is required"
    return None


def validate_named_runtime(runtime_name: str, runtime_spec: dict, namespaced: bool, model_spec: dict) -> str | None:
    """OME ValidateRuntime steps 1,3,4,5 (the fetch step is the caller's job): the OME error
    text or None. autoSelect is not required for a named runtime."""
    error = model_error(model_spec)
    if error:
        return error
    if _ptr(runtime_spec, "disabled") is True:
        scope = "namespace-scoped" if namespaced else "cluster-scoped"
        return f"{scope} runtime {runtime_name} is disabled"
    reason = incompatibility(runtime_spec, model_spec)
    if reason is None:
        return None
    return f"runtime {runtime_name} does not support model {model_spec['modelFormat']['name']}: {reason}"


def accelerator_compatible(runtime_spec: dict, required_classes: Iterable[str]) -> bool:
    """``compareAcceleratorClass`` given the union of classes the InferenceService requires."""
    required = set(required_classes)
    if not required:
        return True
    classes = _ptr(_ptr(runtime_spec, "acceleratorRequirements"), "acceleratorClasses") or []
    return bool(classes) and required <= set(classes)


# --- scoring (scorer.go) ------------------------------------------------------------------


def _scored_versions_ok(runtime_sel: dict, model_sel: dict) -> bool:
    runtime_v, model_v = _ptr(runtime_sel, "version"), _ptr(model_sel, "version")
    if runtime_v is None or model_v is None:
        return True  # the scorer, unlike the matcher, accepts a one-sided version
    return versions_match(runtime_v, model_v, _ptr(runtime_sel, "operator"))


def format_score(model: dict, entry: dict, priority: int) -> int:
    """``CalculateFormatScore``: looks only at format and framework names and versions."""
    fmt, model_fmt = _ptr(entry, "modelFormat"), _ptr(model, "modelFormat") or {}
    fmt_ok = fw_ok = False
    if fmt is not None:
        if _str(fmt, "name") != _str(model_fmt, "name") or not _scored_versions_ok(fmt, model_fmt):
            return 0
        fmt_ok = True
    fw, model_fw = _ptr(entry, "modelFramework"), _ptr(model, "modelFramework")
    if fw is not None and model_fw is not None:
        if _str(fw, "name") != _str(model_fw, "name") or not _scored_versions_ok(fw, model_fw):
            return 0
        fw_ok = True
    if not (fmt_ok or fmt is None) or not (fw_ok or (fw is None and model_fw is None)):
        return 0
    score = 0
    if fmt_ok:
        score += (_ptr(fmt, "weight") or MODEL_FORMAT_WEIGHT) * priority
    if fw_ok:
        score += (_ptr(fw, "weight") or MODEL_FRAMEWORK_WEIGHT) * priority
    return score


def runtime_score(runtime_spec: dict, model: dict) -> int:
    """``CalculateScore``: max (floor 0) over entries whose autoSelect is not explicitly false."""
    scores = [
        format_score(model, e, DEFAULT_PRIORITY if _ptr(e, "priority") is None else e["priority"])
        for e in _formats(runtime_spec)
        if _ptr(e, "autoSelect") is not False
    ]
    return max([0, *scores])


def supported_format_index(runtime_spec: dict, model_spec: dict, user_specified: bool) -> int | None:
    """``GetSupportedModelFormat`` (after CRD defaults): index of the entry that configures the
    pods, or None. Auto-selected runtimes consider only ``autoSelect: true`` entries."""
    best, best_score = None, 0
    for index, entry in enumerate(_formats(apply_format_defaults(runtime_spec))):
        if not user_specified and _ptr(entry, "autoSelect") is not True:
            continue
        score = format_score(model_spec, entry, DEFAULT_PRIORITY)
        if score > best_score:
            best, best_score = index, score
    return best


# --- selection (selector.go) --------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    name: str
    namespaced: bool
    spec: dict  # the runtime's OWN spec (no inheritance)


@dataclass(frozen=True)
class Ranked:
    name: str
    namespaced: bool
    score: float  # an integer in OME (int64)
    size_distance: float | None  # None when the model has no size; 0.0 for a runtime without range


@dataclass(frozen=True)
class Selection:
    chosen: Ranked | None
    ranked: tuple[Ranked, ...]  # OME's final order (namespaced group first)
    excluded: tuple[tuple[str, str], ...]  # incompatible runtimes, evaluation order, first reason
    error: str | None  # model validation error, or the full "no runtime found ..." text
    tie: bool  # winner and runner-up equal on score and size distance
    skipped: tuple[tuple[str, str], ...] = ()  # compatible but not auto-selectable (OME only logs)


def _go_int(x: float) -> int:
    """Go ``int(float64)`` on amd64: truncation; NaN and out-of-range give math.MinInt64."""
    if isinstance(x, int):
        return x
    if not math.isfinite(x) or abs(x) >= 2**63:
        return _INT64_MIN
    return int(x)


def compare_ranked(a: Ranked, b: Ranked) -> int:
    """``CompareRuntimes``: > 0 when ``a`` ranks first. A size-distance difference below one
    parameter truncates to 0 and ends the comparison (no name tie-break)."""
    if a.score != b.score:
        return _go_int(a.score - b.score)
    if a.size_distance is not None and b.size_distance is not None and a.size_distance != b.size_distance:
        return _go_int(b.size_distance - a.size_distance)
    if a.namespaced != b.namespaced:
        return 1 if a.namespaced else -1
    return (a.name < b.name) - (a.name > b.name)


def _is_tie(a: Ranked, b: Ranked) -> bool:
    if a.score != b.score:
        return False
    if a.size_distance is None or b.size_distance is None or a.size_distance == b.size_distance:
        return True
    return _go_int(b.size_distance - a.size_distance) == 0


def _size_distance(runtime_spec: dict, model: dict) -> float | None:
    """``calculateSizeScore``: |min-size| + |max-size|, 0 without a range; None without size."""
    if _ptr(model, "modelParameterSize") is None:
        return None
    sizes = _sizes(runtime_spec, model)
    return 0.0 if sizes is None else abs(sizes[1] - sizes[0]) + abs(sizes[2] - sizes[0])


def _scan(group: list[Candidate], model: dict, excluded: list, skipped: list) -> list[Ranked]:
    """``evaluateRuntime`` over one scope, then ``sortMatches``."""
    matches = []
    for candidate in group:
        spec = apply_format_defaults(candidate.spec)
        reason = incompatibility(spec, model)
        if reason is not None:
            excluded.append((candidate.name, reason))
        elif not any(_ptr(e, "autoSelect") is True for e in _formats(spec)):
            skipped.append((candidate.name, NO_AUTOSELECT))
        elif (score := runtime_score(spec, model)) <= 0:
            skipped.append((candidate.name, NON_POSITIVE_SCORE))
        else:
            matches.append(Ranked(candidate.name, candidate.namespaced, score, _size_distance(spec, model)))
    return sorted(matches, key=cmp_to_key(lambda a, b: -compare_ranked(a, b)))


def no_runtime_found_message(
    format_name: str, namespace: str, namespaced: int, cluster: int, excluded: Iterable[tuple[str, str]]
) -> str:
    """``NoRuntimeFoundError.Error()``. OME keys the exclusions by name in a Go map: duplicates
    collapse (last reason wins) and OME's order is random; here it is evaluation order."""
    name = format_name or "unknown"
    text = f"no runtime found to support model {name} with format {format_name} in namespace {namespace}"
    if namespaced + cluster > 0:
        text += f". Checked {namespaced + cluster} runtimes ({namespaced} namespace-scoped, {cluster} cluster-scoped)"
    by_name = dict(excluded)
    if by_name:
        text += ". Excluded runtimes: " + "; ".join(f"{n} ({r})" for n, r in by_name.items())
    return text


def select_runtime(candidates: list[Candidate], model_spec: dict, namespace: str) -> Selection:
    """OME auto-selection (``SelectRuntime``). Each scope is evaluated in name order (offline
    there is no creationTimestamp), sorted by ``compare_ranked``, namespaced scope first.
    Raises ``OMEPanic`` where OME would crash (one-sided ``modelSizeRange``)."""
    error = model_error(model_spec)
    if error:
        return Selection(None, (), (), error, False)
    namespaced = sorted((c for c in candidates if c.namespaced), key=lambda c: c.name)
    cluster = sorted((c for c in candidates if not c.namespaced), key=lambda c: c.name)
    excluded: list[tuple[str, str]] = []
    skipped: list[tuple[str, str]] = []
    ranked = (*_scan(namespaced, model_spec, excluded, skipped), *_scan(cluster, model_spec, excluded, skipped))
    if not ranked:
        error = no_runtime_found_message(
            model_spec["modelFormat"]["name"], namespace, len(namespaced), len(cluster), excluded
        )
    tie = len(ranked) > 1 and _is_tie(ranked[0], ranked[1])
    return Selection(ranked[0] if ranked else None, ranked, tuple(excluded), error, tie, tuple(skipped))
