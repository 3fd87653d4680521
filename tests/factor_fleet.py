"""A small fleet for factor's tests: two flat runtimes of one engine, a model and an InferenceService."""

from __future__ import annotations

from pathlib import Path

from use_cases import built

from omerender.output.formats import BUILD_FORMATS

EXAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "llama-demo"

RUNTIME = """apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: {name}
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
    min: {lo}
    max: {hi}
  engineConfig:
    runner:
      name: ome-container
      image: docker.io/lmsysorg/sglang:v0.5.5  # pinned engine build
      command:
        - python3
        - -m
        - sglang.launch_server
        - --host=0.0.0.0
        - --port=8080
        - --tp-size={tp}
      env:
        - name: HF_HOME
          value: /models
      resources:
        limits:
          nvidia.com/gpu: "{tp}"
"""
ISVC = """apiVersion: ome.io/v1beta1
kind: InferenceService
metadata:
  name: named
  namespace: team-a
spec:
  model:
    name: llama-3-2-3b-instruct
  runtime:
    name: sglang-small
  engine:
    minReplicas: 1
    maxReplicas: 1
"""


def fleet(root: Path, newline: str = "\n", bom: str = "") -> Path:
    (root / "runtimes").mkdir(parents=True)
    for name, lo, hi, tp in (("sglang-small", "1B", "4B", 1), ("sglang-medium", "4B", "10B", 2)):
        text = bom + RUNTIME.format(name=name, lo=lo, hi=hi, tp=tp).replace("\n", newline)
        (root / "runtimes" / f"{name}.yaml").write_bytes(text.encode("utf-8"))
    (root / "model.yaml").write_bytes((EXAMPLE / "model.yaml").read_bytes())
    (root / "apps.yaml").write_text(ISVC, encoding="utf-8")
    return root


def build_output(tree: Path) -> str:
    """What ``omerender build TREE`` prints: the rendered objects as YAML (the build must pass)."""
    result = built(tree)
    assert not result.failed, result.diagnostics
    return BUILD_FORMATS["yaml"](result.objects)


def listing(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


KILLED_AFTER_COMMIT = """
import os, signal, sys
replace = os.replace
def replacing(src, dst, **kwargs):
    replace(src, dst, **kwargs)
    if os.fspath(src).endswith(".omerender-factor.journal.tmp"):  # the journal is committed: die before using it
        os.kill(os.getpid(), signal.SIGKILL)
os.replace = replacing
from omerender.cli import main
main(sys.argv[1:])
"""


def killed_after_commit(tree: Path, *args: str) -> Path:
    """Run ``factor --in-place TREE ARGS`` killed (SIGKILL) right after its journal commits: the journal, which the
    next run finishes. Nothing in omerender knows of it: the subprocess wraps ``os.replace``."""
    import subprocess
    import sys

    command = [sys.executable, "-c", KILLED_AFTER_COMMIT, "factor", str(tree), "--in-place", *args]
    done = subprocess.run(command, capture_output=True, check=False, cwd=tree.parent)
    journal = tree / ".omerender-factor.journal"
    assert done.returncode == -9 and journal.is_dir(), done
    return journal
