"""OME's accelerator policies (pkg/acceleratorclassselector at 17b77eda) as omerender.render.accelerator_policy."""

from __future__ import annotations

from typing import Any

import pytest

from omerender.render.accelerator_policy import (
    best_fit_score,
    capability_scores,
    meets_requirements,
    select,
)


def gpu(memory: str | None = "80Gi", **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"vendor": "nvidia", "family": "hopper", "capabilities": {}}
    if memory is not None:
        spec["capabilities"]["memoryGB"] = memory
    for key, value in extra.items():
        if key in ("cost", "vendor", "family"):
            spec[key] = value
        else:
            spec["capabilities"][key] = value
    return spec


def test_memory_bounds_use_integer_gib_of_the_rounded_up_value() -> None:
    # 80G is 74.5 GiB: Go's int64 division makes it 74, which passes maxMemory 74 and fails minMemory 75
    assert meets_requirements("a", gpu("80G"), {"maxMemory": 74}) is None
    assert meets_requirements("a", gpu("80G"), {"minMemory": 75}) == "memory 74GB < required 75GB"
    assert meets_requirements("a", gpu(None), {"maxMemory": 1}) == "missing memory specification for memory check"


def test_constraints_nil_versus_empty() -> None:
    assert meets_requirements("a", gpu(None), None) is None
    assert meets_requirements("a", gpu(None), {}) is None
    # a minArchitectureVersion that is set, even to "", needs a computeCapability
    assert meets_requirements("a", gpu(), {"minArchitectureVersion": ""}) == (
        "missing compute capability for architecture version check"
    )
    assert meets_requirements("a", gpu(computeCapability="10.0"), {"minArchitectureVersion": "9.0"}) == (
        "compute capability 10.0 < required 9.0"  # compared as strings, as OME does
    )


def test_architecture_families() -> None:
    assert meets_requirements("a", gpu(), {"architectureFamilies": ["NVIDIA-Hopper"]}) is None
    assert meets_requirements("a", gpu(), {"architectureFamilies": ["HOPPER"]}) is None
    assert meets_requirements("a", gpu(), {"architectureFamilies": ["amd-hopper"]}) == (
        "architecture family hopper not in allowed list"
    )


def test_best_fit_memory_ratio_and_zero_minimum() -> None:
    assert best_fit_score(gpu("80Gi"), {"minMemory": 40}) == 0.70 * 0.5 + 0.30 * 0.0  # no performance: compute 0
    # minMemory 0: Go divides by zero, ratio +Inf, score 0; an equal 0 would be 1.0
    assert best_fit_score(gpu("80Gi"), {"minMemory": 0}) == 0.0


def test_compute_score_precision_fallback_penalty() -> None:
    spec = gpu(performance={"fp16Tflops": 100})
    constraints = {"preferredPrecisions": ["int4", "fp8"], "minComputePerformanceTFLOPS": 200}
    # neither int4 nor fp8 (int8Tops) has a value: fp16 is the fallback at penalty 0.25
    assert best_fit_score(spec, constraints) == 0.70 * 1.0 + 0.30 * (0.5 * 0.25)


def test_capability_scores_normalise_against_the_candidates() -> None:
    scores = capability_scores(
        [gpu("40Gi", memoryBandwidthGBps="1000"), gpu("80Gi", memoryBandwidthGBps="2000")], precisions=[]
    )
    assert scores == [0.5 * 0.5 + 0.3 * 0.5, 0.5 * 1.0 + 0.3 * 1.0]


@pytest.mark.parametrize(
    ("costs", "winner"),
    [
        ([{"perHour": "3"}, {"spotPerHour": "2", "perHour": "9"}], "b"),  # spot before on-demand
        ([{"perHour": "2"}, {"perHour": "2000m"}], "a"),  # equal Quantities: the first wins
        ([{"perMillionTokens": "5"}, {"perMillionTokens": "4"}], "b"),
        ([{"tier": "HIGH"}, {"tier": "unknown"}, {"tier": "medium"}], "b"),  # unknown counts as medium, first wins
        ([{"tier": "low"}, {"perMillionTokens": "9"}], "b"),  # tokens before tier
    ],
)
def test_cheapest(costs: list[dict[str, Any]], winner: str) -> None:
    names = "abc"[: len(costs)]
    classes = {n: gpu(cost=c) for n, c in zip(names, costs, strict=True)}
    assert select("Cheapest", list(names), classes, None).name == winner


def test_cheapest_without_cost_data_selects_nothing() -> None:
    choice = select("Cheapest", ["a", "b"], {"a": gpu(), "b": gpu(cost={})}, None)
    assert choice.name is None and choice.crash is None and choice.undecided is None


def test_ties_insertion_sort_up_to_twelve_then_undecided() -> None:
    names = [f"g{i:02d}" for i in range(13)]
    classes = {n: gpu() for n in names}
    assert select("MostCapable", names[:12], classes, None).name == "g00"
    tied = select("MostCapable", names, classes, None)
    assert tied.name is None and tied.undecided is not None and "not stable above 12" in tied.undecided
    classes["g12"] = gpu("96Gi")
    assert select("MostCapable", names, classes, None).name == "g12"  # a unique top needs no stable sort


def test_best_fit_without_constraints() -> None:
    classes = {"a": gpu(), "b": gpu()}
    crash = select("BestFit", ["a", "b"], classes, None)
    assert crash.name is None and crash.crash is not None and "policy_helpers.go:200" in crash.crash
    assert select("BestFit", ["a"], classes, None).name == "a"  # one candidate: returned unscored
    assert select("BestFit", ["a", "b"], classes, {}).name == "a"  # empty constraints: not nil


def test_missing_candidate_or_unparsable_quantity() -> None:
    assert select("FirstAvailable", ["a", "zz"], {"a": gpu()}, None).name is None  # OME's fetch fails: no class
    broken = select("Cheapest", ["a", "b"], {"a": gpu(cost={"perHour": "lots"}), "b": gpu(cost={"perHour": "1"})}, None)
    assert broken.name is None and broken.undecided is not None


def test_a_value_kubernetes_would_refuse_is_reported_not_dropped() -> None:
    classes = {"a": gpu(performance={"fp16Tflops": "312"}), "b": gpu(performance={"fp16Tflops": 100})}
    choice = select("MostCapable", ["a", "b"], classes, None)
    assert choice.name is None and choice.undecided is not None and "'312' where an integer belongs" in choice.undecided
    bad_memory = select("FirstAvailable", ["a"], {"a": gpu("eighty")}, {"minMemory": 1})
    assert bad_memory.undecided is not None and "where a quantity belongs" in bad_memory.undecided
