"""OME's own shipped corpus (../shared/ome) through the CLI: load it, report its defects, render every accepted pair.

Skipped when ../shared/ome is absent. Models get their model-agent fields from
fixtures/ome-corpus-metadata.yaml; which runtime/model pairs OME accepts is decided by omerender's
matcher (a port of OME's), and each accepted pair is rendered as one InferenceService.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from omerender.selection import matching

REPO = Path(__file__).resolve().parents[2]
OME = REPO.parent / "shared" / "ome"
METADATA = REPO / "fixtures" / "ome-corpus-metadata.yaml"
COHERE = "srt/CohereForAI/c4ai-command-r-v01-rt.yaml"
NAMESPACE = "corpus"
# second file (in path order) -> (name, first file): omerender keeps the first and rejects the second
DUPLICATES = {
    "srt/Qwen/qwen2-5-32b-instruct-rt.yaml": ("srt-qwen2-5-32b-instruct", "srt/Qwen/Qwen2.5-32B-Instruct-rt.yaml"),
    "srt/Qwen/qwen3-embedding-0-6b-rt.yaml": ("srt-qwen3-embedding-0-6b", "srt/Qwen/Qwen3-Embedding-0.6B-rt.yaml"),
    "srt/mixtral-8x7b-instruct-rt.yaml": (
        "srt-mixtral-8x7b-instruct",
        "srt/mistralai/mixtral-8x7b-instruct-v0-1-rt.yaml",
    ),
    "srt/unsloth/llama-3-2-11b-vision-instruct-rt.yaml": (
        "srt-llama-3-2-11b-vision-instruct",
        "srt/meta/llama-3-2-11b-vision-instruct-rt.yaml",
    ),
}

pytestmark = pytest.mark.skipif(not OME.is_dir(), reason="../shared/ome (OME's corpus) is not present")


def _docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.load_all(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader) if isinstance(d, dict)]


def runtime_files() -> list[Path]:
    return sorted(p for p in (OME / "runtimes").rglob("*.yaml") if p.name != "kustomization.yaml")


def model_files() -> list[Path]:
    return sorted(p for p in (OME / "models").rglob("*.yaml") if p.name != "kustomization.yaml")


def kept_runtime_files() -> list[Path]:
    return [p for p in runtime_files() if p.relative_to(OME / "runtimes").as_posix() not in DUPLICATES]


def models_with_metadata() -> dict[str, dict[str, Any]]:
    overlay = yaml.safe_load(METADATA.read_text(encoding="utf-8"))["models"]
    models = {}
    for path in model_files():
        for doc in _docs(path):
            spec = doc.get("spec") or {}
            for field, value in overlay.get(doc["metadata"]["name"], {}).items():
                if spec.get(field) is None:
                    spec[field] = value
            models[doc["metadata"]["name"]] = spec
    return models


@cache
def accepted_pairs() -> list[tuple[str, str, Path, dict[str, Any]]]:
    """(runtime, model, runtime file, runtime spec) for every pair OME's ValidateRuntime accepts."""
    models = {name: matching.apply_format_defaults(spec) for name, spec in models_with_metadata().items()}
    pairs = []
    for path in kept_runtime_files():
        for doc in _docs(path):
            spec = matching.apply_format_defaults(doc["spec"])
            architectures = {e.get("modelArchitecture") for e in spec.get("supportedModelFormats") or []}
            for model, model_spec in sorted(models.items()):
                if model_spec.get("modelArchitecture") not in architectures:
                    continue  # OME's architecture rule (both unset or equal) fails for every entry
                if matching.validate_named_runtime(doc["metadata"]["name"], spec, False, model_spec) is None:
                    pairs.append((doc["metadata"]["name"], model, path, doc["spec"]))
    return pairs


def isvc(name: str, model: str, runtime: str | None, spec: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = {"model": {"name": model}, "engine": {}}
    if runtime is not None:
        body["runtime"] = {"name": runtime}
    for component in ("decoder", "router"):
        if isinstance(spec.get(f"{component}Config"), dict):
            body[component] = {}
    return {
        "apiVersion": "ome.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": name, "namespace": NAMESPACE},
        "spec": body,
    }


def expected_kinds(spec: dict[str, Any]) -> Counter[str]:
    """What OME creates for an InferenceService declaring every component the runtime configures."""
    kinds: Counter[str] = Counter({"ConfigMap": 1, "Service": 1})  # modelconfig-…, external Service
    for component in ("engine", "decoder", "router"):
        config = spec.get(f"{component}Config")
        if component != "engine" and not isinstance(config, dict):
            continue
        config = config or {}
        if component != "router" and (config.get("leader") is not None or config.get("worker") is not None):
            kinds.update({"LeaderWorkerSet": 1, "Service": 1})
        else:
            kinds.update({"Deployment": 1, "Service": 1, "HorizontalPodAutoscaler": 1, "PodDisruptionBudget": 1})
        if component == "router":
            kinds.update({"ServiceAccount": 1, "Role": 1, "RoleBinding": 1})
    return kinds


def build(run_cli, *paths: Path | str, extra: tuple[str, ...] = ()) -> Any:
    return run_cli("build", *map(str, paths), "--model-metadata", str(METADATA), *extra)


def test_whole_corpus_loads_with_its_known_defects(run_cli) -> None:
    assert len(runtime_files()) == 207 and len(model_files()) == 207
    # every file, past upstream's kustomizations (which list 48 runtimes and 86 models): the subfolders hold none
    every = [OME / "runtimes" / "srt", OME / "runtimes" / "vllm", *model_files()]
    result = run_cli("build", *map(str, every))
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    root = OME / "runtimes"
    assert errors == sorted(
        f"{root / second}:4:9: error: [duplicate-object] duplicate ClusterServingRuntime '{name}': also defined at "
        f"{root / first}:4"
        for second, (name, first) in DUPLICATES.items()
    )
    cohere = (
        f"{root / COHERE}:63:11: warning: [runtime-template] engineConfig.runner.command[18] holds '{{{{ "
        "system_message }}', which is not "
        "a placeholder OME can fill: OME runs this container through Go's html/template, so every InferenceService "
        "using "
        'runtime srt-c4ai-command-r-v01 fails with "failed to replace placeholders in container"; move the text into a '
        "ConfigMap-backed env or file"
    )
    assert cohere in result.stderr.splitlines()


def test_the_folders_as_vendored_read_what_their_kustomizations_list(run_cli) -> None:
    result = run_cli("build", str(OME / "runtimes"), str(OME / "models"), "--emit", "inputs")
    assert result.exit_code == 0, result
    assert "duplicate-object" not in result.stderr
    kinds = Counter(d["kind"] for d in yaml.load_all(result.stdout, Loader=yaml.CSafeLoader) if d)
    assert kinds == Counter({"ClusterServingRuntime": 48, "ClusterBaseModel": 86})


def test_every_object_is_read(run_cli) -> None:
    result = build(run_cli, *kept_runtime_files(), *model_files(), extra=("--emit", "inputs"))
    assert result.exit_code == 0, result
    kinds = Counter(d["kind"] for d in yaml.load_all(result.stdout, Loader=yaml.CSafeLoader) if d)
    assert kinds == Counter({"ClusterServingRuntime": 203, "ClusterBaseModel": 207})


# Runtimes OME accepts a model for but whose pods cannot be built: what omerender reports at which line.
BROKEN = {
    "srt-c4ai-command-r-v01": (
        COHERE,
        ":63:11: error: [placeholder] failed to reconcile pod spec: failed to replace placeholders in container: "
        "unsupported template action ",
    ),
    # Engine probes on the SGLang router's /readiness and /liveness, which the SGLang server does not serve (the
    # serving check probe-target; tests/corpus/test_serving_corpus.py lists every serving finding of the corpus).
    "srt-e5-7b-mistral-instruct": (
        "srt/e5-mistral-7b-instruct-rt.yaml",
        ":70:17: error: [probe-target] engine of runtime srt-e5-7b-mistral-instruct: readinessProbe asks for "
        "/readiness, which the SGLang router serves and SGLang does not (404)",
    ),
}
# srt-deepseek-rdma's leader mounts volumes dshm and devinf that only its worker defines (volume-mount-undefined).
NO_LEADER_VOLUMES = "srt-deepseek-rdma"


def test_every_accepted_pair_renders(run_cli, tmp_path: Path) -> None:
    pairs = accepted_pairs()
    assert len({p[0] for p in pairs}) >= 140  # runtimes that accept at least one corpus model
    good = [p for p in pairs if p[0] not in BROKEN and p[0] != NO_LEADER_VOLUMES]
    expected: dict[str, Counter[str]] = {}
    docs = []
    for i, (runtime, model, _, spec) in enumerate(good):
        name = f"pair-{i:04d}"
        docs.append(isvc(name, model, runtime, spec))
        expected[name] = expected_kinds(spec)
    (tmp_path / "isvcs.yaml").write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    result = build(run_cli, tmp_path, *kept_runtime_files(), *model_files())
    assert result.exit_code == 0, result.stderr[-3000:]
    actual: dict[str, Counter[str]] = {}
    for obj in yaml.load_all(result.stdout, Loader=yaml.CSafeLoader):
        if obj:
            owner = obj["metadata"]["labels"]["ome.io/inferenceservice"]
            actual.setdefault(owner, Counter())[obj["kind"]] += 1
    assert actual == expected
    multinode_pd = {p[0] for p in good if "decoderConfig" in p[3] and "leader" in p[3]["engineConfig"]}
    assert multinode_pd == {"srt-deepseek-rdma-pd", "srt-kimi-k2-pd"}
    single_node_pd = {p[0] for p in good if "decoderConfig" in p[3] and "leader" not in p[3]["engineConfig"]}
    assert len(single_node_pd) >= 3


@pytest.mark.parametrize("runtime", sorted(BROKEN))
def test_broken_runtimes_fail_with_a_located_error(run_cli, tmp_path: Path, runtime: str) -> None:
    pair = next(p for p in accepted_pairs() if p[0] == runtime)
    (tmp_path / "isvc.yaml").write_text(yaml.safe_dump(isvc("broken", pair[1], runtime, pair[3])), encoding="utf-8")
    result = build(run_cli, tmp_path, *kept_runtime_files(), *model_files())
    assert result.exit_code == 1
    file, finding = BROKEN[runtime]
    assert f"{OME / 'runtimes' / file}{finding}" in result.stderr


def test_leader_without_volumes_is_rendered_as_ome_builds_it(run_cli, tmp_path: Path) -> None:
    """OME builds the leader pod from engineConfig.leader alone, so its mounts of dshm and devinf dangle: the API
    server refuses the leader template (volume-mount-undefined), and the objects are rendered as OME builds them."""
    pair = next(p for p in accepted_pairs() if p[0] == NO_LEADER_VOLUMES)
    (tmp_path / "isvc.yaml").write_text(
        yaml.safe_dump(isvc("rdma", pair[1], NO_LEADER_VOLUMES, pair[3])), encoding="utf-8"
    )
    result = build(run_cli, tmp_path, *kept_runtime_files(), *model_files())
    assert result.exit_code == 1 and result.stdout == ""
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    runtime = OME / "runtimes" / "srt" / "deepseek-rdma-rt.yaml"
    assert [line.split(": error: ")[0] for line in errors] == [f"{runtime}:164:13", f"{runtime}:166:13"]
    assert all("[volume-mount-undefined]" in line for line in errors)
    assert [line.split('mounts volume "')[1].split('"')[0] for line in errors] == ["dshm", "devinf"]
    from omerender.pipeline import build as build_objects
    from omerender.result import BuildOptions

    paths = [str(tmp_path), *map(str, kept_runtime_files()), *map(str, model_files())]
    built = build_objects(paths, BuildOptions(model_metadata=str(METADATA)))
    [lws] = [d for d in built.objects if d["kind"] == "LeaderWorkerSet"]
    leader = lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]
    worker = lws["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]
    assert [v["name"] for v in leader["volumes"]] == [pair[1]]
    assert [v["name"] for v in worker["volumes"]] == ["dshm", "devinf", pair[1]]
    assert [m["name"] for m in leader["containers"][0]["volumeMounts"]] == ["dshm", "devinf", pair[1]]


def _select(run_cli, tmp_path: Path, model: str) -> Any:
    (tmp_path / "isvc.yaml").write_text(yaml.safe_dump(isvc("auto", model, None, {})), encoding="utf-8")
    return build(run_cli, tmp_path, *kept_runtime_files(), *model_files(), extra=("-v", "--report-format", "json"))


def _notes(result: Any, code: str) -> list[str]:
    report = json.loads(result.stderr)
    return [d["message"] for d in report["diagnostics"] if d["code"] == code]


def test_auto_selection_worked_examples(run_cli, tmp_path: Path) -> None:
    """ome-selection §1.10: what OME picks over the shipped runtimes."""
    llama = _select(run_cli, tmp_path, "llama-3-2-1b-instruct")
    assert llama.exit_code == 0
    assert _notes(llama, "runtime-selected") == [
        "no runtime named; OME selects ClusterServingRuntime vllm-llama-3-2-1b-instruct (score 2, 1 compatible)"
    ]
    assert (
        "srt-llama-3-2-1b-instruct is compatible but not considered: runtime does not have auto-select enabled for any "
        "supported format" in _notes(llama, "runtime-skipped")
    )

    coder = _select(run_cli, tmp_path, "qwen2-5-coder-32b-instruct")
    assert coder.exit_code == 0
    assert _notes(coder, "runtime-selected") == [
        "no runtime named; OME selects ClusterServingRuntime srt-deepseek-r1-distill-qwen-14b (score 2, 4 compatible)"
    ]
    assert _notes(coder, "runtime-runner-up") == [
        "runner-up #2: ClusterServingRuntime srt-deepseek-r1-distill-qwen-32b (score 2, size distance 0)",
        "runner-up #3: ClusterServingRuntime srt-qwen2-5-32b-instruct (score 2, size distance 4e+09)",
        "runner-up #4: ClusterServingRuntime srt-qwen2-5-coder-32b-instruct (score 2, size distance 4e+09)",
    ]
    assert _notes(coder, "selection-tie")  # decided by name only: OME's "ambiguous" case

    deepseek = _select(run_cli, tmp_path, "deepseek-v3")
    assert deepseek.exit_code == 1
    [message] = _notes(deepseek, "RuntimeSelectionError")
    assert message.startswith(  # engine set, no spec.runtime, no runner image: OME's webhook selects and refuses
        "OME's validating webhook refuses it: no supporting runtime found for model deepseek-v3 and engine does not "
        "have complete runner configuration: no runtime found to support model safetensors with format "
        f"safetensors in namespace {NAMESPACE}. Checked 203 runtimes (0 namespace-scoped, 203 cluster-scoped). "
        "Excluded runtimes: "
    )
    skipped = _notes(deepseek, "runtime-skipped")
    assert skipped == [
        f"{name} is compatible but not considered: runtime does not have auto-select enabled for any supported format"
        for name in ("srt-deepseek-rdma", "srt-deepseek-rdma-pd", "srt-deepseek-v3")
    ]
    excluded = _notes(deepseek, "runtime-excluded")  # a failure lists every one at -v, one short note each
    assert len(excluded) == 200 and all(" is excluded: model format " in n and len(n) < 400 for n in excluded)
