"""The serving checks through every route: serving-checks on the command line, in OMERENDER_*, in .omerender.yaml,
as an Argo CD parameter and plugin env, as a KRM functionConfig key (also under kpt), and the file's exemptions on
each route that reads it; a silenced finding is a note at -v in the JSON and SARIF reports too."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from gitops_helpers import Proc, app_repository, argocd_generate, env_with_omerender, krm_with, objects, omerender, run

MODEL = """apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata: {name: small-llama}
spec:
  modelFormat: {name: safetensors, version: "1.0.0"}
  modelFramework: {name: transformers, version: "4.45.0"}
  modelArchitecture: LlamaForCausalLM
  modelParameterSize: 1B
  storage: {storageUri: "hf://example/small-llama", path: /models/small-llama}
"""
# 4 ranks on 2 GPUs: gpu-parallelism, an error; no /dev/shm with 2 GPUs: shm-missing, a warning.
RUNTIME = """apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {name: srt-tp-over}
spec:
  supportedModelFormats:
    - modelFormat: {name: safetensors, version: "1.0.0"}
      modelFramework: {name: transformers, version: "4.45.0"}
      modelArchitecture: LlamaForCausalLM
  engineConfig:
    runner:
      name: ome-container
      image: docker.io/lmsysorg/sglang:v0.5.5
      command: [python3, -m, sglang.launch_server, --host, 0.0.0.0, --port, "8080", --model-path, $(MODEL_PATH),
                --tp-size, "4"]
      readinessProbe: {httpGet: {path: /health, port: 8080}}
      resources: {limits: {nvidia.com/gpu: 2}, requests: {nvidia.com/gpu: 2}}
"""
ISVC = """apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {name: llama, namespace: demo}
spec:
  model: {name: small-llama}
  runtime: {name: srt-tp-over}
  engine: {}
"""
EXEMPTION = """serving-check-exemptions:
  - kind: ClusterServingRuntime
    name: srt-tp-over
    codes: [gpu-parallelism]
    reason: the node's GPUs are MIG slices; the engine sees four devices
"""
ERROR = "error: [gpu-parallelism] engine of runtime srt-tp-over: SGLang starts 4 GPU rank(s) in this pod"
WARNED = "warning: [gpu-parallelism] engine of runtime srt-tp-over: SGLang starts 4 GPU rank(s) in this pod"
SHM = "warning: [shm-missing] engine of runtime srt-tp-over"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return app_repository(tmp_path / "repo", {"model.yaml": MODEL, "runtime.yaml": RUNTIME, "isvc.yaml": ISVC})


def _serving(proc: Proc) -> list[str]:
    """The serving findings reported (errors and warnings: a silenced one is a note), without their location."""
    found = [line.split(": ", 1)[1] for line in proc.err.splitlines() if "[gpu-parallelism]" in line or SHM in line]
    return [line for line in found if not line.startswith("info: ")]


def _starts(lines: list[str], *prefixes: str) -> bool:
    """Each line starts with one of ``prefixes``, each prefix starts one line."""
    return sorted(next((p for p in prefixes if line.startswith(p)), "") for line in lines) == sorted(prefixes)


def test_the_command_line_and_the_environment(repo: Path) -> None:
    on = omerender("build", "apps", cwd=repo)
    assert on.code == 1 and on.out == "" and _starts(_serving(on), ERROR, SHM), on
    warn = omerender("build", "apps", "--serving-checks", "warn", cwd=repo)
    assert warn.code == 0 and objects(warn.out) and _starts(_serving(warn), WARNED, SHM), warn
    off = omerender("build", "apps", "--serving-checks", "off", cwd=repo)
    assert off.code == 0 and _serving(off) == [] and objects(off.out) == objects(warn.out), off
    by_env = omerender("build", "apps", cwd=repo, env=env_with_omerender({"OMERENDER_SERVING_CHECKS": "warn"}))
    assert by_env.code == 0 and _starts(_serving(by_env), WARNED, SHM), by_env
    refused = omerender("build", "apps", "--serving-checks", "loud", cwd=repo)
    assert refused.code == 2 and "'loud' is not one of 'on', 'warn', 'off'" in refused.err, refused


def test_the_settings_file_serves_build_argocd_andkrm_with(repo: Path) -> None:
    (repo / ".omerender.yaml").write_text("serving-checks: warn\n")
    built = omerender("build", "apps", "-v", cwd=repo)
    assert built.code == 0 and _starts(_serving(built), WARNED, SHM), built
    assert "omerender: setting serving-checks = warn (file)" in built.err
    generated = argocd_generate(repo / "apps" / "llama", [])
    assert generated.code == 0 and objects(generated.out) == objects(built.out), generated
    assert _starts(_serving(generated), WARNED, SHM), generated
    function = krm_with(repo, {"paths": ["apps"], "emit": ["rendered"]})
    assert function.code == 0 and _starts(_serving(function), WARNED, SHM), function


def test_argocd_parameter_and_plugin_env(repo: Path) -> None:
    app = repo / "apps" / "llama"
    failed = argocd_generate(app, [])
    assert failed.code == 1 and failed.out == "" and _starts(_serving(failed), ERROR, SHM), failed
    warned = argocd_generate(app, [{"name": "serving-checks", "string": "warn"}])
    assert warned.code == 0 and _starts(_serving(warned), WARNED, SHM), warned
    off = argocd_generate(app, [], env={"ARGOCD_ENV_OMERENDER_SERVING_CHECKS": "off"})
    assert off.code == 0 and _serving(off) == [], off


def test_krm_function_config_and_kpt(repo: Path, tmp_path: Path) -> None:
    failed = krm_with(repo, {"paths": ["apps"], "emit": ["rendered"]})
    assert failed.code == 1 and _starts(_serving(failed), ERROR, SHM), failed
    warned = krm_with(repo, {"paths": ["apps"], "emit": ["rendered"], "servingChecks": "warn"})
    assert warned.code == 0 and _starts(_serving(warned), WARNED, SHM), warned
    kpt = shutil.which("kpt")
    if kpt is None:
        pytest.skip("kpt is not installed")
    package = tmp_path / "pkg"
    shutil.copytree(repo / "apps" / "llama", package)
    config = tmp_path / "fn-config.yaml"
    config.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "o"},
                                      "data": {"servingChecks": "warn", "emit": "rendered"}}))  # fmt: skip
    proc = run([kpt, "fn", "eval", str(package), "--exec", "omerender krm", "--fn-config", str(config), "-o", "unwrap"])
    assert proc.code == 0 and any(d["kind"] == "Deployment" for d in objects(proc.out)), proc
    assert "[warning]" in proc.err and "SGLang starts 4 GPU rank(s) in this pod" in proc.err, proc
    config.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "o"},
                                      "data": {"emit": "rendered"}}))  # fmt: skip
    refused = run([kpt, "fn", "eval", str(package), "--exec", "omerender krm", "--fn-config", str(config)])
    assert refused.code != 0 and "[error]" in refused.err and "SGLang starts 4 GPU rank(s)" in refused.err, refused


def test_exemptions_in_the_settings_file_apply_on_every_route(repo: Path) -> None:
    (repo / ".omerender.yaml").write_text(EXEMPTION)
    built = omerender("build", "apps", "-v", cwd=repo)
    assert built.code == 0 and _starts(_serving(built), SHM), built
    note = ".omerender.yaml:2 (the node's GPUs are MIG slices; the engine sees four devices): engine of runtime"
    assert f"info: [gpu-parallelism] silenced by the exemption at {note}" in built.err, built
    generated = argocd_generate(repo / "apps" / "llama", [])
    assert generated.code == 0 and _starts(_serving(generated), SHM), generated
    function = krm_with(repo, {"paths": ["apps"], "emit": ["rendered"]})
    assert function.code == 0 and _starts(_serving(function), SHM), function


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_a_silenced_finding_is_kept_in_the_machine_reports_without_v(repo: Path, fmt: str) -> None:
    (repo / ".omerender.yaml").write_text(EXEMPTION)
    proc = omerender("build", "apps", "--report-format", f"{fmt}=report.json", cwd=repo)
    assert proc.code == 0 and "gpu-parallelism" not in proc.err, proc  # the text report: only at -v
    report = json.loads((repo / "report.json").read_text(encoding="utf-8"))
    if fmt == "json":
        found = [(d["severity"], d["code"]) for d in report["diagnostics"] if d["code"] == "gpu-parallelism"]
        assert found == [("info", "gpu-parallelism")]
        [kept] = [d for d in report["diagnostics"] if d["code"] == "gpu-parallelism"]
        assert kept["suppressed"]["kind"] == "settings" and kept["suppressed"]["by"].startswith("the exemption at ")
    else:
        results = [r for r in report["runs"][0]["results"] if r["ruleId"] == "gpu-parallelism"]
        assert [(r["level"], [s["kind"] for s in r["suppressions"]]) for r in results] == [("error", ["external"])]
        assert "silenced by the exemption" in results[0]["message"]["text"]


def test_a_bad_exemption_is_a_located_settings_error(repo: Path) -> None:
    (repo / ".omerender.yaml").write_text(
        "serving-check-exemptions:\n  - kind: ClusterServingRuntime\n    name: srt-tp-over\n"
        "    codes: [volume-mount-undefined, gpu-paralelism]\n    reason: ''\n"
        "serving-check-severity: {shm-missing: fatal}\n"
    )
    proc = omerender("build", "apps", cwd=repo)
    assert proc.code == 2 and proc.out == "", proc  # a settings error, as a bad value of any other key is
    for other in (argocd_generate(repo / "apps" / "llama", []), krm_with(repo, {"paths": ["apps"]})):
        assert other.code == 2 and other.out == "" and "serving-check-severity shm-missing" in other.err, other
    lines = [line for line in proc.err.splitlines() if "[settings]" in line]
    assert lines == [
        ".omerender.yaml:4:13: error: [settings] serving-check-exemptions entry codes: volume-mount-undefined is the "
        "API server's rule (the pod is refused): it cannot be exempted or relaxed",
        ".omerender.yaml:4:37: error: [settings] serving-check-exemptions entry codes: 'gpu-paralelism' is no serving "
        "check; known: gpu-memory-fit, gpu-parallelism, pd-pairing, probe-target, router-discovery, "
        "served-model-name, shm-missing, tp-heads",
        ".omerender.yaml:5:13: error: [settings] serving-check-exemptions entry: reason must say why the check does "
        "not apply",
        ".omerender.yaml:6:39: error: [settings] serving-check-severity shm-missing: expected error, warning or info",
    ], proc.err
