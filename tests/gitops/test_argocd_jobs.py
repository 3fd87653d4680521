"""`argocd-generate` honours the repo-server's OMERENDER_JOBS (docs/usage.md, "CPU limits"), validated as on
every route; neither the repository's settings file nor a plugin parameter chooses it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from gitops_helpers import FIXTURE, env_with_omerender, run

from omerender.cli import gitops, main
from omerender.commands.build import BuildRequest
from omerender.settings import Origin


@pytest.fixture
def app(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    shutil.copytree(FIXTURE, root / "apps" / "llama")
    return root / "apps" / "llama"


@pytest.mark.parametrize(("value", "says"), [("banana", "whole number"), ("0", ">= 1"), ("65", "<= 64")])
def test_a_bad_omerender_jobs_is_a_usage_error_naming_the_variable(app: Path, value: str, says: str) -> None:
    env = env_with_omerender({"OMERENDER_JOBS": value, "ARGOCD_APP_SOURCE_PATH": "apps/llama"})
    proc = run(["omerender", "argocd-generate", "."], cwd=app, env=env)
    assert proc.code == 2 and proc.out == "" and "OMERENDER_JOBS" in proc.err and says in proc.err, proc


def _jobs_given(app: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> tuple[int | None, Origin]:
    """The jobs of the build ``argocd-generate`` runs, with its origin (the build itself is not run)."""
    seen: list[BuildRequest] = []
    monkeypatch.setattr(gitops, "present_build", seen.append)
    monkeypatch.chdir(app)
    for key, value in {"ARGOCD_APP_SOURCE_PATH": "apps/llama", **env}.items():
        monkeypatch.setenv(key, value)
    result = CliRunner().invoke(main, ["argocd-generate", "."], catch_exceptions=False)
    assert result.exit_code == 0 and len(seen) == 1, result.output
    return seen[0].settings.jobs, seen[0].settings.origin("jobs")


def test_omerender_jobs_reaches_the_build(app: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OMERENDER_JOBS", raising=False)
    assert _jobs_given(app, monkeypatch, {}) == (None, Origin.DEFAULT)
    assert _jobs_given(app, monkeypatch, {"OMERENDER_JOBS": "1"}) == (1, Origin.ENV)


def test_the_repository_and_the_application_do_not_choose_jobs(app: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OMERENDER_JOBS", raising=False)
    (app.parent.parent / ".omerender.yaml").write_text("jobs: 64\n", encoding="utf-8")
    assert _jobs_given(app, monkeypatch, {}) == (None, Origin.DEFAULT)
    assert _jobs_given(app, monkeypatch, {"OMERENDER_JOBS": "2"}) == (2, Origin.ENV)
    parameters = json.dumps([{"name": "jobs", "string": "64"}])
    env = env_with_omerender({"ARGOCD_APP_PARAMETERS": parameters, "ARGOCD_APP_SOURCE_PATH": "apps/llama"})
    proc = run(["omerender", "argocd-generate", "."], cwd=app, env=env)
    assert proc.code == 2 and "unknown parameter" in proc.err, proc
