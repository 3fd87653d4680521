"""Diagnostics stay readable on a real repository: bounded lines, errors first under --max-errors, echoed values cut."""

from __future__ import annotations

from pathlib import Path

import pytest

MODEL = """apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata: {name: m}
spec:
  modelFormat: {name: safetensors, version: "1.0.0"}
  modelFramework: {name: transformers, version: "4.45.0"}
  modelArchitecture: LlamaForCausalLM
  modelParameterSize: 3B
  storage: {storageUri: "hf://a/b", path: /raid/m}
"""
ISVC = """apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {name: s, namespace: team}
spec:
  model: {name: m}
  engine: {minReplicas: 1, maxReplicas: 1}
"""


def runtime(name: str, architecture: str) -> str:
    return f"""apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {{name: {name}}}
spec:
  supportedModelFormats:
  - modelFormat: {{name: safetensors, version: "1.0.0"}}
    modelFramework: {{name: transformers, version: "4.44.0"}}
    modelArchitecture: {architecture}
    autoSelect: true
  engineConfig:
    runner: {{name: ome-container, image: "x:1"}}
---
"""


@pytest.fixture
def three_hundred(tmp_path: Path) -> Path:
    text = "".join(runtime(f"rt-{i:03d}", "LlamaForCausalLM" if i == 150 else "MistralForCausalLM") for i in range(300))
    (tmp_path / "runtimes.yaml").write_text(text, encoding="utf-8")
    (tmp_path / "model.yaml").write_text(MODEL, encoding="utf-8")
    (tmp_path / "z-isvc.yaml").write_text(ISVC, encoding="utf-8")
    (tmp_path / "a-unused.yaml").write_text(  # a warning that sorts before the error
        "apiVersion: ome.io/v1beta1\nkind: ServingRuntime\nmetadata: {name: p, namespace: team, annotations: "
        "{ome.io/runtime-profile: 'true'}}\nspec: {disabled: true}\n",
        encoding="utf-8",
    )
    return tmp_path


def test_a_selection_failure_among_300_runtimes_stays_one_readable_line(run_cli, three_hundred: Path) -> None:
    proc = run_cli("build", str(three_hundred))
    assert proc.exit_code == 1, proc
    [line] = [x for x in proc.stderr.splitlines() if "RuntimeSelectionError" in x]
    assert max(len(x) for x in proc.stderr.splitlines()) < 2000
    assert line.index("rt-150 (") < line.index("rt-000 (")  # the nearest miss (framework version only) first
    assert line.endswith("; and 296 more, further off (every one with -v)")
    verbose = run_cli("build", str(three_hundred), "-v")
    assert sum("is excluded:" in x for x in verbose.stderr.splitlines()) == 301  # the disabled profile too
    assert max(len(x) for x in verbose.stderr.splitlines()) < 2000


def test_max_errors_shows_errors_before_warnings(run_cli, three_hundred: Path) -> None:
    (three_hundred / "a-empty").mkdir()  # an input PATH holding no OME object: a warning, sorted first by path
    paths = (str(three_hundred / "a-empty"), str(three_hundred))
    whole = run_cli("build", *paths)
    assert "warning:" in whole.stderr.splitlines()[0], whole
    proc = run_cli("build", *paths, "--max-errors", "1")
    assert proc.exit_code == 1
    first = proc.stderr.splitlines()[0]
    assert ": error: [RuntimeSelectionError]" in first, proc.stderr
    assert "not shown (--max-errors 1)" in proc.stderr


MULTINODE = Path(__file__).resolve().parents[1] / "cases" / "multinode" / "input"


def test_what_leaderworkerset_injects_is_not_an_undefined_env_ref(run_cli, tmp_path: Path) -> None:
    for source in MULTINODE.glob("*.yaml"):
        text = source.read_text(encoding="utf-8")
        if source.name == "runtime.yaml":
            text = text.replace(
                "--tp=$(PARALLELISM_SIZE)]",
                "--tp=$(PARALLELISM_SIZE), --dist=$(LWS_LEADER_ADDRESS), --n=$(LWS_GROUP_SIZE), "
                "--r=$(LWS_WORKER_INDEX), $(NOT_LWS)]",
            )
        (tmp_path / source.name).write_text(text, encoding="utf-8")
    assert "LWS_WORKER_INDEX" in (tmp_path / "runtime.yaml").read_text(encoding="utf-8")
    proc = run_cli("build", str(tmp_path))
    assert proc.exit_code == 0, proc
    assert "LWS_" not in proc.stderr, proc.stderr
    assert "$(NOT_LWS) refers to an env var no env entry defines" in proc.stderr  # the check still works
    assert "LWS_WORKER_INDEX" in proc.stdout


FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo"


def test_tree_runtime_hints_the_namespace_it_exists_in(run_cli) -> None:
    proc = run_cli("tree", str(FIXTURE), "--runtime", "sglang-llama-3-2-3b")
    assert proc.exit_code == 2
    assert "it exists in namespace llama-demo: pass -n llama-demo (or write llama-demo/sglang-llama-3-2-3b)" in (
        " ".join(proc.stderr.split())
    )
    assert run_cli("tree", str(FIXTURE), "--runtime", "sglang-llama-3-2-3b", "-n", "llama-demo").exit_code == 0


def test_graph_used_only_leaves_out_runtimes_no_inferenceservice_uses(run_cli, tmp_path: Path) -> None:
    (tmp_path / "unused.yaml").write_text(runtime("rt-unused", "MistralForCausalLM"), encoding="utf-8")
    whole = run_cli("graph", str(FIXTURE), str(tmp_path), "-o", "json")
    used = run_cli("graph", str(FIXTURE), str(tmp_path), "-o", "json", "--used-only")
    assert whole.exit_code == used.exit_code == 0, (whole, used)
    assert "rt-unused" in whole.stdout and "rt-unused" not in used.stdout
    assert "sglang-profile" in used.stdout and "sglang-llama-3-2-3b" in used.stdout  # the chain above stays


@pytest.mark.parametrize("command", [["build", "-v"], ["status"], ["tree"]])
def test_a_long_inherit_from_value_is_echoed_cut(run_cli, tmp_path: Path, command: list[str]) -> None:
    for source in FIXTURE.glob("*.yaml"):
        text = source.read_text(encoding="utf-8").replace(
            "inherit-from: sglang-profile", "inherit-from: " + "x" * 50_000
        )
        (tmp_path / source.name).write_text(text, encoding="utf-8")
    proc = run_cli(command[0], str(tmp_path), *command[1:])
    assert proc.exit_code == 1, proc
    assert "x" * 80 + "…" in proc.stderr + proc.stdout and "x" * 81 not in proc.stderr + proc.stdout


def _demo(tmp_path: Path, drop: str = "", pin: bool = False) -> Path:
    for source in FIXTURE.glob("*.yaml"):
        if source.name != drop:
            text = source.read_text(encoding="utf-8")
            if pin:
                text = text.replace(
                    "    name: sglang-llama-3-2-3b\n", "    name: sglang-llama-3-2-3b\n    autoSync: false\n"
                )
            (tmp_path / source.name).write_text(text, encoding="utf-8")
    return tmp_path


def test_effective_says_why_an_inferenceservice_that_exists_cannot_be_resolved(run_cli, tmp_path: Path) -> None:
    proc = run_cli("effective", "llama-3-2-3b-instruct", str(_demo(tmp_path, drop="model.yaml")), "-n", "llama-demo")
    assert proc.exit_code == 1
    assert "InferenceService llama-demo/llama-3-2-3b-instruct not found" not in proc.stderr, proc.stderr
    assert "[ModelReconcileError] referenced model 'llama-3-2-3b-instruct' not found" in proc.stderr
    assert "llama-demo/llama-3-2-3b-instruct (" in proc.stderr and "cannot be resolved" in proc.stderr


def test_effective_of_a_pinned_inferenceservice_not_locked_yet_says_it_renders_live(run_cli, tmp_path: Path) -> None:
    folder = _demo(tmp_path, pin=True)
    proc = run_cli("effective", "llama-3-2-3b-instruct", str(folder), "-n", "llama-demo")
    assert proc.exit_code == 0, proc
    assert "not locked yet: renders the live runtime until `omerender lock`" in proc.stdout
    assert "pinned to its locked snapshot" not in proc.stdout
    assert run_cli("lock", str(folder)).exit_code == 0
    locked = run_cli("effective", "llama-3-2-3b-instruct", str(folder), "-n", "llama-demo")
    assert "pinned to its locked snapshot (autoSync: false)" in locked.stdout, locked
