"""The hooks in .pre-commit-hooks.yaml, run by the real pre-commit through `pre-commit try-repo`.

try-repo clones a git repository, so the working tree of this project (without .venv and caches)
is copied to a temporary folder and committed there; pre-commit then installs it with pip into a
hook environment of its own, exactly as a user's `repo:` entry would.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from gitops_helpers import FIXTURE, REPO, env_with_omerender, need, run

pytest.importorskip("pre_commit", reason="pre-commit is not installed (pip install pre-commit)")

SKIPPED = {
    ".venv",
    ".git",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".hypothesis",
    ".ruff_cache",
    "build",
    "dist",
}


def _ignore(_: str, names: list[str]) -> set[str]:
    return {n for n in names if n in SKIPPED or n.endswith(".egg-info") or n.startswith(".venv")}


def _git(cwd: Path, *args: str) -> None:
    proc = run(
        [
            "git",
            "-c",
            "user.name=omerender tests",
            "-c",
            "user.email=tests@example.invalid",
            "-c",
            "commit.gpgsign=false",
            *args,
        ],
        cwd=cwd,
    )
    assert proc.code == 0, proc


@pytest.fixture(scope="module")
def hook_env(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """(a committed copy of this repository, the environment for pre-commit)."""
    need("git")
    base = tmp_path_factory.mktemp("precommit")
    source = base / "omerender"
    shutil.copytree(REPO, source, ignore=_ignore, symlinks=True)
    assert (source / ".pre-commit-hooks.yaml").is_file()
    _git(source, "init", "-q")
    _git(source, "add", "-A")
    _git(source, "commit", "-q", "-m", "omerender under test")
    return source, env_with_omerender({"PRE_COMMIT_HOME": str(base / "cache"), "PIP_DISABLE_PIP_VERSION_CHECK": "1"})


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    shutil.copytree(FIXTURE, project / "manifests")
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "manifests")
    return project


def _try_repo(project: Path, hook_env: tuple[Path, dict[str, str]], hook: str) -> str:
    source, env = hook_env
    proc = run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(source), hook, "--all-files", "--color", "never"],
        cwd=project,
        env=env,
        timeout=600,
    )
    return f"exit {proc.code}\n{proc.out}{proc.err}"


def test_check_hook_passes_then_fails_on_a_broken_chain(tmp_path: Path, hook_env: tuple[Path, dict[str, str]]) -> None:
    project = _project(tmp_path)
    good = _try_repo(project, hook_env, "omerender-check")
    assert good.startswith("exit 0\n") and "omerender check" in good and "Passed" in good, good
    runtime = project / "manifests" / "runtime.yaml"
    runtime.write_text(
        runtime.read_text(encoding="utf-8").replace("inherit-from: sglang-profile", "inherit-from: sglang-base"),
        encoding="utf-8",
    )
    _git(project, "add", "-A")
    bad = _try_repo(project, hook_env, "omerender-check")
    assert bad.startswith("exit 1\n") and "Failed" in bad, bad
    assert 'inherit-from parent "sglang-base" not found (chain so far: [sglang-llama-3-2-3b])' in bad, bad
    assert "manifests/runtime.yaml:" in bad, bad


def test_build_hook_regenerates_and_fails_when_the_folder_changed(
    tmp_path: Path, hook_env: tuple[Path, dict[str, str]]
) -> None:
    project = _project(tmp_path)
    first = _try_repo(project, hook_env, "omerender-build")
    assert first.startswith("exit 1\n") and "rendered was regenerated" in first, first
    deployment = project / "rendered" / "llama-demo" / "deployment-llama-3-2-3b-instruct-engine.yaml"
    assert "--mem-frac=0.9" in deployment.read_text(encoding="utf-8")
    _git(project, "add", "-A")
    settled = _try_repo(project, hook_env, "omerender-build")
    assert settled.startswith("exit 0\n"), settled
    runtime = project / "manifests" / "runtime.yaml"
    runtime.write_text(
        runtime.read_text(encoding="utf-8").replace("--mem-frac=0.9", "--mem-frac=0.8"), encoding="utf-8"
    )
    _git(project, "add", "-A")
    changed = _try_repo(project, hook_env, "omerender-build")
    assert changed.startswith("exit 1\n") and "deployment-llama-3-2-3b-instruct-engine.yaml" in changed, changed
    assert "--mem-frac=0.8" in deployment.read_text(encoding="utf-8")


def test_lock_check_hook_fails_while_the_lock_is_stale(tmp_path: Path, hook_env: tuple[Path, dict[str, str]]) -> None:
    project = _project(tmp_path)
    missing = _try_repo(project, hook_env, "omerender-lock-check")
    assert missing.startswith("exit 1\n") and "omerender lock check" in missing and "Failed" in missing, missing
    written = run([sys.executable, "-m", "omerender", "lock", "manifests"], cwd=project, env=hook_env[1])
    assert written.code == 0, written
    _git(project, "add", "-A")
    fresh = _try_repo(project, hook_env, "omerender-lock-check")
    assert fresh.startswith("exit 0\n") and "Passed" in fresh, fresh
    profile = project / "manifests" / "profile.yaml"
    text = profile.read_text(encoding="utf-8")
    assert "--mem-frac" in text or "image:" in text
    profile.write_text(text.replace("image: ", "image: changed-", 1), encoding="utf-8")
    _git(project, "add", "-A")
    stale = _try_repo(project, hook_env, "omerender-lock-check")
    assert stale.startswith("exit 1\n") and "Failed" in stale, stale


def test_check_hook_takes_no_output_location_and_no_link_out_from_the_settings_file(
    tmp_path: Path, hook_env: tuple[Path, dict[str, str]]
) -> None:
    project = _project(tmp_path)
    (tmp_path / "tenant-b.yaml").write_text("TENANT_B_DB_PASSWORD_9f3a: hunter2\n", encoding="utf-8")
    (project / ".omerender.yaml").symlink_to("../tenant-b.yaml")
    _git(project, "add", "-A")
    linked = _try_repo(project, hook_env, "omerender-check")
    assert linked.startswith("exit 1\n") and "Failed" in linked, linked
    assert ".omerender.yaml:1:1: error: [settings] .omerender.yaml leads out of the repository" in linked, linked
    assert "TENANT_B" not in linked and "hunter2" not in linked, linked
    (project / ".omerender.yaml").unlink()
    (project / ".omerender.yaml").write_text('report-format: [text, "text=../post-comment.sh"]\n', encoding="utf-8")
    _git(project, "add", "-A")
    routed = _try_repo(project, hook_env, "omerender-check")
    assert routed.startswith("exit 1\n") and "pass --report-format text=../post-comment.sh on the command" in routed
    assert not (tmp_path / "post-comment.sh").exists()


def test_check_hook_fails_on_a_serving_error_the_settings_file_turns_down(
    tmp_path: Path, hook_env: tuple[Path, dict[str, str]]
) -> None:
    project = _project(tmp_path)
    runtime = project / "manifests" / "runtime.yaml"
    runtime.write_text(runtime.read_text(encoding="utf-8").replace("--tp-size=1", "--tp-size=2"), encoding="utf-8")
    _git(project, "add", "-A")
    bad = _try_repo(project, hook_env, "omerender-check")
    assert bad.startswith("exit 1\n") and "Failed" in bad, bad
    assert "error: [gpu-parallelism] engine of runtime sglang-llama-3-2-3b: SGLang starts 2 GPU rank(s)" in bad, bad
    (project / ".omerender.yaml").write_text("serving-checks: warn\n", encoding="utf-8")
    _git(project, "add", "-A")
    warned = _try_repo(project, hook_env, "omerender-check")
    assert warned.startswith("exit 0\n") and "Passed" in warned, warned


def test_check_hook_warns_on_a_broken_search_path_runtime_no_app_uses(
    tmp_path: Path, hook_env: tuple[Path, dict[str, str]]
) -> None:
    # issue 33: OME refuses the broken runtime only, so the apps' check passes until one of them uses it
    project = _project(tmp_path)
    platform = project / "platform"
    platform.mkdir()
    (platform / "broken.yaml").write_text(
        "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: orphan\n  annotations:\n"
        "    ome.io/inherit-from: nowhere\nspec: {}\n",
        encoding="utf-8",
    )
    (project / ".omerender.yaml").write_text("search-path: [platform]\n", encoding="utf-8")
    _git(project, "add", "-A")
    passed = _try_repo(project, hook_env, "omerender-check")
    assert passed.startswith("exit 0\n") and "Passed" in passed, passed
    isvc = project / "manifests" / "isvc.yaml"
    isvc.write_text(isvc.read_text(encoding="utf-8").replace("name: sglang-llama-3-2-3b", "name: orphan"))
    _git(project, "add", "-A")
    failed = _try_repo(project, hook_env, "omerender-check")
    assert failed.startswith("exit 1\n") and "Failed" in failed, failed
    assert 'platform/broken.yaml:6:26: error: [ParentNotFound] inherit-from parent "nowhere" not found' in failed
