"""The gpu-memory setting through every route: --gpu-memory, OMERENDER_GPU_MEMORY, gpu-memory in .omerender.yaml, the
Argo CD parameter and plugin env, the KRM functionConfig key gpuMemory; and its bad values refused on each."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitops_helpers import Proc, app_repository, argocd_generate, env_with_omerender, krm_with, objects, omerender

# 70B parameters in bfloat16 over --tp-size 2: 65.2 GiB of weights per GPU. The runtime names no GPU: under the
# 72 GiB an 80 GiB GPU gives at 0.9, so quiet by default; over the 36 GiB of 40 GiB GPUs (gpu-memory 40).
MODEL = """apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata: {name: llama-70b}
spec:
  modelFormat: {name: safetensors, version: "1.0.0"}
  modelFramework: {name: transformers, version: "4.45.0"}
  modelArchitecture: LlamaForCausalLM
  modelParameterSize: 70B
  modelConfiguration: {torch_dtype: bfloat16}
  storage: {storageUri: "hf://example/llama-70b", path: /models/llama-70b}
"""
RUNTIME = """apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {name: srt-tp2}
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
                --tp-size, "2"]
      volumeMounts: [{name: dshm, mountPath: /dev/shm}]
      readinessProbe: {httpGet: {path: /health, port: 8080}}
      resources: {limits: {nvidia.com/gpu: 2}, requests: {nvidia.com/gpu: 2}}
"""
ISVC = """apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {name: llama, namespace: demo}
spec:
  model: {name: llama-70b}
  runtime: {name: srt-tp2}
  engine: {}
"""
FINDING = (
    "error: [gpu-memory-fit] engine of runtime srt-tp2: model llama-70b's weights (70B parameters x 2 byte(s), "
    "torch_dtype bfloat16) come to 130.4 GiB, 65.2 GiB on each of the 2 GPU(s) of --tp-size 2, more than the 36.0 GiB"
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return app_repository(tmp_path / "repo", {"model.yaml": MODEL, "runtime.yaml": RUNTIME, "isvc.yaml": ISVC})


def _found(proc: Proc) -> list[str]:
    return [line.split(": ", 1)[1][: len(FINDING)] for line in proc.err.splitlines() if "[gpu-memory-fit]" in line]


def test_quiet_by_default_and_an_error_with_the_setting_on_the_command_line_and_in_the_environment(repo: Path) -> None:
    quiet = omerender("build", "apps", cwd=repo)
    assert quiet.code == 0 and objects(quiet.out) and _found(quiet) == [], quiet
    flagged = omerender("build", "apps", "--gpu-memory", "40", cwd=repo)
    assert flagged.code == 1 and flagged.out == "" and _found(flagged) == [FINDING], flagged
    roomy = omerender("build", "apps", "--gpu-memory", "141", cwd=repo)
    assert roomy.code == 0 and _found(roomy) == [], roomy
    by_env = omerender("build", "apps", cwd=repo, env=env_with_omerender({"OMERENDER_GPU_MEMORY": "40"}))
    assert by_env.code == 1 and _found(by_env) == [FINDING], by_env
    warned = omerender("build", "apps", "--gpu-memory", "40", "--serving-checks", "warn", cwd=repo)
    assert warned.code == 0 and "warning: [gpu-memory-fit]" in warned.err, warned


def test_the_settings_file_serves_build_argocd_andkrm_with(repo: Path) -> None:
    (repo / ".omerender.yaml").write_text("gpu-memory: 40\n")
    built = omerender("build", "apps", "-v", cwd=repo)
    assert built.code == 1 and _found(built) == [FINDING], built
    assert "omerender: setting gpu-memory = 40 (file)" in built.err
    generated = argocd_generate(repo / "apps" / "llama", [])
    assert generated.code == 1 and _found(generated) == [FINDING], generated
    function = krm_with(repo, {"paths": ["apps"], "emit": ["rendered"]})
    assert function.code == 1 and _found(function) == [FINDING], function
    over = omerender("build", "apps", "--gpu-memory", "80", cwd=repo)  # the command line wins over the file
    assert over.code == 0 and _found(over) == [], over


def test_argocd_parameter_plugin_env_and_krm_key(repo: Path) -> None:
    app = repo / "apps" / "llama"
    assert _found(argocd_generate(app, [])) == []
    assert (
        _found(argocd_generate(app, [{"name": "gpu-memory", "string": ""}])) == []
    )  # left blank in the UI: the default
    assert _found(argocd_generate(app, [{"name": "gpu-memory", "string": "40"}])) == [FINDING]
    assert _found(argocd_generate(app, [], env={"ARGOCD_ENV_OMERENDER_GPU_MEMORY": "40"})) == [FINDING]
    assert _found(krm_with(repo, {"paths": ["apps"], "emit": ["rendered"], "gpuMemory": 40})) == [FINDING]
    assert _found(krm_with(repo, {"paths": ["apps"], "emit": ["rendered"], "gpuMemory": "40"})) == [FINDING]


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "2000", "lots"])
def test_a_bad_value_is_a_usage_error_on_every_route(repo: Path, value: str) -> None:
    cli = omerender("build", "apps", "--gpu-memory", value, cwd=repo)
    assert cli.code == 2 and cli.out == "" and "gpu-memory" in cli.err and "Traceback" not in cli.err, cli
    env = omerender("build", "apps", cwd=repo, env=env_with_omerender({"OMERENDER_GPU_MEMORY": value}))
    assert env.code == 2 and "OMERENDER_GPU_MEMORY" in env.err and "Traceback" not in env.err, env
    generated = argocd_generate(repo / "apps" / "llama", [{"name": "gpu-memory", "string": value}])
    assert generated.code == 2 and generated.out == "" and "gpu-memory" in generated.err, generated
    function = krm_with(repo, {"paths": ["apps"], "emit": ["rendered"], "gpuMemory": value})
    assert function.code != 0 and "gpuMemory" in function.err and "Traceback" not in function.err, function


@pytest.mark.parametrize("written", ["0", "2000", '"40"', "[40]", "true"])
def test_a_bad_value_in_the_settings_file_is_located(repo: Path, written: str) -> None:
    (repo / ".omerender.yaml").write_text(f"gpu-memory: {written}\n")
    proc = omerender("build", "apps", cwd=repo)
    assert proc.code == 2 and proc.out == "" and ".omerender.yaml:1:" in proc.err and "gpu-memory" in proc.err, proc
