"""`lock`, `effective` and `diff` with a --search-path that also covers a PATH: the PATH wins, as for `build`,
`status`, Argo CD and KRM (``output.emit.only_searched``): what lies under a PATH is locked, answered and compared."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from lifecycle_helpers import ISVC, NS, edit

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


def test_lock_records_an_inference_service_under_a_path_a_search_path_also_covers(run_cli, repo: Path) -> None:
    done = run_cli("lock", str(repo / "app"), "--search-path", str(repo))
    assert done.exit_code == 0, done
    data = yaml.safe_load((repo / "app" / "omerender.lock").read_text())
    assert list(data["inferenceServices"]) == [f"{NS}/{ISVC}"]  # the PATH's; not the other team's, only searched
    assert data["inferenceServices"][f"{NS}/{ISVC}"]["chain"] == ["sglang-profile", "sglang-llama-3-2-3b"]
    assert list(data["runtimes"]) == [RUNTIME]  # the profile is only on the search path
    assert run_cli("lock", str(repo / "app"), "--search-path", str(repo), "--check").exit_code == 0

    answer = run_cli("effective", ISVC, "-n", NS, str(repo / "app"), "--search-path", str(repo), "-o", "json")
    assert answer.exit_code == 0, answer
    assert json.loads(answer.stdout)["chain"] == ["sglang-profile", "sglang-llama-3-2-3b"]
    other = run_cli("effective", OTHER, "-n", NS, str(repo / "app"), "--search-path", str(repo))
    assert other.exit_code == 1 and "only on a --search-path" in other.stderr


def _rollouts(output: str) -> list[str]:
    return [r["inferenceService"] for r in json.loads(output)["rollouts"]]


def test_diff_compares_an_inference_service_under_paths_a_search_path_also_covers(run_cli, repo: Path) -> None:
    shutil.copytree(repo / "app", repo / "app2")
    edit(repo / "app2" / "runtime.yaml", "--mem-frac=0.9", "--mem-frac=0.8")
    done = run_cli("diff", str(repo / "app"), str(repo / "app2"), "--search-path", str(repo), "-o", "json")
    assert done.exit_code == 1, done  # each side reads the search path without the other side's PATH
    assert _rollouts(done.stdout) == [f"{NS}/{ISVC}"]  # compared as the PATHs'; the other team's is not


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(cwd), "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        check=True,
        capture_output=True,
    )


def test_diff_against_reads_a_path_inside_a_search_path_at_the_ref(run_cli, repo: Path) -> None:
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    edit(repo / "app" / "runtime.yaml", "--mem-frac=0.9", "--mem-frac=0.8")
    done = run_cli("diff", "--against", "HEAD", str(repo / "app"), "--search-path", str(repo), "-o", "json")
    # the GIT_REF side reads app at HEAD and the rest of the search path from the working tree, never app twice
    assert done.exit_code == 1, done
    assert "duplicate" not in done.stderr
    assert _rollouts(done.stdout) == [f"{NS}/{ISVC}"]
    assert {r["runtime"] for r in json.loads(done.stdout)["runtimes"]} == {RUNTIME}
