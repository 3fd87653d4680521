"""`omerender factor`: a small fleet with InferenceServices, broken input, the modes, idempotence (through
``commands.factor.run`` and the report formats; the CLI's usage errors through the CLI)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import yaml
from use_cases import diff, factor, factor_text, said

from omerender.commands.factor import Choices
from omerender.commands.outcome import Verdict

DRY_RUN, IN_PLACE = Choices(dry_run=True), Choices(in_place=True)

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
    result = factor(old, Choices(), output_dir=str(new))
    report = json.loads(factor_text(result, "json"))
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
    assert diff([old, new]).verdict is Verdict.OK
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


def test_idempotent(tmp_path: Path) -> None:
    old = fleet(tmp_path / "old")
    assert factor(old, Choices(), output_dir=str(tmp_path / "once")).verdict is Verdict.OK
    again = factor(tmp_path / "once", Choices(), output_dir=str(tmp_path / "twice"))
    assert json.loads(factor_text(again, "json"))["totals"]["children"] == 0
    assert digest(tmp_path / "once") == digest(tmp_path / "twice")


def test_in_place_touches_only_what_changes(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    before = digest(tree)
    result = factor(tree, IN_PLACE)
    assert result.verdict is Verdict.OK, said(result)
    after = digest(tree)
    changed = {k for k in before if before[k] != after.get(k)}
    assert changed == {"runtimes/sglang-small.yaml", "runtimes/sglang-medium.yaml"}
    assert set(after) - set(before) == {"profiles/sglang-profile.yaml"}
    assert factor(tree, IN_PLACE).verdict is Verdict.OK
    assert digest(tree) == after


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    before = digest(tree)
    stdout = factor_text(factor(tree, DRY_RUN), diffs=True)
    assert digest(tree) == before
    assert "+++ " + (tree / "profiles" / "sglang-profile.yaml").as_posix() in stdout
    assert "sglang-profile" in stdout.splitlines()[1]


def test_broken_input_writes_nothing(tmp_path: Path) -> None:
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
    result = factor(tree, Choices(), output_dir=str(out))
    assert result.verdict is Verdict.FINDINGS
    assert f'{broken.as_posix()}:6:26: error: [ParentNotFound] inherit-from parent "nowhere" not found' in said(result)
    assert f"{(tree / 'bad.yaml').as_posix()}:2:1: error:" in said(result)
    assert not out.exists()


@pytest.mark.parametrize(
    "args",
    [(), ("--dry-run", "--in-place"), ("--force", "--dry-run")],
)
def test_usage_errors(run_cli, tmp_path: Path, args: tuple[str, ...]) -> None:  # the CLI's exit code
    tree = fleet(tmp_path / "tree")
    assert run_cli("factor", str(tree), *args).exit_code == 2


def test_output_dir_must_be_empty_unless_forced(run_cli, tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    out = tmp_path / "out"
    out.mkdir()
    (out / "stale.yaml").write_text("x: 1\n", encoding="utf-8")
    refused = run_cli("factor", str(tree), "--output-dir", str(out))  # the CLI's exit code and where it says so
    assert refused.exit_code == 2 and "not empty" in refused.stderr and refused.stdout == ""
    assert factor(tree, Choices(force=True), output_dir=str(out)).verdict is Verdict.OK
    assert not (out / "stale.yaml").exists() and (out / "profiles" / "sglang-profile.yaml").is_file()


def test_profile_name_option(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    result = factor(tree, Choices(dry_run=True, profile_names=("sglang=llm",)))
    assert [p["name"] for p in json.loads(factor_text(result, "json"))["profiles"]] == ["llm-profile"]


def test_existing_name_is_not_reused(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    taken = (
        (tree / "runtimes" / "sglang-small.yaml").read_text(encoding="utf-8").replace("sglang-small", "sglang-profile")
    )
    (tree / "runtimes" / "taken.yaml").write_text(taken.replace("min: 1B", "min: 1.5B"), encoding="utf-8")
    result = factor(tree, DRY_RUN)
    assert [p["name"] for p in json.loads(factor_text(result, "json"))["profiles"]] == ["sglang-2-profile"]


def test_convert_auto_selected_refuses_when_an_inferenceservice_relies_on_it(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    out = tmp_path / "out"
    listed = factor_text(factor(tree, DRY_RUN))
    assert ["team-a/auto", "ClusterServingRuntime/sglang-auto"] in [line.split() for line in listed.splitlines()]
    result = factor(tree, Choices(convert_auto_selected=True), output_dir=str(out))
    assert result.verdict is Verdict.FINDINGS
    apps = (tree / "apps.yaml").as_posix()
    assert (
        f"{apps}:21:3: error: [factor-auto-select] InferenceService team-a/auto names no runtime and OME selects "
        in said(result)
    )
    assert not out.exists()


def test_convert_auto_selected(run_cli, tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    apps = tree / "apps.yaml"
    apps.write_text(apps.read_text(encoding="utf-8").split("---\n")[0], encoding="utf-8")
    out = tmp_path / "out"
    result = factor(tree, Choices(convert_auto_selected=True), output_dir=str(out))
    assert json.loads(factor_text(result, "json"))["totals"]["children"] == 3
    converted = yaml.safe_load((out / "runtimes" / "sglang-auto.yaml").read_text(encoding="utf-8"))
    assert converted["metadata"]["annotations"]["ome.io/inherit-from"] == "sglang-profile"
    formats = converted["spec"].get("supportedModelFormats")
    assert formats is None or all(f.get("autoSelect") is False for f in formats)
    assert run_cli("build", str(tree)).stdout == run_cli("build", str(out)).stdout
