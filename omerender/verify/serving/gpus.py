"""The GPUs a pod can land on and the memory of each, for ``gpu-memory-fit``.

A pod names its GPUs by its AcceleratorClass (``capabilities.memoryGB``), or by a node selector or a required node
affinity on a label the table below knows: the product label NVIDIA's GPU feature discovery writes
(``nvidia.com/gpu.product``, the product name as ``nvidia-smi`` prints it with spaces made ``-``), GKE's accelerator
label (``cloud.google.com/gke-accelerator``) or the cloud's instance type (``node.kubernetes.io/instance-type``).
Required affinity terms are alternatives (the pod lands on a node matching any one), so every value of an ``In``
expression is a GPU the pod may get. A value the table does not know leaves the pod's GPUs unknown: it could be any
GPU, so nothing is claimed.

Memory is the vendor's figure in GB, read as GiB: at most 7% more than the card has, so that a pod reported as
not fitting does not fit on the real card either. Sources (per GPU, the vendor's data sheet or product page):
A100 40/80 GB https://www.nvidia.com/en-us/data-center/a100/; H100 SXM/PCIe 80 GB, NVL 94 GB
https://www.nvidia.com/en-us/data-center/h100/; H200 141 GB https://www.nvidia.com/en-us/data-center/h200/;
B200 180 GB per GPU (DGX B200: 1,440 GB over 8) https://www.nvidia.com/en-us/data-center/dgx-b200/; A10G 24 GB
(AWS G5) https://aws.amazon.com/ec2/instance-types/g5/; A10 24 GB https://www.nvidia.com/en-us/data-center/products/a10-gpu/;
L4 24 GB https://www.nvidia.com/en-us/data-center/l4/; L40S 48 GB https://www.nvidia.com/en-us/data-center/l40s/;
T4 16 GB https://www.nvidia.com/en-us/data-center/tesla-t4/. Instance types: AWS
https://aws.amazon.com/ec2/instance-types/p4/ (p4d: 8 A100 40 GB, p4de: 8 A100 80 GB),
https://aws.amazon.com/ec2/instance-types/p5/ (p5: 8 H100 80 GB, p5e/p5en: 8 H200 141 GB),
https://aws.amazon.com/ec2/instance-types/p6/ (p6-b200: 8 B200), g5 (A10G), g6 (L4), g6e (L40S); Google Cloud
https://cloud.google.com/compute/docs/gpus (a2-highgpu: A100 40 GB, a2-ultragpu: A100 80 GB, a3-highgpu/megagpu/
edgegpu: H100 80 GB, a3-ultragpu: H200 141 GB, a4-highgpu: B200, g2: L4); Oracle Cloud
https://docs.oracle.com/en-us/iaas/Content/Compute/References/computeshapes.htm (BM.GPU4.8 and BM.GPU.B4.8:
8 A100 40 GB, BM.GPU.A100-v2.8: 8 A100 80 GB, BM.GPU.H100.8: 8 H100 80 GB, BM.GPU.H200.8: 8 H200 141 GB,
BM.GPU.B200.8: 8 B200, BM.GPU.A10.4: A10, BM.GPU.L40S.4: L40S).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from omerender.render.quantity import parse

PRODUCT = "nvidia.com/gpu.product"
GKE_ACCELERATOR = "cloud.google.com/gke-accelerator"
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
MAX_MEMORY_GB = 100_000  # an AcceleratorClass memoryGB above this is bytes (80Gi), else GB
GIB = 2**30
MAX_VALUES = 1_000  # values of one selector read at most (bounded work on untrusted input)

A100_40, A100_80, H100, H100_NVL, H200, B200, A10, L4, L40S, T4 = 40, 80, 80, 94, 141, 180, 24, 24, 48, 16

# nvidia.com/gpu.product (GPU feature discovery: the nvidia-smi name, spaces as -)
PRODUCTS = {
    "NVIDIA-A100-SXM4-40GB": A100_40,
    "NVIDIA-A100-PCIE-40GB": A100_40,
    "NVIDIA-A100-SXM4-80GB": A100_80,
    "NVIDIA-A100-80GB-PCIe": A100_80,
    "NVIDIA-H100-80GB-HBM3": H100,
    "NVIDIA-H100-PCIe": H100,
    "NVIDIA-H100-NVL": H100_NVL,
    "NVIDIA-H200": H200,
    "NVIDIA-B200": B200,
    "NVIDIA-A10G": A10,
    "NVIDIA-A10": A10,
    "NVIDIA-L4": L4,
    "NVIDIA-L40S": L40S,
    "Tesla-T4": T4,
}
# cloud.google.com/gke-accelerator (https://cloud.google.com/kubernetes-engine/docs/how-to/gpus)
GKE = {
    "nvidia-tesla-a100": A100_40,
    "nvidia-a100-80gb": A100_80,
    "nvidia-h100-80gb": H100,
    "nvidia-h100-mega-80gb": H100,
    "nvidia-h200-141gb": H200,
    "nvidia-b200": B200,
    "nvidia-l4": L4,
    "nvidia-tesla-t4": T4,
}
# node.kubernetes.io/instance-type: exact names, then families (every size of the family has the same GPU)
INSTANCES = {
    "p4d.24xlarge": A100_40,
    "p4de.24xlarge": A100_80,
    "p5.48xlarge": H100,
    "p5e.48xlarge": H200,
    "p5en.48xlarge": H200,
    "p6-b200.48xlarge": B200,
    "a3-highgpu-8g": H100,
    "a3-megagpu-8g": H100,
    "a3-edgegpu-8g": H100,
    "a3-ultragpu-8g": H200,
    "a4-highgpu-8g": B200,
    "BM.GPU4.8": A100_40,
    "BM.GPU.B4.8": A100_40,
    "BM.GPU.A100-v2.8": A100_80,
    "BM.GPU.H100.8": H100,
    "BM.GPU.H200.8": H200,
    "BM.GPU.B200.8": B200,
    "BM.GPU.A10.4": A10,
    "BM.GPU.L40S.4": L40S,
}
FAMILIES = (
    (re.compile(r"g5\.[0-9]*x?large"), A10),  # AWS G5: A10G
    (re.compile(r"g6\.[0-9]*x?large"), L4),  # AWS G6: L4
    (re.compile(r"g6e\.[0-9]*x?large"), L40S),  # AWS G6e: L40S
    (re.compile(r"a2-highgpu-[0-9]+g|a2-megagpu-16g"), A100_40),  # Google Cloud A2 standard: A100 40 GB
    (re.compile(r"a2-ultragpu-[0-9]+g"), A100_80),  # Google Cloud A2 ultra: A100 80 GB
    (re.compile(r"g2-standard-[0-9]+"), L4),  # Google Cloud G2: L4
)
LARGEST = max(PRODUCTS.values())
KEYS = (PRODUCT, GKE_ACCELERATOR, INSTANCE_TYPE)


def memory(key: str, value: str) -> float | None:
    """The GB of one GPU on nodes labelled ``key: value``; None when the table does not know it."""
    if key == PRODUCT:
        return PRODUCTS.get(value)
    if key == GKE_ACCELERATOR:
        return GKE.get(value)
    if key == INSTANCE_TYPE:
        found = INSTANCES.get(value)
        return found if found is not None else next((gb for p, gb in FAMILIES if p.fullmatch(value)), None)
    return None


@dataclass(frozen=True)
class Landing:
    """The GPUs a pod may land on: ``choices`` (what names each, its GB), or none named (``choices`` empty);
    ``unknown`` when it names one the table does not know (it may then be any GPU)."""

    choices: tuple[tuple[str, float], ...] = ()
    unknown: bool = False
    via: str = ""  # what named them: "AcceleratorClass NAME", "nodeSelector", "node affinity"
    keys: tuple[str, ...] = ()  # where in the pod spec: ("nodeSelector", LABEL) or ("affinity",); () for a class


def class_memory(spec: dict[str, Any]) -> float | None:
    """An AcceleratorClass spec's ``capabilities.memoryGB``: a number is GB (read as GiB, as the table's are); a
    quantity of bytes (``80Gi``, as OME's examples write it) is converted. None when absent or not a GPU's size."""
    capabilities = spec.get("capabilities")
    value = capabilities.get("memoryGB") if isinstance(capabilities, dict) else None
    if value is None or isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    try:
        number = parse(value)
    except (ValueError, TypeError, ArithmeticError):
        return None
    gib = number if number <= MAX_MEMORY_GB else number / GIB
    return float(gib) if 0 < gib <= MAX_MEMORY_GB else None  # compared before float(): 1e400 does not fit one


def _from_selector(selector: Any) -> Landing | None:
    if not isinstance(selector, dict):
        return None
    for key in KEYS:
        value = selector.get(key)
        if isinstance(value, str):
            found = memory(key, value)
            return Landing(((f"{key}={value}", found),)) if found is not None else Landing(unknown=True)
    return None


def _from_term(term: Any) -> Landing | None:
    """One required node-selector term: the GPUs its first ``In`` expression on a known key allows."""
    expressions = term.get("matchExpressions") if isinstance(term, dict) else None
    for expression in expressions if isinstance(expressions, list) else []:
        if not isinstance(expression, dict) or expression.get("key") not in KEYS or expression.get("operator") != "In":
            continue
        values = expression.get("values")
        if not isinstance(values, list) or not values or len(values) > MAX_VALUES:
            return Landing(unknown=True)
        choices = []
        for value in values:
            found = memory(str(expression["key"]), value) if isinstance(value, str) else None
            if found is None:
                return Landing(unknown=True)
            choices.append((f"{expression['key']}={value}", found))
        return Landing(tuple(choices))
    return None


def _from_affinity(affinity: Any) -> Landing | None:
    node = affinity.get("nodeAffinity") if isinstance(affinity, dict) else None
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(node, dict) else None
    terms = required.get("nodeSelectorTerms") if isinstance(required, dict) else None
    if not isinstance(terms, list) or not terms or len(terms) > MAX_VALUES:
        return None
    choices: list[tuple[str, float]] = []
    for term in terms:
        found = _from_term(term)
        if found is None or found.unknown:  # a term that names no GPU lets the pod land on any
            return None if found is None else found
        choices += [c for c in found.choices if c not in choices]
    return Landing(tuple(choices))


def landing(pod_spec: dict[str, Any], accelerator: tuple[str, dict[str, Any]] | None) -> Landing:
    """Where a pod with ``pod_spec`` may run: its AcceleratorClass (name, spec) first, then its node selector, then
    its required node affinity (both must hold: the selector, when it names a GPU, is enough)."""
    if accelerator is not None:
        name, spec = accelerator
        found = class_memory(spec)
        if found is not None:
            return Landing(((f"the GPUs of AcceleratorClass {name}", found),), via=f"AcceleratorClass {name}")
    selected = _from_selector(pod_spec.get("nodeSelector"))
    if selected is not None and not selected.unknown:
        label = selected.choices[0][0].split("=", 1)[0]
        return Landing(selected.choices, via="nodeSelector", keys=("nodeSelector", label))
    by_affinity = _from_affinity(pod_spec.get("affinity"))
    if by_affinity is not None and not by_affinity.unknown:
        return Landing(by_affinity.choices, via="node affinity", keys=("affinity",))
    if (selected is not None and selected.unknown) or (by_affinity is not None and by_affinity.unknown):
        return Landing(unknown=True)
    return Landing()
