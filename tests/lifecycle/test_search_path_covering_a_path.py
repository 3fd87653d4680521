"""`lock`, `effective` and `diff` with a --search-path that also covers a PATH: the PATH wins, as for `build`,
`status`, Argo CD and KRM (``load.roots.only_searched``): what lies under a PATH is locked, answered and compared."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from lifecycle_helpers import ISVC, NS, edit
from use_cases import diff, diff_data, effective, effective_data, lock, said

from omerender.commands.outcome import Verdict

OTHER = "other-team"
RUNTIME = "ServingRuntime/llama-demo/sglang-llama-3-2-3b"


@pytest.fixture
def repo(demo: Path, tmp_path: Path) -> Path:
    """repo/app (a PATH) and repo/shared (the profile and another team's InferenceService); the search path is repo."""
    root = tmp_path / "repo"
    shutil.move(str(demo), root / "app")
    (root / "shared").mkdir()
    shutil.move(str(root / "app" / "profile.yaml"), root / "shared" / "profile.yaml")
    other = (root / "app" / "isvc.yaml").read_text().replace(f"name: {ISVC}\n", f"name: {OTHER}\n", 1)
    (root / "shared" / "other-isvc.yaml").write_text(other)
    return root


def test_lock_records_an_inference_service_under_a_path_a_search_path_also_covers(repo: Path) -> None:
    searched = {"search_path": (str(repo),)}
    done = lock(repo / "app", **searched)
    assert done.verdict is Verdict.OK, said(done)
    data = yaml.safe_load((repo / "app" / "omerender.lock").read_text())
    assert list(data["inferenceServices"]) == [f"{NS}/{ISVC}"]  # the PATH's; not the other team's, only searched
    assert data["inferenceServices"][f"{NS}/{ISVC}"]["chain"] == ["sglang-profile", "sglang-llama-3-2-3b"]
    assert list(data["runtimes"]) == [RUNTIME]  # the profile is only on the search path
    assert lock(repo / "app", check=True, **searched).verdict is Verdict.OK

    answer = effective(repo / "app", ISVC, namespace=NS, **searched)
    assert answer.verdict is Verdict.OK, said(answer)
    assert effective_data(answer)["chain"] == ["sglang-profile", "sglang-llama-3-2-3b"]
    other = effective(repo / "app", OTHER, namespace=NS, **searched)
    assert other.verdict is Verdict.FINDINGS and "only on a --search-path" in said(other)


def _rollouts(report: dict) -> list[str]:
    return [r["inferenceService"] for r in report["rollouts"]]


def test_diff_compares_an_inference_service_under_paths_a_search_path_also_covers(repo: Path) -> None:
    shutil.copytree(repo / "app", repo / "app2")
    edit(repo / "app2" / "runtime.yaml", "--mem-frac=0.9", "--mem-frac=0.8")
    done = diff([repo / "app", repo / "app2"], search_path=(str(repo),))
    assert done.verdict is Verdict.FINDINGS, said(done)  # each side reads the search path without the other's PATH
    assert _rollouts(diff_data(done)) == [f"{NS}/{ISVC}"]  # compared as the PATHs'; the other team's is not


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(cwd), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        check=True,
        capture_output=True,
    )


def test_diff_against_reads_a_path_inside_a_search_path_at_the_ref(repo: Path) -> None:
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    edit(repo / "app" / "runtime.yaml", "--mem-frac=0.9", "--mem-frac=0.8")
    done = diff([repo / "app"], git_ref="HEAD", search_path=(str(repo),))
    # the GIT_REF side reads app at HEAD and the rest of the search path from the working tree, never app twice
    assert done.verdict is Verdict.FINDINGS, said(done)
    assert "duplicate" not in said(done)
    assert _rollouts(diff_data(done)) == [f"{NS}/{ISVC}"]
    assert {r["runtime"] for r in diff_data(done)["runtimes"]} == {RUNTIME}
