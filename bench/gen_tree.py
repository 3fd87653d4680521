#!/usr/bin/env python3
"""Write a deterministic synthetic tree of OME objects, the input of the omerender benchmark.

    python bench/gen_tree.py OUT_DIR [--runtimes 1000] [--isvcs 5000] [--scale K] [--seed 1]

The tree holds, at scale 1:

* about 1,000 runtimes in inheritance chains of 1 to 5 runtimes. Chain roots are profiles
  (ClusterServingRuntimes annotated ``ome.io/runtime-profile: "true"`` with ``disabled: true``),
  except for a few standalone runtimes (chains of one). The layers below are a mix of
  ClusterServingRuntimes and namespaced ServingRuntimes over 10 namespaces; every chain obeys
  OME's lookup rule (a ClusterServingRuntime's parents are ClusterServingRuntimes; a
  ServingRuntime's are ServingRuntimes of its namespace, then ClusterServingRuntimes). Leaves set
  ``disabled: false``, ``supportedModelFormats`` and ``modelSizeRange``;
* 200 ClusterBaseModels and 40 namespaced BaseModels;
* 5,000 InferenceServices, each naming a leaf runtime that supports its model once merged: same
  format name and version, framework name and version, architecture, and a size range holding
  the model's ``modelParameterSize``.

``--scale K`` multiplies every count (runtimes, models, InferenceServices, namespaces) by K.
Objects are spread over several thousand files in nested directories: mostly one object a
file, some multi-document bundles, and some "app" files holding a ServingRuntime together with
InferenceServices that use it. The same arguments always write byte-identical trees.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any

import yaml

API_VERSION = "ome.io/v1beta1"
INHERIT_FROM = "ome.io/inherit-from"
RUNTIME_PROFILE = "ome.io/runtime-profile"
CSR = "ClusterServingRuntime"
SR = "ServingRuntime"
CBM = "ClusterBaseModel"
BM = "BaseModel"
ISVC = "InferenceService"
MAX_CHAIN = 5

Doc = dict[str, Any]

BASE_NAMESPACES = (
    "ml-platform", "search", "ads-ranking", "assistant", "code-gen",
    "research", "support-bot", "translation", "safety", "eval",
)  # fmt: skip


@dataclass(frozen=True)
class Engine:
    key: str
    image: str
    command: tuple[str, ...]
    health_path: str
    tp_flag: str
    tuning_args: tuple[str, ...]


ENGINES: tuple[Engine, ...] = (
    Engine(
        "sglang",
        "docker.io/lmsysorg/sglang:v0.5.5.post3-cu129-amd64",
        ("python3", "-m", "sglang.launch_server", "--host=0.0.0.0", "--port=8080",
         "--model-path=$(MODEL_PATH)", "--served-model-name={{.Name}}"),
        "/health_generate", "--tp-size", ("--mem-frac=0.9", "--enable-metrics"),
    ),
    Engine(
        "vllm",
        "docker.io/vllm/vllm-openai:v0.11.0",
        ("python3", "-m", "vllm.entrypoints.openai.api_server", "--host=0.0.0.0", "--port=8080",
         "--model=$(MODEL_PATH)", "--served-model-name={{.Name}}"),
        "/health", "--tensor-parallel-size", ("--gpu-memory-utilization=0.9", "--max-model-len=32768"),
    ),
    Engine(
        "trtllm",
        "nvcr.io/nvidia/tensorrt-llm/release:1.0.0",
        ("trtllm-serve", "$(MODEL_PATH)", "--host=0.0.0.0", "--port=8080"),
        "/health", "--tp_size", ("--kv_cache_free_gpu_memory_fraction=0.9",),
    ),
    Engine(
        "tgi",
        "ghcr.io/huggingface/text-generation-inference:3.3.4",
        ("text-generation-launcher", "--hostname=0.0.0.0", "--port=8080", "--model-id=$(MODEL_PATH)"),
        "/health", "--num-shard", ("--max-concurrent-requests=256",),
    ),
)  # fmt: skip

PROFILE_VARIANTS = ("cu129", "cu128", "cu126", "stable", "nightly", "fips")


@dataclass(frozen=True)
class Gpu:
    key: str
    product: str
    memory_gi: int


GPUS: tuple[Gpu, ...] = (
    Gpu("h100", "NVIDIA-H100-80GB-HBM3", 80),
    Gpu("h200", "NVIDIA-H200", 141),
    Gpu("a100", "NVIDIA-A100-SXM4-80GB", 80),
    Gpu("l40s", "NVIDIA-L40S", 48),
    Gpu("b200", "NVIDIA-B200", 180),
    Gpu("a10", "NVIDIA-A10G", 24),
)


@dataclass(frozen=True)
class Family:
    key: str
    architecture: str
    sizes: tuple[str, ...]
    hf_repo: str


FAMILIES: tuple[Family, ...] = (
    Family("llama", "LlamaForCausalLM", ("1B", "3B", "8B", "70B", "405B"), "meta-llama/Llama-3"),
    Family("qwen2", "Qwen2ForCausalLM", ("0.5B", "1.5B", "7B", "14B", "32B", "72B"), "Qwen/Qwen2.5"),
    Family("qwen3", "Qwen3ForCausalLM", ("0.6B", "4B", "8B", "32B"), "Qwen/Qwen3"),
    Family("mistral", "MistralForCausalLM", ("7B", "12B", "24B"), "mistralai/Mistral"),
    Family("mixtral", "MixtralForCausalLM", ("47B", "141B"), "mistralai/Mixtral"),
    Family("gemma2", "Gemma2ForCausalLM", ("2B", "9B", "27B"), "google/gemma-2"),
    Family("phi3", "Phi3ForCausalLM", ("3.8B", "14B"), "microsoft/Phi-3"),
    Family("deepseek", "DeepseekV3ForCausalLM", ("671B",), "deepseek-ai/DeepSeek-V3"),
)
FORMATS: tuple[tuple[str, str], ...] = (("safetensors", "1.0.0"),) * 6 + (("safetensors", "2.0.0"),)
FRAMEWORK_VERSIONS = ("4.45.0.dev0", "4.46.1", "4.51.3", "4.55.0")
MODEL_VARIANTS = ("instruct", "base", "chat", "coder")
# Share of the runtimes that are internal (non-leaf) at chain positions 1..4; position 1 holds
# the profiles.
INTERNAL_SHARE = (0.025, 0.06, 0.08, 0.07)
# How the leaves spread over chain lengths 1..5 (length 1: standalone runtimes).
LEAF_LENGTH_SHARE = (0.04, 0.16, 0.22, 0.26, 0.32)
# Probability that a node whose parent is a ClusterServingRuntime is one too, by position.
CLUSTER_SHARE = {1: 0.5, 2: 0.8, 3: 0.7, 4: 0.6, 5: 0.5}
LOWEST_MIN = "0.1B"  # the modelSizeRange.min some position-2 runtimes set for all below them


class _Dumper(yaml.CSafeDumper):
    """libyaml's dumper, writing repeated objects out in full instead of as anchors and aliases."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def size_value(size: str) -> float:
    """``"1.5B"`` -> 1.5e9, as OME's parseModelSize reads model and range sizes."""
    for suffix, factor in (("T", 1e12), ("B", 1e9), ("M", 1e6)):
        if size.endswith(suffix):
            return float(size[: -len(suffix)]) * factor
    return float(size)


def slug(size: str) -> str:
    return size.lower().replace(".", "-")


def gpus_for(size: str) -> int:
    value = size_value(size)
    if value <= 9.5e9:
        return 1
    if value <= 35e9:
        return 2
    if value <= 150e9:
        return 4
    return 8


Signature = tuple[str, str, str, str, str]  # format name, format version, framework, version, arch


@dataclass
class Model:
    name: str
    kind: str  # CBM or BM
    namespace: str | None
    family: Family
    size: str
    signature: Signature
    doc: Doc = field(default_factory=dict)


@dataclass
class Runtime:
    name: str
    kind: str  # CSR or SR
    namespace: str | None
    position: int  # 1 = chain root
    parent: Runtime | None
    engine: Engine
    gpu: Gpu
    leaf: bool
    sets_min: bool = False  # its own spec sets modelSizeRange.min
    # leaves only:
    formats: list[Signature] = field(default_factory=list)
    size_range: tuple[float, float] = (0.0, 0.0)
    compatible: list[Model] = field(default_factory=list)
    in_app_file: bool = False
    doc: Doc = field(default_factory=dict)

    def ancestor_sets_min(self) -> bool:
        node = self.parent
        while node is not None:
            if node.sets_min:
                return True
            node = node.parent
        return False


@dataclass
class TreeStats:
    root: str
    files: int = 0
    documents: int = 0
    bytes: int = 0
    namespaces: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    chain_lengths: Counter[int] = field(default_factory=Counter)  # of leaf runtimes
    multi_document_files: int = 0
    directories: int = 0

    def summary(self) -> str:
        kinds = ", ".join(f"{k} {n:,}" for k, n in sorted(self.kinds.items()))
        chains = ", ".join(f"{n}: {c:,}" for n, c in sorted(self.chain_lengths.items()))
        return (
            f"{self.root}: {self.files:,} files ({self.multi_document_files:,} multi-document) "
            f"in {self.directories:,} directories, {self.documents:,} documents, "
            f"{self.bytes:,} bytes, {self.namespaces} namespaces\n"
            f"  kinds: {kinds}\n"
            f"  leaf runtimes by chain length: {chains}"
        )


def meta(name: str, namespace: str | None, **extra: Any) -> Doc:
    out: Doc = {"name": name}
    if namespace is not None:
        out["namespace"] = namespace
    out.update({k: v for k, v in extra.items() if v})
    return out


class Generator:
    def __init__(self, runtimes: int, isvcs: int, scale: int, seed: int, partial_ranges: float) -> None:
        self.rng = Random(seed)
        self.seed = seed
        self.partial_ranges = partial_ranges
        self.n_runtimes = runtimes * scale
        self.n_isvcs = isvcs * scale
        self.n_cbm = 200 * scale
        self.n_bm = 40 * scale
        self.namespaces = [ns if k == 0 else f"{ns}-{k + 1}" for k in range(scale) for ns in BASE_NAMESPACES]
        self.cluster_models: list[Model] = []
        self.ns_models: dict[str, list[Model]] = {ns: [] for ns in self.namespaces}
        self.runtimes: list[Runtime] = []
        self.isvcs: list[tuple[Doc, Runtime]] = []

    # -- models ---------------------------------------------------------------------------
    def _model(self, i: int, kind: str, namespace: str | None, like: Model | None) -> Model:
        rng = self.rng
        if like is None:
            family = rng.choice(FAMILIES)
            size = rng.choice(family.sizes)
            fmt = rng.choice(FORMATS)
            signature: Signature = (fmt[0], fmt[1], "transformers", rng.choice(FRAMEWORK_VERSIONS), family.architecture)
        else:
            family, size, signature = like.family, like.size, like.signature
        variant = rng.choice(MODEL_VARIANTS)
        name = f"{family.key}-{slug(size)}-{variant}-{i:04d}"
        spec: Doc = {
            "vendor": family.hf_repo.split("/")[0],
            "modelFormat": {"name": signature[0], "version": signature[1]},
            "modelFramework": {"name": signature[2], "version": signature[3]},
            "modelArchitecture": signature[4],
            "modelParameterSize": size,
            "storage": {
                "storageUri": f"hf://{family.hf_repo}-{size}-{variant.capitalize()}",
                "path": f"/raid/models/{family.key}/{slug(size)}-{variant}-{i:04d}",
            },
        }
        labels = {"models.ome.io/family": family.key}
        doc: Doc = {
            "apiVersion": API_VERSION,
            "kind": kind,
            "metadata": meta(name, namespace, labels=labels),
            "spec": spec,
        }
        return Model(name, kind, namespace, family, size, signature, doc)

    def make_models(self) -> None:
        for i in range(self.n_cbm):
            self.cluster_models.append(self._model(i, CBM, None, None))
        for j in range(self.n_bm):
            ns = self.rng.choice(self.namespaces)
            like = self.rng.choice(self.cluster_models)
            self.ns_models[ns].append(self._model(self.n_cbm + j, BM, ns, like))

    # -- runtimes -------------------------------------------------------------------------
    def _plan(self) -> tuple[list[int], list[int]]:
        """Internal runtimes per chain position 1..4, and leaves per chain length 1..5."""
        n = self.n_runtimes
        internal = [max(1, round(n * share)) for share in INTERNAL_SHARE]
        leaves_total = n - sum(internal)
        if leaves_total < len(LEAF_LENGTH_SHARE):
            raise SystemExit(f"--runtimes too small: {n} leaves no room for leaves")
        leaves = [round(leaves_total * share) for share in LEAF_LENGTH_SHARE]
        leaves[-1] += leaves_total - sum(leaves)
        return internal, leaves

    def _new_runtime(self, position: int, parent: Runtime | None, leaf: bool) -> Runtime:
        rng = self.rng
        index = len(self.runtimes)
        if parent is None:
            engine, gpu = rng.choice(ENGINES), rng.choice(GPUS)
        else:
            engine = parent.engine
            gpu = rng.choice(GPUS) if position == 2 else parent.gpu
        if position == 1 and not leaf:  # profiles are cluster-scoped
            kind, namespace = CSR, None
        elif parent is not None and parent.kind == SR:  # an SR's children stay in its namespace
            kind, namespace = SR, parent.namespace
        elif rng.random() < CLUSTER_SHARE[position]:
            kind, namespace = CSR, None
        else:
            kind, namespace = SR, rng.choice(self.namespaces)
        if position == 1 and not leaf:
            name = f"{engine.key}-{rng.choice(PROFILE_VARIANTS)}-profile-{index:05d}"
        elif leaf:
            name = f"rt-{engine.key}-{gpu.key}-{index:05d}"  # completed once the model is known
        else:
            name = f"rt-{engine.key}-{gpu.key}-l{position}-{index:05d}"
        rt = Runtime(name, kind, namespace, position, parent, engine, gpu, leaf)
        self.runtimes.append(rt)
        return rt

    def make_runtimes(self) -> None:
        internal, leaves = self._plan()
        rng = self.rng
        parents = [self._new_runtime(1, None, leaf=False) for _ in range(internal[0])]
        for _ in range(leaves[0]):
            self._new_runtime(1, None, leaf=True)
        for position in range(2, MAX_CHAIN + 1):
            n_internal = internal[position - 1] if position <= len(internal) else 0
            slots = [False] * n_internal + [True] * leaves[position - 1]
            rng.shuffle(slots)
            order = parents[:]
            rng.shuffle(order)
            # Every parent gets at least one child, the rest go to random parents.
            chosen = [order[i] if i < len(order) else rng.choice(parents) for i in range(len(slots))]
            next_parents = []
            for is_leaf, parent in zip(slots, chosen):
                rt = self._new_runtime(position, parent, is_leaf)
                if not is_leaf:
                    next_parents.append(rt)
            parents = next_parents
        for rt in self.runtimes:
            rt.doc = self._runtime_doc(rt)

    def _runtime_doc(self, rt: Runtime) -> Doc:
        annotations: dict[str, str] = {}
        if rt.parent is not None:
            annotations[INHERIT_FROM] = rt.parent.name
        if rt.position == 1 and not rt.leaf:
            annotations[RUNTIME_PROFILE] = "true"
            spec = self._profile_spec(rt)
            spec["disabled"] = True
        elif rt.leaf:
            spec = self._profile_spec(rt) if rt.position == 1 else {}
            self._leaf_spec(rt, spec)
        else:
            spec = self._middle_spec(rt)
        labels = {"app.kubernetes.io/part-of": "omerender-bench", "ome.io/engine": rt.engine.key}
        return {
            "apiVersion": API_VERSION,
            "kind": rt.kind,
            "metadata": meta(rt.name, rt.namespace, labels=labels, annotations=annotations),
            "spec": spec,
        }

    def _profile_spec(self, rt: Runtime) -> Doc:
        e = rt.engine
        probe = {"httpGet": {"path": e.health_path, "port": 8080}}
        return {
            "disabled": False,
            "protocolVersions": ["openAI"],
            "engineConfig": {
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory"}}],
                "runner": {
                    "name": "ome-container",
                    "image": e.image,
                    "command": list(e.command),
                    "ports": [{"containerPort": 8080, "name": "http1", "protocol": "TCP"}],
                    "env": [
                        {"name": "HF_HUB_OFFLINE", "value": "1"},
                        {"name": "OMP_NUM_THREADS", "value": "8"},
                    ],
                    "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}],
                    "readinessProbe": {**probe, "periodSeconds": 60, "timeoutSeconds": 200},
                    "startupProbe": {
                        **probe,
                        "initialDelaySeconds": 60,
                        "periodSeconds": 6,
                        "timeoutSeconds": 30,
                        "failureThreshold": 150,
                    },
                },
            },
        }

    def _middle_spec(self, rt: Runtime) -> Doc:
        rng = self.rng
        spec: Doc = {}
        if rng.random() < 0.6:
            spec["disabled"] = True
        if rt.position == 2:
            spec["labels"] = {"ome.io/accelerator": rt.gpu.key}
            if rng.random() < 0.5:
                rt.sets_min = True
                spec["modelSizeRange"] = {"min": LOWEST_MIN, "max": "1000B"}
            spec["engineConfig"] = {
                "nodeSelector": {"nvidia.com/gpu.product": rt.gpu.product},
                "tolerations": [
                    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                    {"key": "dedicated", "operator": "Equal", "value": rt.gpu.key, "effect": "NoSchedule"},
                ],
                "runner": {
                    "name": "ome-container",
                    "env": [
                        {"name": "NCCL_DEBUG", "value": "WARN"},
                        {"name": "CUDA_DEVICE_MAX_CONNECTIONS", "value": "1"},
                    ],
                },
            }
        elif rt.position == 3:
            team = rt.namespace or "platform"
            spec["annotations"] = {"ome.io/owner": f"team-{team}", "ome.io/cost-center": f"cc-{rt.name[-3:]}"}
            spec["engineConfig"] = {
                "imagePullSecrets": [{"name": "registry-creds"}],
                "volumes": [{"name": "chat-templates", "configMap": {"name": f"chat-templates-{team}"}}],
                "runner": {
                    "name": "ome-container",
                    "env": [
                        {"name": "OMP_NUM_THREADS", "value": "16"},
                        {"name": "SERVING_TEAM", "value": team},
                    ],
                    "volumeMounts": [{"name": "chat-templates", "mountPath": "/etc/chat-templates", "readOnly": True}],
                },
            }
        else:
            cpu = rng.choice(("8", "16", "32"))
            memory = rng.choice(("64Gi", "128Gi", "256Gi"))
            quantity = {"cpu": cpu, "memory": memory}
            spec["engineConfig"] = {
                "nodeSelector": {"topology.kubernetes.io/zone": rng.choice(("zone-a", "zone-b", "zone-c"))},
                "runner": {
                    "name": "ome-container",
                    "startupProbe": {"failureThreshold": 300},
                    "resources": {"requests": dict(quantity), "limits": dict(quantity)},
                },
            }
        return spec

    def _leaf_spec(self, rt: Runtime, spec: Doc) -> None:
        rng = self.rng
        seed = rng.choice(self.cluster_models)
        rt.name = f"rt-{rt.engine.key}-{rt.gpu.key}-{seed.family.key}-{slug(seed.size)}-{rt.name[-5:]}"
        formats = [seed.signature]
        if rng.random() < 0.4:
            others = [v for v in FRAMEWORK_VERSIONS if v != seed.signature[3]]
            s = seed.signature
            formats.append((s[0], s[1], s[2], rng.choice(others), s[4]))
        rt.formats = formats
        sizes = seed.family.sizes
        i = sizes.index(seed.size)
        lo = sizes[max(0, i - rng.randint(0, 1))]
        hi = sizes[min(len(sizes) - 1, i + rng.randint(0, 1))]
        size_range: Doc
        if rt.ancestor_sets_min() and rng.random() < self.partial_ranges:
            size_range = {"max": hi}  # keeps an ancestor's min: merged field by field
            rt.size_range = (size_value(LOWEST_MIN), size_value(hi))
        else:
            size_range = {"min": lo, "max": hi}
            rt.size_range = (size_value(lo), size_value(hi))
        gpus = gpus_for(hi)
        quantity = {"cpu": str(8 * gpus), "memory": f"{64 * gpus}Gi", "nvidia.com/gpu": str(gpus)}
        spec["disabled"] = False
        spec["supportedModelFormats"] = [
            {
                "modelFormat": {"name": f[0], "version": f[1]},
                "modelFramework": {"name": f[2], "version": f[3]},
                "modelArchitecture": f[4],
                "autoSelect": False,
            }
            for f in formats
        ]
        spec["modelSizeRange"] = size_range
        engine = spec.setdefault("engineConfig", {})
        runner = engine.setdefault("runner", {"name": "ome-container"})
        runner["args"] = [f"{rt.engine.tp_flag}={gpus}", *rt.engine.tuning_args]
        runner["resources"] = {"requests": dict(quantity), "limits": dict(quantity)}
        rt.compatible = [m for m in self.cluster_models if self._supports(rt, m)]
        assert seed in rt.compatible

    @staticmethod
    def _supports(rt: Runtime, model: Model) -> bool:
        lo, hi = rt.size_range
        return model.signature in rt.formats and lo <= size_value(model.size) <= hi

    # -- inference services ---------------------------------------------------------------
    def make_isvcs(self) -> None:
        rng = self.rng
        leaves = [rt for rt in self.runtimes if rt.leaf]
        for i in range(self.n_isvcs):
            rt = leaves[i] if i < len(leaves) else rng.choice(leaves)  # every leaf used once
            ns = rt.namespace or rng.choice(self.namespaces)
            local = [m for m in self.ns_models[ns] if self._supports(rt, m)]
            model = rng.choice(local) if local and rng.random() < 0.5 else rng.choice(rt.compatible)
            model_ref: Doc = {"name": model.name}
            if model.kind == BM:
                model_ref["kind"] = BM
            lo = rng.choice((1, 1, 1, 2))
            doc: Doc = {
                "apiVersion": API_VERSION,
                "kind": ISVC,
                "metadata": meta(
                    f"{model.family.key}-{slug(model.size)}-svc-{i:05d}",
                    ns,
                    labels={"app.kubernetes.io/part-of": "omerender-bench", "team": ns},
                ),
                "spec": {
                    "model": model_ref,
                    "runtime": {"name": rt.name},
                    "engine": {"minReplicas": lo, "maxReplicas": lo + rng.choice((0, 1, 3))},
                },
            }
            self.isvcs.append((doc, rt))

    # -- layout ---------------------------------------------------------------------------
    def layout(self) -> dict[str, list[Doc]]:
        rng = self.rng
        files: dict[str, list[Doc]] = {}
        bundles: dict[str, tuple[str, int]] = {}
        bundle_count: Counter[str] = Counter()

        def put(path: str, doc: Doc) -> None:
            files.setdefault(path, []).append(doc)

        def bundle(directory: str, stem: str, doc: Doc, lo: int, hi: int) -> None:
            current = bundles.get(directory)
            if current is None or len(files[current[0]]) >= current[1]:
                bundle_count[directory] += 1
                current = (f"{directory}/{stem}-{bundle_count[directory]:03d}.yaml", rng.randint(lo, hi))
                bundles[directory] = current
            put(current[0], doc)

        for rt in self.runtimes:
            if rt.kind == CSR and rt.position == 1 and not rt.leaf:
                put(f"cluster/profiles/{rt.engine.key}/{rt.name}.yaml", rt.doc)
            elif rt.kind == CSR:
                directory = f"cluster/runtimes/{rt.engine.key}/{rt.gpu.key}"
                if rng.random() < 0.5:
                    put(f"{directory}/{rt.name}.yaml", rt.doc)
                else:
                    bundle(directory, "bundle", rt.doc, 2, 10)
            else:
                directory = f"namespaces/{rt.namespace}"
                roll = rng.random()
                if rt.leaf and roll < 0.3:
                    rt.in_app_file = True
                    put(f"{directory}/apps/{rt.name}.yaml", rt.doc)
                elif roll < 0.65:
                    put(f"{directory}/runtimes/{rt.engine.key}/{rt.name}.yaml", rt.doc)
                else:
                    bundle(f"{directory}/runtimes", "bundle", rt.doc, 2, 8)
        for model in self.cluster_models:
            directory = f"cluster/models/{model.family.key}"
            if rng.random() < 0.7:
                put(f"{directory}/{model.name}.yaml", model.doc)
            else:
                bundle(directory, "bundle", model.doc, 2, 6)
        for ns in self.namespaces:
            for model in self.ns_models[ns]:
                bundle(f"namespaces/{ns}/models", "basemodels", model.doc, 1, 4)
        for doc, rt in self.isvcs:
            ns = doc["metadata"]["namespace"]
            if rt.in_app_file and ns == rt.namespace and rng.random() < 0.6:
                put(f"namespaces/{ns}/apps/{rt.name}.yaml", doc)
            elif rng.random() < 0.6:
                family = doc["metadata"]["name"].split("-")[0]
                put(f"namespaces/{ns}/services/{family}/{doc['metadata']['name']}.yaml", doc)
            else:
                bundle(f"namespaces/{ns}/services", "batch", doc, 2, 25)
        return files

    def write(self, out_dir: Path) -> TreeStats:
        stats = TreeStats(root=str(out_dir), namespaces=len(self.namespaces))
        directories: set[Path] = set()
        for rel, docs in self.layout().items():
            path = out_dir / rel
            if path.parent not in directories:
                path.parent.mkdir(parents=True, exist_ok=True)
                directories.add(path.parent)
            text = yaml.dump_all(
                docs,
                Dumper=_Dumper,
                sort_keys=False,
                default_flow_style=False,
                explicit_start=len(docs) > 1 or self.rng.random() < 0.2,
                width=120,
            )
            if self.rng.random() < 0.1:
                text = f"# Synthetic OME objects written by bench/gen_tree.py (seed {self.seed}).\n{text}"
            data = text.encode("utf-8")
            path.write_bytes(data)
            stats.files += 1
            stats.documents += len(docs)
            stats.bytes += len(data)
            stats.multi_document_files += len(docs) > 1
            stats.kinds.update(d["kind"] for d in docs)
        stats.directories = len(directories)
        stats.chain_lengths.update(rt.position for rt in self.runtimes if rt.leaf)
        return stats


def generate(
    out_dir: Path,
    runtimes: int = 1000,
    isvcs: int = 5000,
    scale: int = 1,
    seed: int = 1,
    partial_ranges: float = 0.0,
) -> TreeStats:
    """Write the tree into ``out_dir``, which must be missing or empty."""
    if out_dir.exists() and any(out_dir.iterdir()):
        raise SystemExit(f"{out_dir} is not empty; give a new or empty directory")
    out_dir.mkdir(parents=True, exist_ok=True)
    gen = Generator(runtimes, isvcs, scale, seed, partial_ranges)
    gen.make_models()
    gen.make_runtimes()
    gen.make_isvcs()
    return gen.write(out_dir)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path, metavar="OUT_DIR")
    parser.add_argument("--runtimes", type=int, default=1000, help="runtimes at scale 1 (default 1000)")
    parser.add_argument("--isvcs", type=int, default=5000, help="InferenceServices at scale 1 (default 5000)")
    parser.add_argument("--scale", type=int, default=1, help="multiply every count by K (default 1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--partial-ranges",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of the leaves below a runtime setting modelSizeRange.min that set only max, "
        "keeping the inherited min (valid, but omerender warns about each; default 0)",
    )
    args = parser.parse_args(argv)
    if args.runtimes < 50 or args.isvcs < 1 or args.scale < 1:
        parser.error("need --runtimes >= 50, --isvcs >= 1 and --scale >= 1")
    stats = generate(args.out_dir, args.runtimes, args.isvcs, args.scale, args.seed, args.partial_ranges)
    print(stats.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
