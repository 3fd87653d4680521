"""`omerender factor` through the CLI: a small fleet with InferenceServices, broken input, the modes, idempotence."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import yaml

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo"

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
      autoSelect: {auto}
  modelSizeRange:
    min: {lo}
    max: {hi}
  engineConfig:
    tolerations:
      - key: nvidia.com/gpu
        operator: Exists
        effect: NoSchedule
    runner:
      name: ome-container
      image: docker.io/lmsysorg/sglang:v0.5.5
      command:
        - python3
        - -m
        - sglang.launch_server
        - --host=0.0.0.0
        - --port=8080
        - --model-path=$(MODEL_PATH)
        - --tp-size={tp}  # {comment}
      env:
        - name: HF_HOME
          value: /models
        - name: {only}
          value: "1"
      resources:
        requests:
          cpu: "10"
          memory: 30Gi
          nvidia.com/gpu: "1"
        limits:
          cpu: "10"
          memory: 30Gi
          nvidia.com/gpu: "1"
"""
ISVC = """apiVersion: ome.io/v1beta1
kind: InferenceService
metadata:
  name: {name}
  namespace: team-a
spec:
  model:
    name: llama-3-2-3b-instruct
{runtime}  engine:
    minReplicas: 1
    maxReplicas: 1
"""


def fleet(root: Path) -> Path:
    """Three flat runtimes (one auto-selected), a model, an InferenceService naming a runtime, one relying on
    auto-selection."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "runtimes").mkdir()
    for name, auto, lo, hi, tp in (
        ("sglang-small", "false", "1B", "4B", 1),
        ("sglang-medium", "false", "4B", "10B", 2),
        ("sglang-auto", "true", "2B", "4B", 1),
    ):
        text = RUNTIME.format(
            name=name,
            auto=auto,
            lo=lo,
            hi=hi,
            tp=tp,
            comment=f"kept comment of {name}",
            only=name.upper().replace("-", "_"),
        )
        (root / "runtimes" / f"{name}.yaml").write_text(text, encoding="utf-8")
    (root / "model.yaml").write_bytes((EXAMPLE / "model.yaml").read_bytes())
    (root / "apps.yaml").write_text(
        ISVC.format(name="named", runtime="  runtime:\n    name: sglang-small\n")
        + "---\n"
        + ISVC.format(name="auto", runtime=""),
        encoding="utf-8",
    )
    (root / "README.txt").write_text("not a manifest\n", encoding="utf-8")
    return root


def digest(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_small_fleet_renders_the_same(run_cli, tmp_path: Path) -> None:
    old = fleet(tmp_path / "old")
    new = tmp_path / "new"
    result = run_cli("factor", str(old), "--output-dir", str(new), "-o", "json")
    assert result.exit_code == 0, str(result)
    report = json.loads(result.stdout)
    assert report["totals"]["children"] == 2 and report["totals"]["profiles"] == 1
    assert report["flat"] == [
        {
            "runtime": "ClusterServingRuntime/sglang-auto",
            "reason": "autoSelect: true (OME renders a runtime it selects from its own spec, without inheritance)",
        }
    ]
    for emit in ("rendered", "flattened"):
        before = run_cli("build", str(old), "--emit", emit)
        after = run_cli("build", str(new), "--emit", emit)
        assert before.exit_code == after.exit_code == 0, str(after)
        assert before.stdout == after.stdout and before.stdout
    assert run_cli("diff", str(old), str(new)).exit_code == 0
    small = (new / "runtimes" / "sglang-small.yaml").read_text(encoding="utf-8")
    assert "--tp-size=1  # kept comment of sglang-small" in small
    assert "ome.io/inherit-from: sglang-profile" in small and "image:" not in small
    assert "- name: SGLANG_SMALL" in small and "tolerations" not in small
    profile = yaml.safe_load((new / "profiles" / "sglang-profile.yaml").read_text(encoding="utf-8"))
    assert profile["metadata"]["annotations"]["ome.io/runtime-profile"] == "true"
    assert profile["spec"]["disabled"] is True
    old_files, new_files = digest(old), digest(new)
    for untouched in ("model.yaml", "apps.yaml", "README.txt", "runtimes/sglang-auto.yaml"):
        assert old_files[untouched] == new_files[untouched]
    assert set(new_files) == set(old_files) | {"profiles/sglang-profile.yaml"}


def test_idempotent(run_cli, tmp_path: Path) -> None:
    old = fleet(tmp_path / "old")
    assert run_cli("factor", str(old), "--output-dir", str(tmp_path / "once")).exit_code == 0
    again = run_cli("factor", str(tmp_path / "once"), "--output-dir", str(tmp_path / "twice"), "-o", "json")
    assert again.exit_code == 0, str(again)
    assert json.loads(again.stdout)["totals"]["children"] == 0
    assert digest(tmp_path / "once") == digest(tmp_path / "twice")


def test_in_place_touches_only_what_changes(run_cli, tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    before = digest(tree)
    result = run_cli("factor", str(tree), "--in-place")
    assert result.exit_code == 0, str(result)
    after = digest(tree)
    changed = {k for k in before if before[k] != after.get(k)}
    assert changed == {"runtimes/sglang-small.yaml", "runtimes/sglang-medium.yaml"}
    assert set(after) - set(before) == {"profiles/sglang-profile.yaml"}
    assert run_cli("factor", str(tree), "--in-place").exit_code == 0
    assert digest(tree) == after


def test_dry_run_writes_nothing(run_cli, tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    before = digest(tree)
    result = run_cli("factor", str(tree), "--dry-run", "--diff")
    assert result.exit_code == 0, str(result)
    assert digest(tree) == before
    assert "+++ " + (tree / "profiles" / "sglang-profile.yaml").as_posix() in result.stdout
    assert "sglang-profile" in result.stdout.splitlines()[1]


def test_broken_input_writes_nothing(run_cli, tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    broken = tree / "runtimes" / "sglang-medium.yaml"
    broken.write_text(
        broken.read_text(encoding="utf-8").replace(
            "  name: sglang-medium\n", "  name: sglang-medium\n  annotations:\n    ome.io/inherit-from: nowhere\n"
        ),
        encoding="utf-8",
    )
    (tree / "bad.yaml").write_text("kind: [unclosed\n", encoding="utf-8")
    out = tmp_path / "out"
    result = run_cli("factor", str(tree), "--output-dir", str(out))
    assert result.exit_code == 1
    assert f'{broken.as_posix()}:6:26: error: [ParentNotFound] inherit-from parent "nowhere" not found' in result.stderr
    assert f"{(tree / 'bad.yaml').as_posix()}:2:1: error:" in result.stderr
    assert result.stdout == ""
    assert not out.exists()


@pytest.mark.parametrize(
    "args",
    [(), ("--dry-run", "--in-place"), ("--force", "--dry-run")],
)
def test_usage_errors(run_cli, tmp_path: Path, args: tuple[str, ...]) -> None:
    tree = fleet(tmp_path / "tree")
    assert run_cli("factor", str(tree), *args).exit_code == 2


def test_output_dir_must_be_empty_unless_forced(run_cli, tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    out = tmp_path / "out"
    out.mkdir()
    (out / "stale.yaml").write_text("x: 1\n", encoding="utf-8")
    refused = run_cli("factor", str(tree), "--output-dir", str(out))
    assert refused.exit_code == 2 and "not empty" in refused.stderr
    assert run_cli("factor", str(tree), "--output-dir", str(out), "--force").exit_code == 0
    assert not (out / "stale.yaml").exists() and (out / "profiles" / "sglang-profile.yaml").is_file()


def test_profile_name_option(run_cli, tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    result = run_cli("factor", str(tree), "--dry-run", "--profile-name", "sglang=llm", "-o", "json")
    assert result.exit_code == 0, str(result)
    assert [p["name"] for p in json.loads(result.stdout)["profiles"]] == ["llm-profile"]


def test_existing_name_is_not_reused(run_cli, tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    taken = (
        (tree / "runtimes" / "sglang-small.yaml").read_text(encoding="utf-8").replace("sglang-small", "sglang-profile")
    )
    (tree / "runtimes" / "taken.yaml").write_text(taken.replace("min: 1B", "min: 1.5B"), encoding="utf-8")
    result = run_cli("factor", str(tree), "--dry-run", "-o", "json")
    assert result.exit_code == 0, str(result)
    assert [p["name"] for p in json.loads(result.stdout)["profiles"]] == ["sglang-2-profile"]


def test_convert_auto_selected_refuses_when_an_inferenceservice_relies_on_it(run_cli, tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    out = tmp_path / "out"
    listed = run_cli("factor", str(tree), "--dry-run")
    assert ["team-a/auto", "ClusterServingRuntime/sglang-auto"] in [line.split() for line in listed.stdout.splitlines()]
    result = run_cli("factor", str(tree), "--output-dir", str(out), "--convert-auto-selected")
    assert result.exit_code == 1
    apps = (tree / "apps.yaml").as_posix()
    assert (
        f"{apps}:21:3: error: [factor-auto-select] InferenceService team-a/auto names no runtime and OME selects "
        in result.stderr
    )
    assert not out.exists()


def test_convert_auto_selected(run_cli, tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    apps = tree / "apps.yaml"
    apps.write_text(apps.read_text(encoding="utf-8").split("---\n")[0], encoding="utf-8")
    out = tmp_path / "out"
    result = run_cli("factor", str(tree), "--output-dir", str(out), "--convert-auto-selected", "-o", "json")
    assert result.exit_code == 0, str(result)
    assert json.loads(result.stdout)["totals"]["children"] == 3
    converted = yaml.safe_load((out / "runtimes" / "sglang-auto.yaml").read_text(encoding="utf-8"))
    assert converted["metadata"]["annotations"]["ome.io/inherit-from"] == "sglang-profile"
    formats = converted["spec"].get("supportedModelFormats")
    assert formats is None or all(f.get("autoSelect") is False for f in formats)
    assert run_cli("build", str(tree)).stdout == run_cli("build", str(out)).stdout
