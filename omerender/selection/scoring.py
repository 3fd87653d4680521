"""OME runtime scoring and auto-selection (``pkg/runtimeselector`` scorer.go and selector.go at 17b77eda)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cmp_to_key
from typing import Any

from omerender.names import clip
from omerender.selection.matching import (
    DEFAULT_PRIORITY,
    INT64_MIN,
    MODEL_FORMAT_WEIGHT,
    MODEL_FRAMEWORK_WEIGHT,
    NO_AUTOSELECT,
    NON_POSITIVE_SCORE,
    apply_format_defaults,
    formats,
    incompatibility,
    model_error,
    ptr,
    size_bounds,
    text,
)
from omerender.selection.versions import versions_match

# --- scoring (scorer.go) ------------------------------------------------------------------


def _scored_versions_ok(runtime_sel: dict[str, Any], model_sel: dict[str, Any]) -> bool:
    runtime_v, model_v = ptr(runtime_sel, "version"), ptr(model_sel, "version")
    if runtime_v is None or model_v is None:
        return True  # the scorer, unlike the matcher, accepts a one-sided version
    return versions_match(runtime_v, model_v, ptr(runtime_sel, "operator"))


def format_score(model: dict[str, Any], entry: dict[str, Any], priority: int) -> int:
    """``CalculateFormatScore``: looks only at format and framework names and versions."""
    fmt, model_fmt = ptr(entry, "modelFormat"), ptr(model, "modelFormat") or {}
    fmt_ok = fw_ok = False
    if fmt is not None:
        if text(fmt, "name") != text(model_fmt, "name") or not _scored_versions_ok(fmt, model_fmt):
            return 0
        fmt_ok = True
    fw, model_fw = ptr(entry, "modelFramework"), ptr(model, "modelFramework")
    if fw is not None and model_fw is not None:
        if text(fw, "name") != text(model_fw, "name") or not _scored_versions_ok(fw, model_fw):
            return 0
        fw_ok = True
    if not (fmt_ok or fmt is None) or not (fw_ok or (fw is None and model_fw is None)):
        return 0
    score = 0
    if fmt_ok:
        score += (ptr(fmt, "weight") or MODEL_FORMAT_WEIGHT) * priority
    if fw_ok:
        score += (ptr(fw, "weight") or MODEL_FRAMEWORK_WEIGHT) * priority
    return score


def runtime_score(runtime_spec: dict[str, Any], model: dict[str, Any]) -> int:
    """``CalculateScore``: max (floor 0) over entries whose autoSelect is not explicitly false."""
    scores = [
        format_score(model, e, DEFAULT_PRIORITY if ptr(e, "priority") is None else e["priority"])
        for e in formats(runtime_spec)
        if ptr(e, "autoSelect") is not False
    ]
    return max([0, *scores])


def supported_format_index(
    runtime_spec: dict[str, Any], model_spec: dict[str, Any], user_specified: bool
) -> int | None:
    """``GetSupportedModelFormat`` (after CRD defaults): index of the entry that configures the
    pods, or None. Auto-selected runtimes consider only ``autoSelect: true`` entries."""
    best, best_score = None, 0
    for index, entry in enumerate(formats(apply_format_defaults(runtime_spec))):
        if not user_specified and ptr(entry, "autoSelect") is not True:
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
    spec: dict[str, Any]  # the runtime's OWN spec (no inheritance)


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
        return INT64_MIN
    return int(x)


def _best_first(a: Ranked, b: Ranked) -> int:
    return -compare_ranked(a, b)


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


def _size_distance(runtime_spec: dict[str, Any], model: dict[str, Any]) -> float | None:
    """``calculateSizeScore``: |min-size| + |max-size|, 0 without a range; None without size."""
    if ptr(model, "modelParameterSize") is None:
        return None
    sizes = size_bounds(runtime_spec, model)
    return 0.0 if sizes is None else abs(sizes[1] - sizes[0]) + abs(sizes[2] - sizes[0])


def _scan(
    group: list[Candidate], model: dict[str, Any], required: frozenset[str], excluded: list[Any], skipped: list[Any]
) -> list[Ranked]:
    """``evaluateRuntime`` over one scope, then ``sortMatches``: a runtime lacking an accelerator class the
    InferenceService requires is dropped before ranking (selector.go:227-239, matcher.go:77-82)."""
    matches = []
    for candidate in group:
        spec = apply_format_defaults(candidate.spec)
        reason = incompatibility(spec, model, required)
        if reason is not None:
            excluded.append((candidate.name, reason))
        elif not any(ptr(e, "autoSelect") is True for e in formats(spec)):
            skipped.append((candidate.name, NO_AUTOSELECT))
        elif (score := runtime_score(spec, model)) <= 0:
            skipped.append((candidate.name, NON_POSITIVE_SCORE))
        else:
            matches.append(Ranked(candidate.name, candidate.namespaced, score, _size_distance(spec, model)))
    return sorted(matches, key=cmp_to_key(_best_first))


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
        text += ". Excluded runtimes: " + "; ".join(f"{clip(n)} ({clip(r, MAX_REASON)})" for n, r in nearest(by_name))
        if len(by_name) > MAX_NEAREST:
            text += f"; and {len(by_name) - MAX_NEAREST} more, further off (every one with -v)"
    return text


MAX_NEAREST = 5  # excluded runtimes a selection failure names: one readable line among hundreds of runtimes
MAX_REASON = 240


def nearest(by_name: dict[str, str]) -> list[tuple[str, str]]:
    """At most ``MAX_NEAREST`` excluded runtimes, nearest misses first: fewest reasons (a runtime off by its
    framework version alone before one off by architecture and version), then evaluation order. All of them,
    in evaluation order, when there are no more."""
    if len(by_name) <= MAX_NEAREST:
        return list(by_name.items())
    order = {name: i for i, name in enumerate(by_name)}
    ranked = sorted(by_name.items(), key=lambda item: (item[1].count(", ") + 1, order[item[0]]))
    return ranked[:MAX_NEAREST]


def select_runtime(
    candidates: list[Candidate], model_spec: dict[str, Any], namespace: str, required_classes: Iterable[str] = ()
) -> Selection:
    """OME auto-selection (``SelectRuntime``) for an InferenceService requiring ``required_classes``. Each scope is
    evaluated in name order (offline there is no creationTimestamp), sorted by ``compare_ranked``, namespaced scope
    first. Raises ``OMEPanic`` where OME would crash (one-sided ``modelSizeRange``)."""
    required = frozenset(required_classes)
    error = model_error(model_spec)
    if error:
        return Selection(None, (), (), error, False)
    namespaced = sorted((c for c in candidates if c.namespaced), key=lambda c: c.name)
    cluster = sorted((c for c in candidates if not c.namespaced), key=lambda c: c.name)
    excluded: list[tuple[str, str]] = []
    skipped: list[tuple[str, str]] = []
    ranked = (
        *_scan(namespaced, model_spec, required, excluded, skipped),
        *_scan(cluster, model_spec, required, excluded, skipped),
    )
    if not ranked:
        error = no_runtime_found_message(
            model_spec["modelFormat"]["name"], namespace, len(namespaced), len(cluster), excluded
        )
    tie = len(ranked) > 1 and _is_tie(ranked[0], ranked[1])
    return Selection(ranked[0] if ranked else None, ranked, tuple(excluded), error, tie, tuple(skipped))
