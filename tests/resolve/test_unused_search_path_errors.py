"""An error in a runtime that only a search path holds fails a build only when something under the PATHs uses
that runtime (named, through an inherit-from chain, or as an auto-selection candidate): OME refuses the broken
runtime and nothing else (issue 33). Through ``build PATH --search-path SP`` and the pre-commit hook's entry."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "fixtures" / "llama-demo"

BROKEN = """apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: orphan
  annotations:
    ome.io/inherit-from: nowhere
spec: {}
---
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: badschema
spec:
  supportedModelFormats: 3
"""
SEARCHED_ISVC = """apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {name: sample, namespace: llama-demo}
spec:
  model: {name: llama-3-2-3b-instruct}
  runtime: {name: orphan}
  engine: {}
"""
UNUSED = "no InferenceService or runtime under the PATHs uses it, so OME would refuse only this runtime"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "apps").mkdir()
    (tmp_path / "platform").mkdir()
    for name in ("isvc.yaml", "model.yaml", "runtime.yaml"):
        shutil.copy(FIXTURE / name, tmp_path / "apps" / name)
    shutil.copy(FIXTURE / "profile.yaml", tmp_path / "platform" / "profile.yaml")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _lines(stderr: str, severity: str) -> list[str]:
    return [line for line in stderr.splitlines() if f": {severity}: " in line]


def test_unused_broken_runtimes_are_warnings_at_their_lines(run_cli, tree: Path) -> None:
    clean = run_cli("build", "apps", "--search-path", "platform")
    assert clean.exit_code == 0, clean
    (tree / "platform" / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    result = run_cli("build", "apps", "--search-path", "platform")
    assert result.exit_code == 0, result
    assert result.stdout == clean.stdout
    warnings = _lines(result.stderr, "warning")
    assert [w.split(": warning: ")[0] for w in warnings] == ["platform/broken.yaml:6:26", "platform/broken.yaml:14:26"]
    assert (
        "[ParentNotFound]" in warnings[0]
        and "ClusterServingRuntime orphan is read only from a search path" in (warnings[0])
    )
    assert "[schema]" in warnings[1] and "ClusterServingRuntime badschema" in warnings[1]
    assert all(UNUSED in w for w in warnings)
    assert _lines(result.stderr, "error") == []


def test_the_folder_that_holds_them_still_fails(run_cli, tree: Path) -> None:
    (tree / "platform" / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    result = run_cli("build", "platform", "apps")
    assert result.exit_code == 1
    assert [e.split(": error: ")[0] for e in _lines(result.stderr, "error")] == [
        "platform/broken.yaml:6:26",
        "platform/broken.yaml:14:26",
    ]
    assert UNUSED not in result.stderr


@pytest.mark.parametrize("name", ["orphan", "badschema"])
def test_a_runtime_a_path_names_keeps_its_error(run_cli, tree: Path, name: str) -> None:
    (tree / "platform" / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    isvc = tree / "apps" / "isvc.yaml"
    isvc.write_text(isvc.read_text(encoding="utf-8").replace("name: sglang-llama-3-2-3b", f"name: {name}"))
    result = run_cli("build", "apps", "--search-path", "platform")
    assert result.exit_code == 1
    line = "platform/broken.yaml:6:26" if name == "orphan" else "platform/broken.yaml:14:26"
    assert any(e.startswith(f"{line}: error: ") for e in _lines(result.stderr, "error")), result
    assert f"ClusterServingRuntime {name} is read only" not in result.stderr


@pytest.mark.parametrize("parent", ["orphan", "badschema"])
def test_a_runtime_a_path_runtime_inherits_from_keeps_its_error(run_cli, tree: Path, parent: str) -> None:
    # apps' runtime -> platform's middle -> the broken one: used through the chain
    (tree / "platform" / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    middle = (tree / "platform" / "profile.yaml").read_text(encoding="utf-8")
    middle = middle.replace("name: sglang-profile", "name: middle").replace(
        "annotations:\n", f"annotations:\n    ome.io/inherit-from: {parent}\n", 1
    )
    (tree / "platform" / "middle.yaml").write_text(middle, encoding="utf-8")
    runtime = tree / "apps" / "runtime.yaml"
    runtime.write_text(
        runtime.read_text(encoding="utf-8").replace("inherit-from: sglang-profile", "inherit-from: middle")
    )
    result = run_cli("build", "apps", "--search-path", "platform")
    assert result.exit_code == 1
    line = "platform/broken.yaml:6:26" if parent == "orphan" else "platform/broken.yaml:14:26"
    assert any(e.startswith(f"{line}: error: ") for e in _lines(result.stderr, "error")), result
    assert f"ClusterServingRuntime {parent} is read only" not in result.stderr


def test_an_auto_selection_candidate_keeps_its_error(run_cli, tree: Path) -> None:
    # a ServingRuntime of the app's namespace with autoSelect: true, whose parent is missing
    candidate = (FIXTURE / "runtime.yaml").read_text(encoding="utf-8")
    candidate = candidate.replace("name: sglang-llama-3-2-3b", "name: orphan").replace("sglang-profile", "nowhere")
    (tree / "platform" / "broken.yaml").write_text(candidate.replace("autoSelect: false", "autoSelect: true"))
    isvc = tree / "apps" / "isvc.yaml"
    text = isvc.read_text(encoding="utf-8")
    isvc.write_text(text.replace("  runtime:\n    name: sglang-llama-3-2-3b\n", ""), encoding="utf-8")
    result = run_cli("build", "apps", "--search-path", "platform")
    assert any(e.startswith("platform/broken.yaml:8:26: error: [ParentNotFound]") for e in result.stderr.splitlines())
    assert UNUSED not in result.stderr


def test_an_inference_service_on_a_search_path_is_not_built_here(run_cli, tree: Path) -> None:
    (tree / "platform" / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    (tree / "platform" / "sample.yaml").write_text(SEARCHED_ISVC, encoding="utf-8")
    result = run_cli("build", "apps", "--search-path", "platform")
    assert result.exit_code == 0, result
    sample = [w for w in _lines(result.stderr, "warning") if w.startswith("platform/sample.yaml:6:19: ")]
    assert len(sample) == 1 and "InferenceService sample is read only from a search path" in sample[0]
    # orphan is used by nothing under the PATHs: the search path's own InferenceService does not count
    assert any(w.startswith("platform/broken.yaml:6:26: warning: [ParentNotFound]") for w in result.stderr.splitlines())


def _hook_entry(hook: str) -> list[str]:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (entry,) = [h["entry"] for h in hooks if h["id"] == hook]
    command = shlex.split(entry)
    assert command[0] == "omerender"
    return [sys.executable, "-m", "omerender", *command[1:]]


def test_the_pre_commit_check_hook_entry_passes_then_fails_once_an_app_uses_it(tree: Path) -> None:
    (tree / "platform" / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    (tree / ".omerender.yaml").write_text("search-path: [platform]\n", encoding="utf-8")
    command = [*_hook_entry("omerender-check"), "apps"]
    passed = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=False)
    assert passed.returncode == 0, passed.stderr
    assert passed.stderr.count(UNUSED) == 2
    isvc = tree / "apps" / "isvc.yaml"
    isvc.write_text(isvc.read_text(encoding="utf-8").replace("name: sglang-llama-3-2-3b", "name: orphan"))
    failed = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=False)
    assert failed.returncode == 1
    assert "platform/broken.yaml:6:26: error: [ParentNotFound]" in failed.stderr


def test_status_and_lock_follow_build(run_cli, tree: Path) -> None:
    (tree / "platform" / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    status = run_cli("status", "apps", "--search-path", "platform")
    assert status.exit_code == 0, status
    assert "sglang-llama-3-2-3b" in status.stdout and status.stderr.count(UNUSED) == 2
    lock = run_cli("lock", "apps", "--search-path", "platform")
    assert lock.exit_code == 0, lock
    assert (tree / "apps" / "omerender.lock").is_file()
    assert run_cli("status", "platform").exit_code == 1
    runtime = tree / "apps" / "runtime.yaml"
    text = runtime.read_text(encoding="utf-8")
    runtime.write_text(text.replace("inherit-from: sglang-profile", "inherit-from: orphan"), encoding="utf-8")
    used = run_cli("status", "apps", "--search-path", "platform")
    assert used.exit_code == 1
    assert "platform/broken.yaml:6:26: error: [ParentNotFound]" in used.stderr


def test_diff_compares_the_apps_instead_of_saying_the_tree_does_not_build(tree: Path) -> None:
    (tree / ".git").rmdir()
    (tree / "platform" / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
        subprocess.run([*git, *args], cwd=tree, check=True, capture_output=True)
    runtime = tree / "apps" / "runtime.yaml"
    runtime.write_text(runtime.read_text(encoding="utf-8").replace("--mem-frac=0.9", "--mem-frac=0.8"))
    command = [sys.executable, "-m", "omerender", "diff", "--against", "HEAD", "apps", "--search-path", "platform"]
    done = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stderr  # changes found; 4 would say a side does not build
    assert "InferenceServices that roll out (1)" in done.stdout
    assert "platform/broken.yaml:6:26: warning: [ParentNotFound]" in done.stderr


def test_a_namespaced_parent_found_from_the_start_of_the_chain_keeps_its_error(run_cli, tree: Path) -> None:
    # OME looks up every parent of a ServingRuntime's chain in its namespace first: apps' ServingRuntime ->
    # ClusterServingRuntime middle -> "base", which is the broken ServingRuntime of llama-demo, not the cluster one
    profile = (tree / "platform" / "profile.yaml").read_text(encoding="utf-8")
    (tree / "platform" / "base.yaml").write_text(profile.replace("name: sglang-profile", "name: base"))
    middle = profile.replace("name: sglang-profile", "name: middle")
    (tree / "platform" / "middle.yaml").write_text(
        middle.replace("annotations:\n", "annotations:\n    ome.io/inherit-from: base\n", 1), encoding="utf-8"
    )
    (tree / "platform" / "ns-base.yaml").write_text(
        "apiVersion: ome.io/v1beta1\nkind: ServingRuntime\nmetadata:\n  name: base\n  namespace: llama-demo\n"
        "  annotations:\n    ome.io/inherit-from: nowhere\nspec: {}\n",
        encoding="utf-8",
    )
    runtime = tree / "apps" / "runtime.yaml"
    text = runtime.read_text(encoding="utf-8")
    runtime.write_text(text.replace("inherit-from: sglang-profile", "inherit-from: middle"), encoding="utf-8")
    result = run_cli("build", "apps", "--search-path", "platform")
    assert result.exit_code == 1
    assert "platform/ns-base.yaml:7:26: error: [ParentNotFound]" in result.stderr, result
    assert UNUSED not in result.stderr


BROKEN_MODELS = """apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: broken-model
spec:
  modelFormat: 3
---
apiVersion: ome.io/v1beta1
kind: BaseModel
metadata:
  name: broken-ns-model
  namespace: llama-demo
spec:
  storage: nope
"""
UNUSED_MODEL = "no InferenceService under the PATHs uses it, so OME would refuse only this model"


@pytest.mark.parametrize("command", ["tree", "graph"])
def test_tree_and_graph_draw_an_unused_broken_runtime_and_pass(run_cli, tree: Path, command: str) -> None:
    (tree / "platform" / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    result = run_cli(command, "apps", "--search-path", "platform")
    assert result.exit_code == 0, result
    assert "orphan" in result.stdout and "ParentNotFound" in result.stdout  # still drawn and marked
    warnings = _lines(result.stderr, "warning")
    assert [w.split(": warning: ")[0] for w in warnings] == ["platform/broken.yaml:6:26", "platform/broken.yaml:14:26"]
    assert all(UNUSED in w for w in warnings) and _lines(result.stderr, "error") == []
    built = run_cli("build", "apps", "--search-path", "platform")
    assert _lines(built.stderr, "warning") == warnings  # the same wording as build
    assert run_cli(command, "platform", "apps").exit_code == 1  # the folder that holds it fails


@pytest.mark.parametrize("view", [["--used-only"], ["--runtime", "orphan"], ["--collapse-isvcs"], ["--isvc", "x"]])
def test_tree_views_pass_with_an_unused_broken_runtime(run_cli, tree: Path, view: list[str]) -> None:
    (tree / "platform" / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    if view == ["--isvc", "x"]:
        view = ["--isvc", "llama-demo/llama-3-2-3b-instruct"]
    result = run_cli("tree", "apps", "--search-path", "platform", *view)
    assert result.exit_code == 0, result
    assert ("orphan" in result.stdout) == (view == ["--runtime", "orphan"] or view == ["--collapse-isvcs"])


@pytest.mark.parametrize("command", ["tree", "graph"])
@pytest.mark.parametrize("how", ["isvc", "runtime"])
def test_tree_fails_when_a_path_uses_the_broken_runtime(run_cli, tree: Path, command: str, how: str) -> None:
    (tree / "platform" / "broken.yaml").write_text(BROKEN, encoding="utf-8")
    if how == "isvc":  # the PATH's InferenceService names it
        path, old, new = tree / "apps" / "isvc.yaml", "name: sglang-llama-3-2-3b", "name: orphan"
    else:  # the PATH's runtime inherits from it
        path, old, new = tree / "apps" / "runtime.yaml", "inherit-from: sglang-profile", "inherit-from: orphan"
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    result = run_cli(command, "apps", "--search-path", "platform")
    assert result.exit_code == 1, result
    assert "platform/broken.yaml:6:26: error: [ParentNotFound]" in result.stderr
    assert "ClusterServingRuntime orphan is read only" not in result.stderr


def test_a_search_path_isvc_naming_a_missing_runtime_does_not_fail_the_tree(run_cli, tree: Path) -> None:
    # the forest's own verdict (a broken link), not only the diagnostics: a search-path InferenceService naming
    # a runtime nobody defines is drawn under "(not found)" and does not fail the PATHs' tree
    (tree / "platform" / "sample.yaml").write_text(SEARCHED_ISVC.replace("orphan", "gone"), encoding="utf-8")
    result = run_cli("tree", "apps", "--search-path", "platform")
    assert result.exit_code == 0, result
    assert "(not found) llama-demo/gone  [NotFound]" in result.stdout
    assert run_cli("tree", "apps", "platform").exit_code == 1


@pytest.mark.parametrize("command", ["build", "tree", "status"])
def test_an_unused_broken_model_is_a_warning(run_cli, tree: Path, command: str) -> None:
    (tree / "platform" / "models.yaml").write_text(BROKEN_MODELS, encoding="utf-8")
    result = run_cli(command, "apps", "--search-path", "platform")
    assert result.exit_code == 0, result
    warnings = _lines(result.stderr, "warning")
    assert [w.split(": warning: ")[0] for w in warnings] == [
        "platform/models.yaml:6:3",
        "platform/models.yaml:6:16",
        "platform/models.yaml:14:12",
    ]
    assert "ClusterBaseModel broken-model is read only from a search path" in warnings[0]
    assert "BaseModel broken-ns-model is read only from a search path" in warnings[2]
    assert all(UNUSED_MODEL in w for w in warnings) and _lines(result.stderr, "error") == []
    assert run_cli(command, "platform", "apps").exit_code == 1


@pytest.mark.parametrize("name", ["broken-model", "broken-ns-model"])
def test_a_model_a_path_names_keeps_its_error(run_cli, tree: Path, name: str) -> None:
    (tree / "platform" / "models.yaml").write_text(BROKEN_MODELS, encoding="utf-8")
    isvc = tree / "apps" / "isvc.yaml"
    isvc.write_text(isvc.read_text(encoding="utf-8").replace("name: llama-3-2-3b-instruct\n", f"name: {name}\n"))
    result = run_cli("build", "apps", "--search-path", "platform")
    assert result.exit_code == 1
    line = "platform/models.yaml:6:16" if name == "broken-model" else "platform/models.yaml:14:12"
    assert f"{line}: error: [schema]" in result.stderr, result
    assert f"{name} is read only" not in result.stderr


def test_a_fine_tuned_weights_base_model_is_used(run_cli, tree: Path) -> None:
    (tree / "platform" / "models.yaml").write_text(BROKEN_MODELS, encoding="utf-8")
    (tree / "apps" / "weight.yaml").write_text(
        "apiVersion: ome.io/v1beta1\nkind: FineTunedWeight\nmetadata: {name: lora-a}\n"
        "spec:\n  baseModelRef: {name: broken-model}\n  configuration: {merged_weights: false}\n",
        encoding="utf-8",
    )
    isvc = tree / "apps" / "isvc.yaml"
    text = isvc.read_text(encoding="utf-8")
    model = "  model:\n    name: llama-3-2-3b-instruct\n"
    isvc.write_text(text.replace(model, "  model:\n    name: lora-a\n    kind: FineTunedWeight\n"), encoding="utf-8")
    result = run_cli("build", "apps", "--search-path", "platform")
    assert result.exit_code == 1
    assert "platform/models.yaml:6:16: error: [schema]" in result.stderr, result
    assert "broken-ns-model is read only" in result.stderr  # the other model stays a warning


def test_effective_answers_beside_unused_broken_objects(run_cli, tree: Path) -> None:
    (tree / "platform" / "broken.yaml").write_text(BROKEN + "---\n" + BROKEN_MODELS, encoding="utf-8")
    args = ("effective", "-n", "llama-demo", "llama-3-2-3b-instruct", "apps", "--search-path", "platform")
    result = run_cli(*args)
    assert result.exit_code == 0, result
    assert "Runtime:           ServingRuntime llama-demo/sglang-llama-3-2-3b (named)" in result.stdout
    assert _lines(result.stderr, "error") == []
    runtime = tree / "apps" / "runtime.yaml"
    text = runtime.read_text(encoding="utf-8")
    runtime.write_text(text.replace("inherit-from: sglang-profile", "inherit-from: orphan"), encoding="utf-8")
    used = run_cli(*args)
    assert used.exit_code == 1
    assert "platform/broken.yaml:6:26: error: [ParentNotFound]" in used.stderr
