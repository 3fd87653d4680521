"""``build`` reads one lock a run: an ``omerender.lock`` nearer to an app's InferenceServices that the run does not
read is said at the lock (``lock-not-read``), since its pins hold where the app is built alone (issue 33: a hook or
a Flux job over ``apps`` would otherwise roll out an InferenceService its team pinned, silently)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo"
CODE = "[lock-not-read]"


@pytest.fixture
def apps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_cli) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "apps" / "team-a")
    monkeypatch.chdir(tmp_path)
    assert run_cli("lock", "apps/team-a").exit_code == 0
    return tmp_path / "apps"


def _unread(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if CODE in line]


def test_building_every_app_at_once_says_the_apps_lock_is_not_read(apps: Path, run_cli) -> None:
    done = run_cli("build", "apps", "-o", "name")
    assert done.exit_code == 0, done
    (line,) = _unread(done.stderr)
    assert line.startswith(f"apps/team-a/omerender.lock:1:1: warning: {CODE} this build does not read this lock")
    assert "it reads apps/omerender.lock, which does not exist" in line
    assert "--lock-file apps/team-a/omerender.lock" in line
    assert run_cli("build", "apps", "-o", "name", "--fail-on-warning").exit_code == 1


@pytest.mark.parametrize(
    "args",
    [
        ("apps/team-a",),  # the app alone, as an Argo CD application builds it: its own lock
        ("apps", "--lock-file", "apps/team-a/omerender.lock"),  # the lock named
    ],
)
def test_a_build_that_reads_the_apps_lock_says_nothing(apps: Path, run_cli, args: tuple[str, ...]) -> None:
    done = run_cli("build", *args, "-o", "name")
    assert done.exit_code == 0, done
    assert _unread(done.stderr) == []


def test_a_lock_beside_every_path_is_the_one_read(apps: Path, run_cli) -> None:
    shutil.move(str(apps / "team-a" / "omerender.lock"), str(apps / "omerender.lock"))
    done = run_cli("build", "apps", "-o", "name")
    assert done.exit_code == 0, done
    assert _unread(done.stderr) == []
