"""OME's catalogue as a platform team vendors it: config/runtimes and config/models copied whole, with upstream's
kustomization.yaml files, and every upstream sample InferenceService built against it with the shipped overlay
(``--model-metadata ome:v0.1.5``), through the CLI.

Upstream's kustomizations install a default subset (48 runtimes, 86 models); OME's contributing guide tells users
to add the models they serve to them. The vendored copy here does that for what the samples use: the files
defining each sample's model and named runtime are appended to the kustomizations, the rest stays as shipped.
Where upstream defines a runtime name in two files, a user lists the one serving their model (its
``--served-model-name`` is the model's repository) instead of the other, so such a sample builds in a copy whose
kustomization swaps the two files. Skipped when ../shared/ome is absent.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
OME = REPO.parent / "shared" / "ome"
OVERLAY = "ome:v0.1.5"
# Upstream samples OME itself refuses or fails, with the error codes omerender reports for each (asserted, so any
# change shows) and the OME step that refuses it. Lines are at OME 17b77edad23bae262e0c9adb7f12039397a5d33d, the
# commit ../shared/ome was taken from; "CRD" is config/crd/full/ome.io_inferenceservices.yaml there.
BROKEN = {
    # An older API's shape. API server schema validation refuses it whatever the field validation: spec.model
    # lacks the required name (CRD:24640-24657); its unknown spec.model.modelName, spec.model.runtime and
    # spec.deployment (spec has no x-kubernetes-preserve-unknown-fields, CRD:57-58) are refused under kubectl's
    # default --validate=strict and pruned under Warn.
    "isvc/LGAI-EXAONE/exaone-3-5-7-8b-instruct-isvc.yaml": {"schema", "unknown-field"},
    # An older API's shape: spec.modelRef, spec.minReplicas, spec.maxReplicas and spec.scaleTarget are unknown
    # (CRD:57-58). kubectl's default --validate=strict has the API server refuse them; under Warn they are pruned,
    # the webhook checks nothing on a spec without engine or model (pkg/webhook/admission/isvc/
    # inference_service_validation.go:110-122), and the controller's first step fails with "model reference is
    # required" (pkg/controller/v1beta1/inferenceservice/utils/reconciliation.go:52-54; event ModelReconcileError,
    # controller.go:218-222).
    "isvc/zai-org/glm-4-5v.yaml": {"unknown-field", "ModelReconcileError"},
    # Names model llama-3-2-90b-fp8-dynamic, which no file in config/models defines: the validating webhook refuses
    # it (validateModelExists, inference_service_validation.go:110-113,350-358; omerender prints its message).
    "isvc/meta/llama3-2-90b-vision-fp8-dynamic.yaml": {"ModelReconcileError"},
    # Its runtime's command holds a Jinja chat template ({{ system_message }}): the controller's pod-spec step runs
    # the container through html/template (utils/merging.go:167-179), which fails to parse it, so reconcile of
    # InferenceService c4ai-command-r-v01 fails with "failed to reconcile pod spec: failed to replace placeholders
    # in container" (reconcilers/common/podspec_reconciler.go:47-50, components/engine.go:109-112). Reported at
    # the runtime's line, which caused it.
    "runtimes/srt/CohereForAI/c4ai-command-r-v01-rt.yaml": {"placeholder"},
    # Declares a decoder, but its named runtime srt-llama-3-3-70b-instruct has no decoderConfig (the -pd runtime
    # has): MergeDecoderSpec keeps the bare decoder (utils/merging.go:126-134) and the controller's decoder pod-spec
    # step fails with "no containers found in pod spec and no runner spec provided"
    # (reconcilers/common/podspec_reconciler.go:153-160, components/decoder.go:108-110). No webhook checks it.
    "isvc/meta/llama3-3-70b-instruct.yaml": {"no-containers"},
    # Declare a router, but auto-selection picks an engine-only vLLM runtime: the narrowest size range wins a tie
    # in score (pkg/runtimeselector/scorer.go:67-82,168-183; vllm-mixtral-8x7b-instruct 45B-50B over srt-mixtral-8x7b
    # 40B-50B, vllm-llama-3-3-nemotron-super-49b-v1 48B-50B over 45B-55B, which the sizes OME's agent reads from
    # the weights fall in), or the only match (vllm-llama-3-2-11b-vision-instruct, for transformers 4.45.0.dev0,
    # pkg/hfutil/modelconfig/testdata/llama3_2_11b_vision.json). MergeRouterSpec keeps the bare router
    # (utils/merging.go:85-93) and the controller's router pod-spec step fails with "no containers found in pod
    # spec and no runner spec provided" (podspec_reconciler.go:153-160, components/router.go:108-110).
    "isvc/mistralai/mixtral-8x7b-v0-1.yaml": {"no-containers"},
    "isvc/nvidia/llama-3-3-nemotron-super-49b-v1.yaml": {"no-containers"},
    "isvc/meta/llama3-2-11b-vision.yaml": {"no-containers"},
    # Auto-selected: OME's agent reports transformers 4.42.3 for Llama-3.1-70B (pkg/hfutil/modelconfig/testdata/
    # llama3_1.json, pkg/modelagent/config_parser.go:316-322), which srt-llama-3-1-70b-instruct (the runtime the
    # sibling sample llama-3-1-70b-instruct.yaml names, autoSelect false) requires; no runtime with autoSelect has
    # LlamaForCausalLM at 4.42.3 in its range, and versions are compared for equality (pkg/runtimeselector/
    # matcher.go:582-601; none of these runtimes sets another operator), so no one value serves both samples. The
    # validating webhook selects for an engine without runtime or runner image and refuses it
    # (inference_service_validation.go:116-122,372-381,411-415).
    "isvc/meta/llama3-1-70b-instruct.yaml": {"RuntimeSelectionError"},
    # The runtime the deepseek-r1 sample names (srt-deepseek-rdma, in the default kustomization): its LeaderWorkerSet
    # leader mounts dshm and devinf, which only engineConfig.worker defines. OME builds the leader pod from
    # engineConfig.leader alone (pkg/controller/v1beta1/inferenceservice/components/engine.go:269-312), so the API
    # server refuses the StatefulSet LeaderWorkerSet makes for the leaders (volumeMounts[0].name: Not found) and
    # no group starts.
    "runtimes/srt/deepseek-rdma-rt.yaml": {"volume-mount-undefined"},
}
SERVING = ("volume-mount-undefined", "gpu-parallelism", "probe-target", "router-discovery", "pd-pairing")
SERVING += ("shm-missing", "served-model-name", "ignore-check")
SERVING += ("gpu-memory-fit",)
# Every serving check's finding on the upstream samples (docs/serving-checks.md): (sample, or the file of the
# runtime the finding is located in; line; column; severity; code), each a true problem, read by hand. A finding at a
# runtime's line is reported once, however many samples use the runtime.
SERVING_FINDINGS = {
    # deepseek-r1 declares no router, though its runtime srt-deepseek-rdma has one: OME's external Service then
    # selects every engine pod (external_service_reconciler.go:113-134), the LeaderWorkerSet's worker too, whose node
    # rank serves no HTTP. Located at the sample's spec (the line of the generated file holding it).
    ("isvc/deepseek-ai/deepseek-r1.yaml", 9, 5, "warning", "router-discovery"),
    # srt-deepseek-rdma: the two undefined mounts above; the same leader has 8 GPUs, no hostIPC and no usable
    # /dev/shm volume; and it answers as deepseek-ai/DeepSeek-V3, model deepseek-v3's repository, while the sample
    # serves deepseek-r1.
    ("runtimes/srt/deepseek-rdma-rt.yaml", 164, 13, "error", "volume-mount-undefined"),
    ("runtimes/srt/deepseek-rdma-rt.yaml", 166, 13, "error", "volume-mount-undefined"),
    ("runtimes/srt/deepseek-rdma-rt.yaml", 91, 7, "warning", "shm-missing"),
    ("runtimes/srt/deepseek-rdma-rt.yaml", 144, 13, "warning", "served-model-name"),
    # The five Qwen2.5 samples (3B to 72B) auto-select srt-deepseek-r1-distill-qwen-14b (no modelSizeRange) and are
    # served as deepseek-ai/DeepSeek-R1-Distill-Qwen-14B, model deepseek-r1-distill-qwen-14b's repository.
    ("runtimes/srt/deepseek-ai/deepseek-r1-distill-qwen-14b-rt.yaml", 57, 11, "warning", "served-model-name"),
    # The llama-4-maverick sample's runtime asks for 16 GPUs in one pod (--tp 16): no node of 8 GPUs holds it.
    ("runtimes/srt/meta/llama-4-maverick-17b-128e-instruct-rt.yaml", 82, 27, "warning", "gpu-parallelism"),
    # The deepseek-v3 sample's runtime srt-deepseek-v3: 685B parameters (the overlay's parameter_count) in fp8 (its
    # quantization) are 638 GiB, 79.7 GiB on each GPU of --tp-size 8, over the 72 GiB (--mem-frac 0.9) of an
    # 80 GiB GPU; the runtime names no GPU, so a warning (it fits H200s; SGLang's guide gives 8 H200 or 2x8 H100).
    ("runtimes/srt/deepseek-ai/deepseek-v3-rt.yaml", 57, 11, "warning", "gpu-memory-fit"),
}

pytestmark = pytest.mark.skipif(not OME.is_dir(), reason="../shared/ome (OME's corpus) is not present")


def _docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if isinstance(d, dict)]


def _generator() -> Any:
    """scripts/ome_model_metadata.py: ``serves(runtime, model, repository)``, which runtimes serve a model, and
    ``served_names(spec)``, the ``--served-model-name`` values of a runtime."""
    spec = importlib.util.spec_from_file_location("ome_model_metadata", REPO / "scripts" / "ome_model_metadata.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _definitions(folder: Path, kind: str) -> dict[str, list[Path]]:
    """Name -> the files defining it: the one the kustomization lists first, then the others in path order."""
    listed = yaml.safe_load((folder / "kustomization.yaml").read_text(encoding="utf-8"))["resources"]
    found: dict[str, list[Path]] = {}
    for path in [folder / p for p in listed] + sorted(folder.rglob("*.yaml")):
        if path.name != "kustomization.yaml":
            for doc in _docs(path):
                if doc.get("kind") == kind:
                    files = found.setdefault(doc["metadata"]["name"], [])
                    if path not in files:
                        files.append(path)
    return found


def _defined(folder: Path, kind: str) -> dict[str, Path]:
    """Name -> the file defining it: one the kustomization lists, else the first in path order."""
    return {name: files[0] for name, files in _definitions(folder, kind).items()}


def _samples() -> list[tuple[str, dict[str, Any]]]:
    return [
        (path.relative_to(OME / "samples").as_posix(), doc)
        for path in sorted((OME / "samples").rglob("*.yaml"))
        for doc in _docs(path)
        if doc.get("kind") == "InferenceService"
    ]


def _omerender(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "omerender", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)


def _add_to_kustomization(folder: Path, files: set[Path]) -> None:
    kustomization = folder / "kustomization.yaml"
    data = yaml.safe_load(kustomization.read_text(encoding="utf-8"))
    listed = list(data["resources"])
    listed += sorted({f.relative_to(folder).as_posix() for f in files} - set(listed))
    data["resources"] = listed
    kustomization.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


@pytest.fixture(scope="module")
def vendored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("platform")
    for folder in ("runtimes", "models"):
        shutil.copytree(OME / folder, repo / folder)
    return repo


def _names(stream: str) -> set[str]:
    return {line.strip() for line in stream.splitlines() if line.strip()}


def test_vendored_catalogue_reads_what_kustomize_builds(vendored: Path) -> None:
    """Whole folders as shipped: what the kustomizations list, no duplicate-object from the unlisted files."""
    proc = _omerender("build", "runtimes", "models", "--emit", "inputs", "-o", "name", cwd=vendored)
    assert proc.returncode == 0, proc.stderr[:3000]
    assert "duplicate-object" not in proc.stderr
    names = _names(proc.stdout)
    assert sum(n.startswith("clusterservingruntime.") for n in names) == 48
    assert sum(n.startswith("clusterbasemodel.") for n in names) == 86
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed")
    expected = set()
    for folder in ("runtimes", "models"):
        built = subprocess.run([kubectl, "kustomize", folder], cwd=vendored, capture_output=True, text=True, check=True)
        expected |= {
            f"{d['kind'].lower()}.ome.io/{d['metadata']['name']}"
            for d in yaml.safe_load_all(built.stdout)
            if isinstance(d, dict)
        }
    assert names == expected


def _batches(samples: list[tuple[str, dict[str, Any]]]) -> list[list[tuple[str, dict[str, Any]]]]:
    """Samples in as few runs as possible with no InferenceService twice in one (upstream reuses names)."""
    batches: list[tuple[set[tuple[str, str]], list[tuple[str, dict[str, Any]]]]] = []
    for sample in samples:
        meta = sample[1]["metadata"]
        key = (meta.get("namespace", "default"), meta["name"])
        batch = next((b for b in batches if key not in b[0]), None)
        if batch is None:
            batch = (set(), [])
            batches.append(batch)
        batch[0].add(key)
        batch[1].append(sample)
    return [b[1] for b in batches]


def _runtime_files(
    doc: dict[str, Any], models: dict[str, Path], runtimes: dict[str, list[Path]], generator: Any
) -> dict[str, Path]:
    """Runtime name -> the file a user serving this sample lists: the runtime it names, or (auto-selected) those
    serving its model by the overlay's rule. Of the files defining one name, the one whose ``--served-model-name`` is
    the model's repository (upstream defines srt-llama-3-2-11b-vision-instruct for meta-llama/ and for unsloth/)."""
    model = (doc["spec"].get("model") or {}).get("name")
    named = (doc["spec"].get("runtime") or {}).get("name")
    repo = ""
    if model in models:
        repo = str(_docs(models[model])[0]["spec"]["storage"]["storageUri"]).removeprefix("hf://").lower()

    def runtimes_in(path: Path) -> list[dict[str, Any]]:
        return [d for d in _docs(path) if d.get("kind") == "ClusterServingRuntime"]

    if named:
        names = [named] if named in runtimes else []
    elif model in models:
        names = [
            n for n, files in runtimes.items() if any(generator.serves(d, model, repo) for d in runtimes_in(files[0]))
        ]
    else:
        names = []
    chosen = {}
    for name in names:
        files = runtimes[name]
        serving = [f for f in files if any(repo in generator.served_names(d["spec"]) for d in runtimes_in(f))]
        chosen[name] = (serving or files)[0]
    return chosen


def _swap_in_kustomization(folder: Path, swaps: dict[Path, Path]) -> None:
    """List each new file instead of the old one of the same runtime name, as a user serving that sample does."""
    kustomization = folder / "kustomization.yaml"
    data = yaml.safe_load(kustomization.read_text(encoding="utf-8"))
    rel = {old.relative_to(folder).as_posix(): new.relative_to(folder).as_posix() for old, new in swaps.items()}
    data["resources"] = [rel.get(entry, entry) for entry in data["resources"]]
    kustomization.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def _build_samples(
    repo: Path,
    samples: list[tuple[str, dict[str, Any]]],
    errors: dict[str, set[str]],
    serving: set[tuple[str, int, int, str, str]],
) -> None:
    """Build the samples in batches through the CLI, collecting the error codes each gets (by sample, else by
    the file the error is in), and every serving check's finding."""
    for number, batch in enumerate(_batches(samples)):
        folder = repo / f"apps-{number}"
        for index, (name, doc) in enumerate(batch):
            target = folder / f"{index:03d}-{Path(name).name}"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(f"# {name}\n" + yaml.safe_dump(doc), encoding="utf-8")
        proc = _omerender(
            "build", "runtimes", "models", folder.name, "--model-metadata", OVERLAY, "-o", "json", cwd=repo
        )
        assert proc.returncode in (0, 1), proc.stderr[:3000]
        for line in proc.stderr.splitlines():
            where, _, rest = line.partition(": ")
            severity, _, text = rest.partition(": [")
            if text.split("]", 1)[0] in SERVING:
                path, row, col = where.rsplit(":", 2)
                if path.startswith(folder.name + "/"):
                    path = batch[int(Path(path).name[:3])][0]
                serving.add((path, int(row), int(col), severity, text.split("]", 1)[0]))
            if ": error: [" in line:
                path, code = line.split(":", 1)[0], line.split("[", 1)[1].split("]", 1)[0]
                if path.startswith(folder.name + "/"):
                    index = int(Path(path).name[:3])
                    errors.setdefault(batch[index][0], set()).add(code)
                else:
                    errors.setdefault(path, set()).add(code)
        ours = [line for line in proc.stderr.splitlines() if ": error: [" in line]
        assert proc.returncode == (1 if ours else 0), proc.stderr[:3000]


def test_every_upstream_sample_builds_with_the_shipped_overlay(vendored: Path, tmp_path: Path) -> None:
    base = tmp_path / "repo"
    shutil.copytree(vendored, base)
    runtimes, models = (
        _definitions(base / "runtimes", "ClusterServingRuntime"),
        _defined(base / "models", "ClusterBaseModel"),
    )
    generator = _generator()
    samples = _samples()
    used_models = {models[m] for _, d in samples if (m := (d["spec"].get("model") or {}).get("name")) in models}
    used_runtimes: set[Path] = set()
    variants: dict[tuple[tuple[Path, Path], ...], list[tuple[str, dict[str, Any]]]] = {}
    for sample in samples:  # the files each sample needs; one defining a name twice goes in a kustomization of its own
        chosen = _runtime_files(sample[1], models, runtimes, generator)
        used_runtimes |= {runtimes[name][0] for name in chosen}
        swaps = tuple(sorted((runtimes[n][0], f) for n, f in chosen.items() if f != runtimes[n][0]))
        variants.setdefault(swaps, []).append(sample)
    _add_to_kustomization(base / "models", used_models)
    _add_to_kustomization(base / "runtimes", used_runtimes)
    assert len(variants) > 1  # upstream's unsloth sample needs its own srt-llama-3-2-11b-vision-instruct file
    errors: dict[str, set[str]] = {}
    serving: set[tuple[str, int, int, str, str]] = set()
    for number, (swaps, group) in enumerate(sorted(variants.items())):
        repo = base
        if swaps:
            repo = tmp_path / f"variant-{number}"
            shutil.copytree(base, repo, ignore=shutil.ignore_patterns("apps-*"))
            _swap_in_kustomization(
                repo / "runtimes", {repo / o.relative_to(base): repo / n.relative_to(base) for o, n in swaps}
            )
        _build_samples(repo, group, errors, serving)
    assert {name: codes for name, codes in errors.items() if name not in BROKEN} == {}
    assert {name: codes for name, codes in errors.items() if name in BROKEN} == BROKEN
    assert serving == SERVING_FINDINGS
    assert len(samples) - len([n for n in BROKEN if n.startswith("isvc/")]) > 130
