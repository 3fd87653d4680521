"""`lock`, `effective` and `diff` take --model-metadata and --search-path, with build's meaning."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from lifecycle_helpers import ISVC, NEW_IMAGE, NS, OLD_IMAGE, edit

MISSING = "has no spec.modelFormat"
PROFILE = "ClusterServingRuntime/sglang-profile"
OVERLAY = """models:
  llama-3-2-3b-instruct:
    modelFormat: {name: safetensors, version: "1.0.0"}
    modelFramework: {name: transformers, version: "4.45.0.dev0"}
    modelArchitecture: %s
    modelParameterSize: 3B
"""


@pytest.fixture
def bare_model(demo: Path) -> Path:
    """The example with a model the agent has not filled in yet."""
    body = yaml.safe_load((demo / "model.yaml").read_text())
    for key in ("modelFormat", "modelFramework", "modelArchitecture", "modelParameterSize"):
        del body["spec"][key]
    (demo / "model.yaml").write_text(yaml.safe_dump(body))
    return demo


def _overlay(tmp_path: Path, architecture: str = "LlamaForCausalLM") -> str:
    path = tmp_path / f"metadata-{architecture}.yaml"
    path.write_text(OVERLAY % architecture)
    return str(path)


def test_model_metadata_applies_to_effective_lock_and_both_sides_of_diff(run_cli, bare_model, tmp_path):
    good, wrong = _overlay(tmp_path), _overlay(tmp_path, "MistralForCausalLM")
    plain = run_cli("effective", ISVC, "-n", NS, str(bare_model))
    assert plain.exit_code == 0 and MISSING in plain.stderr
    done = run_cli("effective", ISVC, "-n", NS, str(bare_model), "--model-metadata", good)
    assert done.exit_code == 0 and MISSING not in done.stderr, done
    refused = run_cli("effective", ISVC, "-n", NS, str(bare_model), "--model-metadata", wrong)
    assert refused.exit_code == 1 and "MistralForCausalLM" in refused.stderr

    assert run_cli("lock", str(bare_model), "--model-metadata", wrong).exit_code == 1
    locked = run_cli("lock", str(bare_model), "--model-metadata", good)
    assert locked.exit_code == 0 and MISSING not in locked.stderr, locked

    new = tmp_path / "new"
    shutil.copytree(bare_model, new)
    edit(new / "profile.yaml", OLD_IMAGE, NEW_IMAGE)
    assert MISSING in run_cli("diff", str(bare_model), str(new)).stderr
    compared = run_cli("diff", str(bare_model), str(new), "--model-metadata", good, "--format", "json")
    assert compared.exit_code == 1 and MISSING not in compared.stderr, compared
    assert [r["inferenceService"] for r in json.loads(compared.stdout)["rollouts"]] == [f"{NS}/{ISVC}"]
    assert run_cli("diff", str(bare_model), str(new), "--model-metadata", wrong).exit_code == 4


@pytest.fixture
def split(demo: Path, tmp_path: Path) -> tuple[Path, Path]:
    """The example with the profile in a shared folder, which also holds another team's InferenceService."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shutil.move(str(demo / "profile.yaml"), shared / "profile.yaml")
    other = (demo / "isvc.yaml").read_text().replace(f"name: {ISVC}\n", "name: other-team\n", 1)
    (shared / "other-isvc.yaml").write_text(other)
    return demo, shared


def test_lock_and_effective_resolve_parents_on_a_search_path(run_cli, split):
    tree, shared = split
    assert run_cli("lock", str(tree)).exit_code == 1  # the profile is not there
    done = run_cli("lock", str(tree), "--search-path", str(shared))
    assert done.exit_code == 0, done
    data = yaml.safe_load((tree / "omerender.lock").read_text())
    assert list(data["inferenceServices"]) == [f"{NS}/{ISVC}"]  # not the other team's, found on the search path
    assert PROFILE not in data["runtimes"]
    assert data["inferenceServices"][f"{NS}/{ISVC}"]["chain"] == ["sglang-profile", "sglang-llama-3-2-3b"]
    assert run_cli("lock", str(tree), "--search-path", str(shared), "--check").exit_code == 0

    assert run_cli("effective", ISVC, "-n", NS, str(tree)).exit_code == 1
    effective = run_cli("effective", ISVC, "-n", NS, str(tree), "--search-path", str(shared), "-o", "json")
    assert effective.exit_code == 0, effective
    assert json.loads(effective.stdout)["chain"] == ["sglang-profile", "sglang-llama-3-2-3b"]
    other = run_cli("effective", "other-team", "-n", NS, str(tree), "--search-path", str(shared))
    assert other.exit_code == 1 and "--search-path" in other.stderr


def test_diff_reads_search_paths_on_both_sides(run_cli, split, tmp_path):
    tree, shared = split
    new = tmp_path / "new"
    shutil.copytree(tree, new)
    edit(new / "runtime.yaml", "--mem-frac=0.9", "--mem-frac=0.8")
    assert run_cli("diff", str(tree), str(new)).exit_code == 4  # neither side builds without the profile
    done = run_cli("diff", str(tree), str(new), "--search-path", str(shared), "--format", "json")
    assert done.exit_code == 1, done
    report = json.loads(done.stdout)
    assert [r["inferenceService"] for r in report["rollouts"]] == [f"{NS}/{ISVC}"]
    assert "--search-path" in run_cli("diff", "--help").stdout


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(cwd), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        check=True,
        capture_output=True,
    )


def test_diff_against_reads_a_search_path_at_the_ref_only_inside_the_diffed_paths(run_cli, split, tmp_path):
    tree, shared = split
    repo = tmp_path / "repo"
    shutil.copytree(tree, repo / "manifests" / "app")
    shutil.copytree(shared, repo / "manifests" / "shared")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    edit(repo / "manifests" / "shared" / "profile.yaml", OLD_IMAGE, NEW_IMAGE)
    manifests, app, shared_now = (str(repo / "manifests" / p) for p in ("", "app", "shared"))

    inside = run_cli("diff", "--against", "HEAD", manifests, "--search-path", shared_now, "--format", "json")
    assert inside.exit_code == 1, inside  # shared is read at HEAD for the old side: the profile change shows
    report = json.loads(inside.stdout)
    # other-team lies in shared, on the search path but also under the diffed PATH: the PATH wins, as in build
    assert [r["inferenceService"] for r in report["rollouts"]] == [f"{NS}/{ISVC}", f"{NS}/other-team"]
    assert PROFILE in {r["runtime"] for r in report["runtimes"]}

    outside = run_cli("diff", "--against", "HEAD", app, "--search-path", shared_now)
    assert (outside.exit_code, outside.stdout) == (0, "No changes.\n"), outside  # working tree on both sides
