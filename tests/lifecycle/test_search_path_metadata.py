"""`lock`, `effective` and `diff` take --model-metadata and --search-path, with build's meaning (their use cases
given those settings)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from lifecycle_helpers import ISVC, NEW_IMAGE, NS, OLD_IMAGE, edit
from use_cases import diff, diff_data, effective, effective_data, lock, said

from omerender.commands.outcome import Verdict

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


def test_model_metadata_applies_to_effective_lock_and_both_sides_of_diff(bare_model, tmp_path):
    good, wrong = _overlay(tmp_path), _overlay(tmp_path, "MistralForCausalLM")
    plain = effective(bare_model, ISVC, namespace=NS)
    assert plain.verdict is Verdict.OK and MISSING in said(plain)
    done = effective(bare_model, ISVC, namespace=NS, model_metadata=good)
    assert done.verdict is Verdict.OK and MISSING not in said(done), said(done)
    refused = effective(bare_model, ISVC, namespace=NS, model_metadata=wrong)
    assert refused.verdict is Verdict.FINDINGS and "MistralForCausalLM" in said(refused)

    assert lock(bare_model, model_metadata=wrong).verdict is Verdict.FINDINGS
    locked = lock(bare_model, model_metadata=good)
    assert locked.verdict is Verdict.OK and MISSING not in said(locked), said(locked)

    new = tmp_path / "new"
    shutil.copytree(bare_model, new)
    edit(new / "profile.yaml", OLD_IMAGE, NEW_IMAGE)
    assert MISSING in said(diff([bare_model, new]))
    compared = diff([bare_model, new], model_metadata=good)
    assert compared.verdict is Verdict.FINDINGS and MISSING not in said(compared), said(compared)
    assert [r["inferenceService"] for r in diff_data(compared)["rollouts"]] == [f"{NS}/{ISVC}"]
    assert diff([bare_model, new], model_metadata=wrong).verdict is Verdict.TREE_BROKEN


@pytest.fixture
def split(demo: Path, tmp_path: Path) -> tuple[Path, Path]:
    """The example with the profile in a shared folder, which also holds another team's InferenceService."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shutil.move(str(demo / "profile.yaml"), shared / "profile.yaml")
    other = (demo / "isvc.yaml").read_text().replace(f"name: {ISVC}\n", "name: other-team\n", 1)
    (shared / "other-isvc.yaml").write_text(other)
    return demo, shared


def test_lock_and_effective_resolve_parents_on_a_search_path(split):
    tree, shared = split
    searched = {"search_path": (str(shared),)}
    assert lock(tree).verdict is Verdict.FINDINGS  # the profile is not there
    done = lock(tree, **searched)
    assert done.verdict is Verdict.OK, said(done)
    data = yaml.safe_load((tree / "omerender.lock").read_text())
    assert list(data["inferenceServices"]) == [f"{NS}/{ISVC}"]  # not the other team's, found on the search path
    assert PROFILE not in data["runtimes"]
    assert data["inferenceServices"][f"{NS}/{ISVC}"]["chain"] == ["sglang-profile", "sglang-llama-3-2-3b"]
    assert lock(tree, check=True, **searched).verdict is Verdict.OK

    assert effective(tree, ISVC, namespace=NS).verdict is Verdict.FINDINGS
    answer = effective(tree, ISVC, namespace=NS, **searched)
    assert answer.verdict is Verdict.OK, said(answer)
    assert effective_data(answer)["chain"] == ["sglang-profile", "sglang-llama-3-2-3b"]
    other = effective(tree, "other-team", namespace=NS, **searched)
    assert other.verdict is Verdict.FINDINGS and "--search-path" in said(other)


def test_diff_reads_search_paths_on_both_sides(run_cli, split, tmp_path):
    tree, shared = split
    new = tmp_path / "new"
    shutil.copytree(tree, new)
    edit(new / "runtime.yaml", "--mem-frac=0.9", "--mem-frac=0.8")
    assert diff([tree, new]).verdict is Verdict.TREE_BROKEN  # neither side builds without the profile
    done = diff([tree, new], search_path=(str(shared),))
    assert done.verdict is Verdict.FINDINGS, said(done)
    report = diff_data(done)
    assert [r["inferenceService"] for r in report["rollouts"]] == [f"{NS}/{ISVC}"]
    assert "--search-path" in run_cli("diff", "--help").stdout


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(cwd), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        check=True,
        capture_output=True,
    )


def test_diff_against_reads_every_search_path_at_the_ref(split, tmp_path):
    tree, shared = split
    repo = tmp_path / "repo"
    shutil.copytree(tree, repo / "manifests" / "app")
    shutil.copytree(shared, repo / "manifests" / "shared")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    edit(repo / "manifests" / "shared" / "profile.yaml", OLD_IMAGE, NEW_IMAGE)
    manifests, app, shared_now = (str(repo / "manifests" / p) for p in ("", "app", "shared"))

    inside = diff([manifests], git_ref="HEAD", search_path=(shared_now,))
    assert inside.verdict is Verdict.FINDINGS, said(inside)  # shared is read at HEAD for the old side: it shows
    report = diff_data(inside)
    # other-team lies in shared, on the search path but also under the diffed PATH: the PATH wins, as in build
    assert [r["inferenceService"] for r in report["rollouts"]] == [f"{NS}/{ISVC}", f"{NS}/other-team"]
    assert PROFILE in {r["runtime"] for r in report["runtimes"]}

    # issue 33: a search path outside the PATHS is read at HEAD for the old side too, so its change shows, for the
    # InferenceServices under the PATHS only (other-team lies only on the search path: not compared)
    outside = diff([app], git_ref="HEAD", search_path=(shared_now,))
    assert outside.verdict is Verdict.FINDINGS, said(outside)
    report = diff_data(outside)
    assert [r["inferenceService"] for r in report["rollouts"]] == [f"{NS}/{ISVC}"]
    assert PROFILE in {r["runtime"] for r in report["runtimes"]}
