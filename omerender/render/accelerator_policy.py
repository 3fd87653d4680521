"""OME's accelerator selection policies: which AcceleratorClass a policy picks from a runtime's candidates.

Mirrors OME 17b77eda, ``pkg/acceleratorclassselector``: ``getAcceleratorClassByPolicy`` (``selector.go:107-169``),
``selectBestFit`` (:264-298), ``selectCheapest`` (:301-364), ``selectMostCapable`` (:367-404), and in
``policy_helpers.go`` ``candidatesFromNames`` (:23-57), ``meetsRequirements`` (:82-173), ``calculateBestFitScore``
(:178-193), ``calculateMemoryFitScore`` (:196-227), ``scoreFromTFLOPS`` (:234-249),
``calculateComputePerformanceTFLOPSScore`` (:262-317), ``findCheapestByCost`` (:333-344), ``tierToNumeric``
(:347-358), ``getCandidateRawValues`` (:368-397), ``computeMaxValues`` (:400-415), ``calculateCapabilityScore``
(:419-444), ``getTFLOPSForPrecision`` (:447-475), ``getMaxTFLOPS`` (:479-500) and ``sortScoredCandidates`` (:505-512).

Ties: scores are float64 in Go and Python alike, computed here in Go's order without fused multiply-add, as Go
compiles for amd64 by default (``dockerfiles/manager.Dockerfile:51`` builds for ``TARGETARCH``; on arm64 Go may fuse
``a*b + c``, which can move a score by one unit in the last place and so decide a near tie differently; classes with
equal capabilities tie on every architecture). ``sortScoredCandidates`` uses ``sort.Slice``, which is not stable
in general, but for 12 or fewer elements Go's pdqsort is an insertion sort, which is: the first of the tied top
scores in the runtime's ``acceleratorClasses`` order wins. With more than 12 survivors and a tie at the top the
winner depends on pdqsort's partitioning, which omerender does not emulate: it says so instead of guessing. No Go
map is iterated.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from omerender.render.quantity import parse

BEST_FIT, CHEAPEST, MOST_CAPABLE, FIRST_AVAILABLE = "BestFit", "Cheapest", "MostCapable", "FirstAvailable"
POLICIES = (BEST_FIT, CHEAPEST, MOST_CAPABLE, FIRST_AVAILABLE)
INSERTION_SORT_MAX = 12  # Go's sort.Slice sorts this many or fewer elements by (stable) insertion sort
GIB = 1024 * 1024 * 1024


@dataclass(frozen=True)
class Choice:
    name: str | None  # the class OME picks; None: no class, and the component runs without one
    how: str  # why, for a note
    crash: str | None = None  # OME's controller would panic here
    undecided: str | None = None  # OME's result depends on something omerender does not emulate


class _Unparsable(Exception):
    """A value OME's API server would have refused (a bad Quantity, a non-integer int64): nothing to compare."""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    """An int64 field; ``None`` for a nil pointer."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise _Unparsable(f"{value!r} where an integer belongs")


def _quantity(value: Any) -> Fraction | None:
    """A ``*resource.Quantity`` as the exact value ``Cmp`` compares; ``None`` for a nil pointer."""
    if value is None:
        return None
    try:
        return parse(value)
    except (ValueError, TypeError) as exc:
        raise _Unparsable(f"{value!r} where a quantity belongs") from exc


def _value(value: Any) -> int | None:
    """``Quantity.Value()``: rounded up (away from zero) to an integer."""
    q = _quantity(value)
    if q is None:
        return None
    return math.ceil(q) if q >= 0 else -math.ceil(-q)


def _go_div(a: int, b: int) -> int:
    """Go's integer division, which truncates toward zero."""
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b >= 0) else -quotient


def _equal_fold(a: str, b: str) -> bool:
    """``strings.EqualFold`` (exact for ASCII, Unicode simple case folding approximated)."""
    if len(a) != len(b):
        return False
    return all(x == y or x.lower() == y.lower() or x.upper() == y.upper() for x, y in zip(a, b, strict=True))


def meets_requirements(name: str, spec: dict[str, Any], constraints: dict[str, Any] | None) -> str | None:
    """``meetsRequirements`` (:82-173): ``None`` when eligible, else OME's reason."""
    if constraints is None:
        return None
    if name in [str(c) for c in constraints.get("excludedClasses") or []]:
        return "explicitly excluded"
    capabilities = _dict(spec.get("capabilities"))
    families = [str(f) for f in constraints.get("architectureFamilies") or []]
    if families:
        family = str(spec.get("family") or "").lower()
        vendor_family = f"{str(spec.get('vendor') or '').lower()}-{family}"
        if not any(_equal_fold(f, vendor_family if "-" in f else family) for f in families):
            return f"architecture family {family} not in allowed list"
    low, high = _int(constraints.get("minMemory")), _int(constraints.get("maxMemory"))
    if low is not None or high is not None:
        memory = _value(capabilities.get("memoryGB"))
        if memory is None:
            return "missing memory specification for memory check"
        gib = _go_div(memory, GIB)
        if low is not None and gib < low:
            return f"memory {gib}GB < required {low}GB"
        if high is not None and gib > high:
            return f"memory {gib}GB > max allowed {high}GB"
    features = {str(f).lower() for f in capabilities.get("features") or []}
    for required in constraints.get("requiredFeatures") or []:
        if str(required).lower() not in features:
            return f"missing required feature: {required}"
    wanted = constraints.get("minArchitectureVersion")
    if wanted is not None:
        have = str(capabilities.get("computeCapability") or "")
        if not have:
            return "missing compute capability for architecture version check"
        if have.encode() < str(wanted).encode():  # Go compares the strings' bytes
            return f"compute capability {have} < required {wanted}"
    return None


def _tflops_for(performance: Any, precision: str) -> int:
    """``getTFLOPSForPrecision`` (:447-475)."""
    if not isinstance(performance, dict):
        return 0
    key = {"fp32": "fp32Tflops", "fp16": "fp16Tflops", "int8": "int8Tops", "fp8": "int8Tops", "int4": "int4Tops"}
    field = key.get(precision.lower())
    found = _int(performance.get(field)) if field else None
    return 0 if found is None else found


def _max_tflops(performance: Any) -> int:
    """``getMaxTFLOPS`` (:479-500)."""
    best = 0
    for field in ("fp32Tflops", "fp16Tflops", "int8Tops", "int4Tops"):
        found = _int(performance.get(field)) if isinstance(performance, dict) else None
        if found is not None and found > best:
            best = found
    return best


def _score_from_tflops(tflops: int, required: int) -> float:
    """``scoreFromTFLOPS`` (:234-249)."""
    if tflops == 0:
        return 0.0
    if required == 0:
        return 1.0
    ratio = float(tflops) / float(required)
    return 1.0 if ratio >= 1.0 else ratio


def _memory_fit(spec: dict[str, Any], constraints: dict[str, Any]) -> float:
    """``calculateMemoryFitScore`` (:196-227); ``constraints`` is never nil here (``best_fit`` checks)."""
    low = _int(constraints.get("minMemory"))
    if low is None:
        return 1.0
    memory = _value(_dict(spec.get("capabilities")).get("memoryGB"))
    if memory is None:
        return 0.0
    have, want = float(memory) / GIB, float(low)
    if have < want:
        return 0.0
    if have == want:
        return 1.0
    ratio = have / want if want != 0.0 else math.copysign(math.inf, have)  # Go's float division by zero
    return 1.0 / ratio


def _compute_score(spec: dict[str, Any], constraints: dict[str, Any]) -> float:
    """``calculateComputePerformanceTFLOPSScore`` (:262-317)."""
    performance = _dict(spec.get("capabilities")).get("performance")
    if not isinstance(performance, dict):
        return 0.0
    required = _int(constraints.get("minComputePerformanceTFLOPS")) or 0
    precisions = [str(p) for p in constraints.get("preferredPrecisions") or []]
    if not precisions:
        return _score_from_tflops(_max_tflops(performance), required)
    penalty = 1.0
    for precision in precisions:
        tflops = _tflops_for(performance, precision)
        if tflops > 0:
            return _score_from_tflops(tflops, required) * penalty
        penalty *= 0.5
    if "fp16" not in (p.lower() for p in precisions):
        tflops = _tflops_for(performance, "fp16")
        if tflops > 0:
            return _score_from_tflops(tflops, required) * penalty
    return 0.0


def best_fit_score(spec: dict[str, Any], constraints: dict[str, Any]) -> float:
    """``calculateBestFitScore`` (:178-193): 70% memory fit, 30% compute."""
    return 0.70 * _memory_fit(spec, constraints) + 0.30 * _compute_score(spec, constraints)


def _raw_values(spec: dict[str, Any], precisions: list[str]) -> tuple[float, float, float]:
    """``getCandidateRawValues`` (:368-397): TFLOPS, memory in GiB, bandwidth."""
    capabilities = _dict(spec.get("capabilities"))
    performance = capabilities.get("performance")
    tflops = float(_tflops_for(performance, precisions[0].lower() if precisions else "fp16"))
    if tflops == 0.0 and len(precisions) > 1:
        for precision in precisions[1:]:
            fallback = _tflops_for(performance, precision)
            if fallback > 0:
                tflops = float(fallback)
                break
    memory = _value(capabilities.get("memoryGB"))
    bandwidth = _value(capabilities.get("memoryBandwidthGBps"))
    return tflops, 0.0 if memory is None else float(memory) / GIB, 0.0 if bandwidth is None else float(bandwidth)


def capability_scores(specs: list[dict[str, Any]], precisions: list[str]) -> list[float]:
    """``computeMaxValues`` then ``calculateCapabilityScore`` (:400-444) for each candidate."""
    raw = [_raw_values(spec, precisions) for spec in specs]
    top = [0.0, 0.0, 0.0]
    for values in raw:
        for i, value in enumerate(values):
            top[i] = max(top[i], value)
    scores = []
    for tflops, memory, bandwidth in raw:
        norm_tflops = tflops / top[0] if top[0] > 0 else 0.0
        norm_memory = memory / top[1] if top[1] > 0 else 0.0
        norm_bandwidth = bandwidth / top[2] if top[2] > 0 else 0.0
        scores.append(0.5 * norm_memory + 0.3 * norm_bandwidth + 0.2 * norm_tflops)
    return scores


def _highest(names: list[str], scores: list[float], policy: str, function: str) -> Choice:
    """``sortScoredCandidates(scored, false)`` then ``scored[0]``."""
    listed = ", ".join(f"{n} {s!r}" for n, s in zip(names, scores, strict=True))
    top = max(scores)
    tied = [n for n, s in zip(names, scores, strict=True) if s == top]
    if len(tied) > 1 and len(names) > INSERTION_SORT_MAX:
        return Choice(
            None,
            listed,
            undecided=(
                f"accelerator policy {policy}: {', '.join(tied)} tie at score {top!r} among {len(names)} candidates; "
                f"OME's sort.Slice (sortScoredCandidates, policy_helpers.go:505-512) is not stable above "
                f"{INSERTION_SORT_MAX} elements, and omerender does not emulate pdqsort's order"
            ),
        )
    how = f"{policy} scores ({function}): {listed}"
    if len(tied) > 1:
        how += f"; {', '.join(tied)} tie and Go's insertion sort keeps the runtime's order"
    return Choice(tied[0], how)


def _hourly(cost: dict[str, Any]) -> Any:
    """``getHourlyCost`` (:320-325): ``spotPerHour`` if set, else ``perHour``."""
    return cost.get("spotPerHour") if cost.get("spotPerHour") is not None else cost.get("perHour")


def _cheapest(names: list[str], specs: list[dict[str, Any]]) -> Choice:
    """``selectCheapest`` (:301-364): hourly cost, else per-million-tokens, else tier; the first of equals wins."""
    costs = [(n, spec["cost"]) for n, spec in zip(names, specs, strict=True) if isinstance(spec.get("cost"), dict)]
    groups: list[tuple[str, Callable[[dict[str, Any]], Any], Callable[[Any], Fraction | int]]] = [
        ("hourly", _hourly, lambda raw: _quantity(raw) or 0),
        ("per-million-tokens", lambda c: c.get("perMillionTokens"), lambda raw: _quantity(raw) or 0),
        ("tier", lambda c: c.get("tier") or None, lambda raw: _tier(str(raw))),
    ]
    for kind, raw_of, value_of in groups:
        members = [(n, raw_of(c)) for n, c in costs if raw_of(c) is not None]
        if not members:
            continue
        best_name, best = members[0][0], value_of(members[0][1])
        for name, raw in members[1:]:
            value = value_of(raw)
            if value < best:  # findCheapestByCost (:333-344) and the tier loop (:348-360): strictly less
                best_name, best = name, value
        listed = ", ".join(f"{n} {raw}" for n, raw in members)
        how = f"Cheapest by {kind} cost (selectCheapest): {listed}"
        tied = [n for n, raw in members if value_of(raw) == best]
        if len(tied) > 1:
            how += f"; {', '.join(tied)} cost the same and the first in the runtime's order wins"
        return Choice(best_name, how)
    return Choice(None, "Cheapest: no candidate has cost data, so OME selects no class (selectCheapest)")


def _tier(tier: str) -> int:
    """``tierToNumeric`` (:347-358)."""
    return {"low": 1, "medium": 2, "high": 3}.get(tier.lower(), 2)


def select(
    policy: str, candidates: list[str], classes: dict[str, dict[str, Any]], constraints: dict[str, Any] | None
) -> Choice:
    """``getAcceleratorClassByPolicy``: ``candidates`` is the runtime's list, ``classes`` the specs by name."""
    try:
        return _select(policy, candidates, classes, constraints)
    except _Unparsable as exc:
        message = (
            f"accelerator policy {policy}: a candidate AcceleratorClass holds {exc}, which Kubernetes would refuse"
        )
        return Choice(None, "", undecided=message)


def _select(
    policy: str, candidates: list[str], classes: dict[str, dict[str, Any]], constraints: dict[str, Any] | None
) -> Choice:
    names = list(dict.fromkeys(candidates))
    missing = [n for n in names if n not in classes]
    if missing:
        return Choice(None, f"AcceleratorClass {missing[0]} is not found, so OME's policy selects no class")
    survivors = [n for n in names if meets_requirements(n, classes[n], constraints) is None]
    if not survivors:
        return Choice(None, f"no AcceleratorClass passes the constraints, so policy {policy} selects no class")
    if policy == FIRST_AVAILABLE:
        return Choice(survivors[0], "FirstAvailable picks the first candidate that passes the constraints")
    if policy not in POLICIES:
        return Choice(None, f"unknown policy {policy}: OME selects no class")
    if len(survivors) == 1:
        return Choice(survivors[0], f"{policy}: the only candidate that passes the constraints, returned unscored")
    specs = [classes[n] for n in survivors]
    if policy == BEST_FIT:
        if constraints is None:
            return Choice(
                None,
                "",
                crash=(
                    f"accelerator policy BestFit without acceleratorSelector.constraints and {len(survivors)} "
                    "candidates: OME's calculateMemoryFitScore reads constraints.MinMemory through a nil pointer "
                    "(policy_helpers.go:200) and the controller crashes (nil-pointer panic); set constraints"
                ),
            )
        scores = [best_fit_score(spec, constraints) for spec in specs]
        return _highest(survivors, scores, policy, "calculateBestFitScore")
    if policy == MOST_CAPABLE:
        precisions = [str(p) for p in _dict(constraints).get("preferredPrecisions") or []]
        return _highest(survivors, capability_scores(specs, precisions), policy, "calculateCapabilityScore")
    return _cheapest(survivors, specs)
