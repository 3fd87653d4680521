"""Issue 33, through the CLI: ``diff`` renders each side with its own tree on the repository of the issue
(``tests/ome_repository.py``), whose pull request changes ``NCCL_DEBUG`` in ``platform/profiles/sglang-profile.yaml``.

The truth for the InferenceServices under ``apps`` is what ``diff --against main apps platform`` says of them: one
rolls out (team-a/platform-3b) and the pinned team-a/batch drifts (its lock is ``apps/team-a/omerender.lock``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from ome_repository import OME, committed_repository, git, profile_change

pytestmark = pytest.mark.skipif(
    not (OME / "runtimes").is_dir() or shutil.which("git") is None, reason="needs OME's folders and git"
)

CHANGED_CHAIN = {  # the runtimes of the chains the apps' InferenceServices use that the profile change changes
    "ClusterServingRuntime/sglang-profile",
    "ClusterServingRuntime/sglang-h100-profile",
    "ClusterServingRuntime/platform-llama-3-1-8b",
    "ClusterServingRuntime/platform-llama-3-2-3b",
}
UNUSED = "ClusterServingRuntime/platform-phi-3-mini"  # changed too, but no app uses it


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = committed_repository(tmp_path_factory.mktemp("issue33") / "repo")
    profile_change(root)
    return root


@pytest.fixture
def repo(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of the repository (its git history too), the working folder."""
    copy = tmp_path / "repo"
    shutil.copytree(built, copy, symlinks=True)
    monkeypatch.chdir(copy)
    return copy


def _json(run_cli, *args: str) -> tuple[int, dict[str, Any], str]:
    done = run_cli("diff", "-o", "json", *args)
    assert done.exit_code in (0, 1), done
    return done.exit_code, json.loads(done.stdout), done.stderr


def _apps(report: dict[str, Any]) -> dict[str, Any]:
    """What a report says of the InferenceServices under apps (all of them are)."""
    return {
        "rollouts": [(r["inferenceService"], r["revision"]) for r in report["rollouts"]],
        "drifting": [(d["inferenceService"], d["pinnedRevision"]) for d in report["drifting"]],
        "created": report["created"],
        "deleted": report["deleted"],
        "broken": report["broken"],
    }


def test_a_profile_on_the_settings_search_path_shows_with_paths_apps(repo: Path, run_cli) -> None:
    code, truth, _ = _json(run_cli, "--against", "main", "apps", "platform")
    assert code == 1
    assert [r["inferenceService"] for r in truth["rollouts"]] == ["team-a/platform-3b"]
    assert [d["inferenceService"] for d in truth["drifting"]] == ["team-a/batch"]
    code, report, stderr = _json(run_cli, "--against", "main", "apps")
    assert code == 1, "not 'No changes.'"
    assert _apps(report) == _apps(truth)
    runtimes = {r["runtime"] for r in report["runtimes"]}
    assert runtimes == CHANGED_CHAIN, "the chains the apps use; a search path's runtime no app uses is not listed"
    assert UNUSED in {r["runtime"] for r in truth["runtimes"]}
    assert "runtime-not-locked" not in stderr


def test_the_search_path_given_on_the_command_line_is_read_at_the_ref_too(repo: Path, run_cli) -> None:
    (repo / ".omerender.yaml").unlink()
    git(repo, "commit", "-q", "-am", "no settings file")
    searched = ("--search-path", "platform/runtimes", "--search-path", "platform/profiles")
    code, report, _ = _json(run_cli, "--against", "main", "apps", *searched, "--search-path", "platform/models")
    assert code == 1
    assert [r["inferenceService"] for r in report["rollouts"]] == ["team-a/platform-3b"]
    assert {r["runtime"] for r in report["runtimes"]} == CHANGED_CHAIN


def test_verbose_says_what_each_side_read(repo: Path, run_cli) -> None:
    done = run_cli("diff", "-v", "--against", "main", "apps")
    assert done.exit_code == 1, done
    said = [line for line in done.stderr.splitlines() if line.startswith("omerender: diff: ")]
    assert said == [
        "omerender: diff: main (old) side: settings file main:.omerender.yaml; search paths main:platform; "
        "locks main:apps/omerender.lock (no such file), main:apps/team-a/omerender.lock",
        "omerender: diff: working tree (new) side: settings file .omerender.yaml; search paths platform; "
        "locks apps/omerender.lock (no such file), apps/team-a/omerender.lock",
    ]


def test_an_edit_of_the_settings_file_shows_what_it_changes(repo: Path, run_cli) -> None:
    """The pull request points the search path at a copy of platform whose profile differs (both folders are
    in the base): only the settings file changes, and the diff shows what that edit changes."""
    git(repo, "reset", "-q", "--hard", "main")
    shutil.copytree(repo / "platform", repo / "platform-next")
    profile = repo / "platform-next" / "profiles" / "sglang-profile.yaml"
    profile.write_text(profile.read_text().replace("value: WARN", "value: TRACE"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "platform-next")
    git(repo, "branch", "-q", "-f", "main")
    (repo / ".omerender.yaml").write_text("search-path: [platform-next]\n")
    git(repo, "commit", "-q", "-am", "read platform-next")
    code, report, _ = _json(run_cli, "--against", "main", "apps")
    assert code == 1
    [rollout] = report["rollouts"]
    [change] = rollout["objects"][0]["changes"]
    assert (rollout["inferenceService"], change["old"], change["new"]) == ("team-a/platform-3b", "WARN", "TRACE")


def test_the_base_settings_file_is_as_untrusted_as_the_head_one(repo: Path, run_cli, tmp_path: Path) -> None:
    """What the GIT_REF side's settings file names outside the repository is refused, and it writes nothing."""
    outside = tmp_path / "outside"
    shutil.copytree(repo / "platform", outside)
    git(repo, "checkout", "-q", "main")
    (repo / ".omerender.yaml").write_text(f"search-path: [{outside}]\nreport-file: planted.txt\n")
    git(repo, "commit", "-q", "-am", "a planted settings file")
    git(repo, "branch", "-q", "-f", "base")
    git(repo, "checkout", "-q", "pr")
    done = run_cli("diff", "--against", "base", "apps")
    assert done.exit_code == 4, done  # the GIT_REF side's settings file is refused: that side does not build
    assert "main:" not in done.stderr
    assert "base:.omerender.yaml:1:" in done.stderr and "leads out of the repository" in done.stderr
    assert "base:.omerender.yaml:2:" in done.stderr
    assert str(outside) not in done.stderr.replace("'" + str(outside) + "'", "")
    assert not list(repo.rglob("planted.txt")) and not (tmp_path / "planted.txt").exists()


def test_a_pinned_isvc_drifts_in_a_multi_root_diff(repo: Path, run_cli, tmp_path: Path) -> None:
    old = tmp_path / "old"
    old.mkdir()
    for folder in ("apps", "platform"):
        shutil.copytree(repo / folder, old / folder)
    (old / "platform" / "profiles" / "sglang-profile.yaml").write_text(
        git(repo, "show", "main:platform/profiles/sglang-profile.yaml")
    )
    sides = ("--old", str(old / "apps"), "--old", str(old / "platform"), "--new", "apps", "--new", "platform")
    code, report, stderr = _json(run_cli, *sides)
    assert code == 1
    assert [d["inferenceService"] for d in report["drifting"]] == ["team-a/batch"]
    assert "team-a/batch" not in [r["inferenceService"] for r in report["rollouts"]]
    assert "runtime-not-locked" not in stderr
    assert "no-ome-objects" not in stderr, "platform holds runtimes"
    _, against, _ = _json(run_cli, "--against", "main", "apps", "platform")
    assert _apps(report) == _apps(against)


def test_diff_takes_the_shared_lock_file_option(repo: Path, run_cli) -> None:
    code, report, stderr = _json(run_cli, "--against", "main", "apps", "--lock-file", "apps/team-a/omerender.lock")
    assert code == 1 and [d["inferenceService"] for d in report["drifting"]] == ["team-a/batch"]
    _, report, stderr = _json(run_cli, "--against", "main", "apps", "--lock-file", "apps/none.lock")
    assert "team-a/batch" in [r["inferenceService"] for r in report["rollouts"]], "no lock: it follows its runtime"
    assert "runtime-not-locked" in stderr


def test_the_lock_beside_the_paths_is_read_at_the_ref(repo: Path, run_cli) -> None:
    """The PATHS are a file and a folder of apps/team-a: its lock is not under them, and is read at the ref."""
    paths = ("apps/team-a/inference-services.yaml", "apps/team-a/runtimes")
    code, report, stderr = _json(run_cli, "--against", "main", *paths)
    assert code == 1 and [d["inferenceService"] for d in report["drifting"]] == ["team-a/batch"]
    assert "runtime-not-locked" not in stderr


def test_a_finding_both_sides_hold_is_shown_once_at_the_checkouts_file(run_cli, repo: Path) -> None:
    # the shm-missing warning of team-c's runtime stands on both sides: once, without the main: copy
    _, _, stderr = _json(run_cli, "--against", "main", "apps")
    shm = [line for line in stderr.splitlines() if "[shm-missing]" in line and "c-llama-3b" in line]
    assert shm == [line for line in shm if line.startswith("apps/team-c/")] and len(shm) == 1, stderr
    # a finding only the base side holds is still shown, at the base side's file
    runtime = repo / "apps" / "team-c" / "runtimes" / "c-llama-3b.yaml"
    text = runtime.read_text(encoding="utf-8")
    runtime.write_text(text.replace("  engineConfig:\n", "  engineConfig:\n    hostIPC: true\n", 1), encoding="utf-8")
    _, _, after = _json(run_cli, "--against", "main", "apps")
    shm_after = [line for line in after.splitlines() if "[shm-missing]" in line and "c-llama-3b" in line]
    assert [line.split(":", 2)[:2] for line in shm_after] == [["main", "apps/team-c/runtimes/c-llama-3b.yaml"]], after
