"""Issue 33's repository, built for a test (every test area imports it from here): OME's vendored runtimes and
models with their upstream kustomizations under ``platform/`` (copied from ../shared/ome when the test runs, never
committed), ``platform/profiles`` with three profiles and eight thin children (two-level chains), three teams under
``apps/`` (team-b's ``sglang-profile`` ServingRuntime shadows the cluster one; team-a's pinned InferenceService has
its ``omerender.lock``; team-c is a kustomize folder) and one ``.omerender.yaml`` naming ``platform`` as the search
path.

Team a and team c each hold two flat namespaced ServingRuntimes of one engine: what ``factor`` turns into children.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

REPO = Path(__file__).resolve().parents[1]
OME = REPO.parent / "shared" / "ome"
APPS = ("apps/team-a", "apps/team-b", "apps/team-c")

SGLANG_IMAGE = "docker.io/lmsysorg/sglang:v0.5.5.post3-cu129-amd64"
VLLM_IMAGE = "docker.io/vllm/vllm-openai:v0.9.0.1"

PROFILE = """apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: {name}
  annotations:
    ome.io/runtime-profile: "true"
spec:
  disabled: true
  protocolVersions:
    - openAI
  engineConfig:
    tolerations:
      - key: nvidia.com/gpu
        operator: Exists
        effect: NoSchedule
    runner:
      name: ome-container
      image: {image}
      ports:
        - containerPort: 8080
          name: http1
          protocol: TCP
      command:
{command}
      env:
        - name: NCCL_DEBUG
          value: WARN
      resources:
        requests:
          cpu: 10
          memory: 30Gi
          nvidia.com/gpu: 1
        limits:
          cpu: 10
          memory: 30Gi
          nvidia.com/gpu: 1
"""
SGLANG_COMMAND = ("python3", "-m", "sglang.launch_server", "--host", "0.0.0.0", "--port", "8080")
VLLM_COMMAND = ("python3", "-m", "vllm.entrypoints.openai.api_server", "--port", "8080")
H100 = """apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: sglang-h100-profile
  annotations:
    ome.io/runtime-profile: "true"
    ome.io/inherit-from: sglang-profile
spec:
  disabled: true
  engineConfig:
    nodeSelector:
      nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
    runner:
      name: ome-container
      resources:
        requests:
          nvidia.com/gpu: 8
        limits:
          nvidia.com/gpu: 8
"""
CHILD = """apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: {name}
  annotations:
    ome.io/inherit-from: {parent}
spec:
  disabled: false
  supportedModelFormats:
    - modelFormat:
        name: safetensors
        version: "1.0.0"
      modelFramework:
        name: transformers
        version: "4.45.0.dev0"
      modelArchitecture: {architecture}
      autoSelect: false
  modelSizeRange:
    min: {low}
    max: {high}
  engineConfig:
    runner:
      name: ome-container
      args:
        - --served-model-name
        - {served}
"""
CHILDREN = (  # name, parent, architecture, size range, served model
    ("platform-llama-3-2-1b", "sglang-profile", "LlamaForCausalLM", "500M", "2B", "meta-llama/Llama-3.2-1B-Instruct"),
    ("platform-llama-3-2-3b", "sglang-profile", "LlamaForCausalLM", "2B", "5B", "meta-llama/Llama-3.2-3B-Instruct"),
    ("platform-phi-3-mini", "sglang-profile", "Phi3ForCausalLM", "3B", "5B", "microsoft/Phi-3-mini-4k-instruct"),
    ("platform-llama-3-1-8b", "sglang-h100-profile", "LlamaForCausalLM", "6B", "10B", "meta-llama/Llama-3.1-8B"),
    ("platform-llama-3-1-70b", "sglang-h100-profile", "LlamaForCausalLM", "60B", "80B", "meta-llama/Llama-3.1-70B"),
    ("platform-qwen2-5-7b", "vllm-profile", "Qwen2ForCausalLM", "6B", "9B", "Qwen/Qwen2.5-7B"),
    ("platform-mistral-7b", "vllm-profile", "MistralForCausalLM", "6B", "9B", "mistralai/Mistral-7B-v0.3"),
    ("platform-gemma-2-9b", "vllm-profile", "Gemma2ForCausalLM", "8B", "10B", "google/gemma-2-9b"),
)
TEAM_RUNTIME = """apiVersion: ome.io/v1beta1
kind: ServingRuntime
metadata:
  name: {name}
  namespace: {namespace}
spec:
  disabled: false
  supportedModelFormats:
    - modelFormat:
        name: safetensors
        version: "1.0.0"
      modelFramework:
        name: transformers
        version: "4.45.0.dev0"
      modelArchitecture: LlamaForCausalLM
      autoSelect: false
  protocolVersions:
    - openAI
  modelSizeRange:
    min: {low}
    max: {high}
  engineConfig:
    tolerations:
      - key: nvidia.com/gpu
        operator: Exists
        effect: NoSchedule
    runner:
      name: ome-container
      image: {image}
      command:
        - python3
        - -m
        - sglang.launch_server
        - --host
        - "0.0.0.0"
        - --port
        - "8080"
        - --model-path
        - $(MODEL_PATH)
        - --tp-size
        - "{tp}"
      env:
        - name: TEAM
          value: {namespace}
        - name: NCCL_DEBUG
          value: {debug}
      resources:
        requests:
          cpu: 10
          memory: 30Gi
          nvidia.com/gpu: {tp}
        limits:
          cpu: 10
          memory: 30Gi
          nvidia.com/gpu: {tp}
"""
TEAM_B_CHILD = """apiVersion: ome.io/v1beta1
kind: ServingRuntime
metadata:
  name: team-b-llama-3-1-8b
  namespace: team-b
  annotations:
    ome.io/inherit-from: sglang-profile
spec:
  disabled: false
  supportedModelFormats:
    - modelFormat:
        name: safetensors
        version: "1.0.0"
      modelFramework:
        name: transformers
        version: "4.45.0.dev0"
      modelArchitecture: LlamaForCausalLM
      autoSelect: false
  modelSizeRange:
    min: 6B
    max: 10B
"""
ISVC = """apiVersion: ome.io/v1beta1
kind: InferenceService
metadata:
  name: {name}
  namespace: {namespace}
spec:
  model:
    name: {model}
  runtime:
    name: {runtime}{pinned}
  engine:
    minReplicas: 1
    maxReplicas: 1
"""
TEAMS = {  # team: its InferenceServices (name, model, runtime, pinned)
    "team-a": (
        ("chat", "llama-3-2-1b-instruct", "a-llama-1b", False),
        ("assistant", "llama-3-2-3b-instruct", "a-llama-3b", False),
        ("batch", "llama-3-1-8b-instruct", "platform-llama-3-1-8b", True),
        ("platform-3b", "llama-3-2-3b-instruct", "platform-llama-3-2-3b", False),
    ),
    "team-b": (
        ("search", "llama-3-1-8b-instruct", "team-b-llama-3-1-8b", False),
        ("qwen", "qwen3-0-6b", "platform-qwen2-5-7b", False),
        ("ome-small", "llama-3-2-1b-instruct", "srt-llama-3-2-1b-instruct", False),
    ),
    "team-c": (
        ("chat", "llama-3-2-1b-instruct", "c-llama-1b", False),
        ("assistant", "llama-3-2-3b-instruct", "c-llama-3b", False),
        ("mistral", "mistral-7b-instruct-v0-2", "platform-mistral-7b", False),
    ),
}
TEAM_C_KUSTOMIZATION = """apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - inference-services.yaml
  - runtimes/c-llama-1b.yaml
  - runtimes/c-llama-3b.yaml
"""


def _team_runtime(name: str, namespace: str, low: str, high: str, tp: int, debug: str) -> str:
    return TEAM_RUNTIME.format(
        name=name, namespace=namespace, low=low, high=high, tp=tp, debug=debug, image=SGLANG_IMAGE
    )


def _command(parts: tuple[str, ...]) -> str:
    return "\n".join(f'        - "{part}"' for part in parts)


def _vendor(source: Path, target: Path) -> None:
    """A copy of OME's folder, writable as a checkout is (the shared copy is read-only)."""
    import os

    shutil.copytree(source, target, copy_function=shutil.copyfile)
    for folder, _, _ in os.walk(target):
        os.chmod(folder, 0o755)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _lock(root: Path, app: str) -> None:
    from omerender.cli import main

    result = CliRunner().invoke(main, ["lock", app], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert (root / app / "omerender.lock").is_file()


def ome_repository(root: Path) -> Path:
    """Write the repository into ``root`` (made; the test's working folder should be ``root`` when it runs
    ``omerender``, as in a checkout) and return ``root``. Writes ``apps/team-a/omerender.lock`` through ``lock``
    from within ``root``."""
    import os

    (root / ".git").mkdir(parents=True)  # the repository's top, as a checkout has it
    _write(root / ".omerender.yaml", "search-path: [platform]\n")
    for folder in ("runtimes", "models"):
        _vendor(OME / folder, root / "platform" / folder)
    profiles = root / "platform" / "profiles"
    for name, image, command in (
        ("sglang-profile", SGLANG_IMAGE, SGLANG_COMMAND),
        ("vllm-profile", VLLM_IMAGE, VLLM_COMMAND),
    ):
        _write(profiles / f"{name}.yaml", PROFILE.format(name=name, image=image, command=_command(command)))
    _write(profiles / "sglang-h100-profile.yaml", H100)
    for name, parent, architecture, low, high, served in CHILDREN:
        text = CHILD.format(name=name, parent=parent, architecture=architecture, low=low, high=high, served=served)
        _write(profiles / "children" / f"{name}.yaml", text)
    team_a = root / "apps" / "team-a"
    _write(team_a / "runtimes" / "a-llama-1b.yaml", _team_runtime("a-llama-1b", "team-a", "500M", "2B", 1, "WARN"))
    _write(team_a / "runtimes" / "a-llama-3b.yaml", _team_runtime("a-llama-3b", "team-a", "2B", "5B", 1, "WARN"))
    team_b = root / "apps" / "team-b"
    shadow = PROFILE.format(name="sglang-profile", image=SGLANG_IMAGE, command=_command(SGLANG_COMMAND))
    shadow = shadow.replace("kind: ClusterServingRuntime", "kind: ServingRuntime").replace("value: WARN", "value: INFO")
    shadow = shadow.replace("  name: sglang-profile\n", "  name: sglang-profile\n  namespace: team-b\n")
    _write(team_b / "runtimes" / "sglang-profile.yaml", shadow)
    _write(team_b / "runtimes" / "team-b-llama-3-1-8b.yaml", TEAM_B_CHILD)
    team_c = root / "apps" / "team-c"
    _write(team_c / "runtimes" / "c-llama-1b.yaml", _team_runtime("c-llama-1b", "team-c", "500M", "2B", 1, "INFO"))
    _write(team_c / "runtimes" / "c-llama-3b.yaml", _team_runtime("c-llama-3b", "team-c", "2B", "5B", 2, "INFO"))
    _write(team_c / "kustomization.yaml", TEAM_C_KUSTOMIZATION)
    for team, services in TEAMS.items():
        documents = [
            ISVC.format(
                name=name,
                namespace=team,
                model=model,
                runtime=runtime,
                pinned="\n    autoSync: false" if pinned else "",
            )
            for name, model, runtime, pinned in services
        ]
        _write(root / "apps" / team / "inference-services.yaml", "---\n".join(documents))
    here = os.getcwd()
    os.chdir(root)
    try:
        _lock(root, "apps/team-a")
    finally:
        os.chdir(here)
    return root


def git(root: Path, *args: str) -> str:
    """Run git in ``root`` (a fixed identity, no user configuration) and return its output."""
    import subprocess

    env = ["-c", "user.name=omerender-tests", "-c", "user.email=tests@example.org", "-c", "commit.gpgsign=false"]
    done = subprocess.run(["git", *env, "-C", str(root), *args], check=True, capture_output=True, text=True)
    return done.stdout


def committed_repository(root: Path) -> Path:
    """``ome_repository`` as a git repository: everything committed on ``main``, then a branch ``pr`` checked out
    (the pull request's work tree)."""
    ome_repository(root)
    shutil.rmtree(root / ".git")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "pr")
    return root


def profile_change(root: Path, value: str = "INFO") -> None:
    """The pull request of issue 33: ``NCCL_DEBUG`` of ``sglang-profile`` changes, committed on ``pr``."""
    profile = root / "platform" / "profiles" / "sglang-profile.yaml"
    profile.write_text(profile.read_text(encoding="utf-8").replace("value: WARN", f"value: {value}"), encoding="utf-8")
    git(root, "commit", "-q", "-am", "NCCL_DEBUG")
