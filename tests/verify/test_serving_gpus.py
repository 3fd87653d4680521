"""The GPUs a pod can land on (verify/serving/gpus.py): the table, each source, and what leaves them unknown."""

from __future__ import annotations

from typing import Any

import pytest

from omerender.verify.serving import gpus


def _affinity(*terms: list[dict[str, Any]]) -> dict[str, Any]:
    selector = {"nodeSelectorTerms": [{"matchExpressions": t} for t in terms]}
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": selector}}}


def _in(key: str, *values: str) -> dict[str, Any]:
    return {"key": key, "operator": "In", "values": list(values)}


@pytest.mark.parametrize(
    ("key", "value", "gib"),
    [
        (gpus.PRODUCT, "NVIDIA-A100-SXM4-80GB", 80),
        (gpus.PRODUCT, "NVIDIA-H100-80GB-HBM3", 80),
        (gpus.PRODUCT, "NVIDIA-H200", 141),
        (gpus.PRODUCT, "NVIDIA-A10G", 24),
        (gpus.PRODUCT, "NVIDIA-L4", 24),
        (gpus.PRODUCT, "NVIDIA-L40S", 48),
        (gpus.PRODUCT, "NVIDIA-B200", 180),
        (gpus.INSTANCE_TYPE, "p4d.24xlarge", 40),
        (gpus.INSTANCE_TYPE, "p5.48xlarge", 80),
        (gpus.INSTANCE_TYPE, "BM.GPU.H100.8", 80),
        (gpus.INSTANCE_TYPE, "a3-highgpu-8g", 80),
        (gpus.INSTANCE_TYPE, "g5.12xlarge", 24),  # a family: every size has the A10G
        (gpus.INSTANCE_TYPE, "a2-ultragpu-4g", 80),
        (gpus.GKE_ACCELERATOR, "nvidia-h100-80gb", 80),
    ],
)
def test_the_table_knows_common_products_and_instance_types(key: str, value: str, gib: int) -> None:
    assert gpus.memory(key, value) == gib


@pytest.mark.parametrize(
    ("key", "value"),
    [(gpus.PRODUCT, "NVIDIA-Future"), (gpus.INSTANCE_TYPE, "m5.large"), ("zone", "a"), (gpus.PRODUCT, "nvidia-l4")],
)
def test_what_the_table_does_not_know_has_no_memory(key: str, value: str) -> None:
    assert gpus.memory(key, value) is None


def test_no_gpu_named() -> None:
    assert gpus.landing({}, None) == gpus.Landing()
    assert gpus.landing({"nodeSelector": {"zone": "a"}}, None) == gpus.Landing()


def test_a_node_selector_names_one_gpu() -> None:
    found = gpus.landing({"nodeSelector": {gpus.PRODUCT: "NVIDIA-L4"}}, None)
    assert found.choices == ((f"{gpus.PRODUCT}=NVIDIA-L4", 24),) and found.via == "nodeSelector"


def test_an_unknown_product_leaves_the_gpus_unknown() -> None:
    assert gpus.landing({"nodeSelector": {gpus.PRODUCT: "NVIDIA-Future"}}, None).unknown


def test_affinity_with_several_values_and_terms_allows_each() -> None:
    spec = _affinity([_in(gpus.INSTANCE_TYPE, "p4d.24xlarge", "p5.48xlarge")], [_in(gpus.PRODUCT, "NVIDIA-L4")])
    found = gpus.landing(spec, None)
    assert [gib for _, gib in found.choices] == [40, 80, 24] and found.via == "node affinity"


def test_a_term_that_names_no_gpu_lets_the_pod_land_anywhere() -> None:
    spec = _affinity([_in(gpus.INSTANCE_TYPE, "p4d.24xlarge")], [_in("zone", "a")])
    assert gpus.landing(spec, None) == gpus.Landing()
    not_in = _affinity([{"key": gpus.PRODUCT, "operator": "NotIn", "values": ["NVIDIA-L4"]}])
    assert gpus.landing(not_in, None) == gpus.Landing()


def test_one_unknown_value_of_several_leaves_the_gpus_unknown() -> None:
    spec = _affinity([_in(gpus.INSTANCE_TYPE, "p4d.24xlarge", "BM.GPU.Future.8")])
    assert gpus.landing(spec, None).unknown


def test_the_node_selector_is_enough_when_it_names_a_known_gpu() -> None:
    spec = {"nodeSelector": {gpus.PRODUCT: "NVIDIA-H200"}, **_affinity([_in(gpus.INSTANCE_TYPE, "BM.GPU.Future.8")])}
    assert gpus.landing(spec, None).choices == ((f"{gpus.PRODUCT}=NVIDIA-H200", 141),)


@pytest.mark.parametrize(("memory", "gib"), [(48, 48), ("48", 48), ("80Gi", 80), ("96G", 96e9 / 2**30), (1.5, 1.5)])
def test_an_accelerator_class_memory_wins(memory: object, gib: float) -> None:
    found = gpus.landing({"nodeSelector": {gpus.PRODUCT: "NVIDIA-L4"}}, ("big", {"capabilities": {"memoryGB": memory}}))
    assert found.choices == (("the GPUs of AcceleratorClass big", pytest.approx(gib)),)


@pytest.mark.parametrize("memory", [None, 0, -8, "lots", True, [80], "1e400"])
def test_an_accelerator_class_without_a_usable_memory_falls_back_to_the_selector(memory: object) -> None:
    found = gpus.landing({"nodeSelector": {gpus.PRODUCT: "NVIDIA-L4"}}, ("odd", {"capabilities": {"memoryGB": memory}}))
    assert found.via == "nodeSelector"


def test_bounded_on_untrusted_input() -> None:
    many = _affinity([_in(gpus.INSTANCE_TYPE, *["p5.48xlarge"] * (gpus.MAX_VALUES + 1))])
    assert gpus.landing(many, None).unknown
