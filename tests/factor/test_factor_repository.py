"""Issue 33: factor on a repository consumed app by app (OME's vendored folders, a settings file, three teams).

factor proves what the repository's builds read, not one build of the whole tree: each profile lands where every
build reading its children reads it (beside the kustomization that lists them, inside the search path), or factor
refuses and names the kustomization, the search path or the app's build that would not read it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from ome_repository import APPS, OME, ome_repository

pytestmark = pytest.mark.skipif(not (OME / "runtimes").is_dir(), reason="needs OME's folders in ../shared/ome")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ome_repository(tmp_path_factory.mktemp("issue33") / "repo")


@pytest.fixture
def repo(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of the repository, the working folder (as in a checkout)."""
    copy = tmp_path / "repo"
    shutil.copytree(built, copy)
    monkeypatch.chdir(copy)
    return copy


def _builds(run_cli) -> dict[str, str]:
    """What each app's build (with the settings file's search path) and the whole tree's build print."""
    out = {}
    for root in (*APPS, "."):
        result = run_cli("build", root)
        assert result.exit_code == 0, f"{root}: {result}"
        out[root] = result.stdout
    return out


def _hooks_pass(run_cli) -> None:
    """The pre-commit hooks' checks on each app: build --check --fail-empty-input, and team-a's lock --check."""
    for app in APPS:
        checked = run_cli("build", "--check", "--fail-empty-input", app)
        assert checked.exit_code == 0, f"{app}: {checked}"
        assert "ParentNotFound" not in checked.stderr
    locked = run_cli("lock", "--check", "apps/team-a")
    assert locked.exit_code == 0, str(locked)


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_factor_of_the_whole_repository_keeps_every_app_building_the_same(run_cli, repo: Path) -> None:
    before = _builds(run_cli)
    result = run_cli("factor", ".", "--in-place", "-o", "json")
    assert result.exit_code == 0, str(result)
    report = json.loads(result.stdout)
    assert report["apps"] == {"built": list(APPS), "unchanged": [], "notBuilding": []}
    assert not (repo / "profiles").exists()  # the old default: outside the search path, read by no app
    files = {p["name"]: p["file"] for p in report["profiles"]}
    platform = [f for f in files.values() if f.startswith("platform/runtimes/profiles/")]
    assert len(platform) == len(files) - 2  # OME's runtimes: beside the kustomization that lists them
    listed = yaml.safe_load((repo / "platform/runtimes/kustomization.yaml").read_text(encoding="utf-8"))
    assert sorted(f"profiles/{Path(f).name}" for f in platform) == sorted(listed["resources"][-len(platform) :])
    team_a = yaml.safe_load((repo / files[_member_of(report, "a-llama-1b")]).read_text(encoding="utf-8"))
    assert (team_a["kind"], team_a["metadata"]["namespace"]) == ("ServingRuntime", "team-a")
    assert files[_member_of(report, "a-llama-1b")].startswith("apps/team-a/profiles/")
    team_c = files[_member_of(report, "c-llama-1b")]
    assert team_c.startswith("apps/team-c/profiles/")
    kustomization = yaml.safe_load((repo / "apps/team-c/kustomization.yaml").read_text(encoding="utf-8"))
    assert kustomization["resources"][-1] == team_c.removeprefix("apps/team-c/")
    assert report["kustomizations"] == ["apps/team-c/kustomization.yaml", "platform/runtimes/kustomization.yaml"]
    assert report["locks"] == {"rewritten": ["apps/team-a/omerender.lock"], "toRecord": []}  # chains it records
    assert _builds(run_cli) == before  # every app, and the whole tree, byte for byte
    _hooks_pass(run_cli)
    again = run_cli("factor", ".", "--in-place", "-o", "json")
    assert again.exit_code == 0 and json.loads(again.stdout)["totals"]["children"] == 0


def _member_of(report: dict[str, object], runtime: str) -> str:
    profiles = report["profiles"]
    assert isinstance(profiles, list)
    return next(p["name"] for p in profiles if any(m.endswith(f"/{runtime}") for m in p["members"]))


def test_factor_of_the_platform_proves_the_apps_that_read_it(run_cli, repo: Path) -> None:
    assert run_cli("lock", "apps/team-b").exit_code == 0  # it records the chain of an OME runtime factor rewrites
    before = _builds(run_cli)
    result = run_cli("factor", "platform", "--in-place")
    assert result.exit_code == 0, str(result)
    assert "and each app's build, the same before and after: apps/team-a, apps/team-b, apps/team-c\n" in result.stdout
    assert (
        "locks outside PATHS that record the chains factor changed (revisions stay the same): "
        "omerender lock apps/team-b\n" in result.stdout
    )
    assert _builds(run_cli) == before
    assert run_cli("lock", "--check", "apps/team-b").exit_code == 1  # outside PATHS: left for `lock`, as reported
    assert run_cli("lock", "apps/team-b").exit_code == 0
    _hooks_pass(run_cli)


def test_profiles_where_the_builds_would_not_read_them_are_refused(run_cli, repo: Path) -> None:
    # what factor used to do: profiles in ./profiles, outside the search path and the kustomizations
    untouched = _snapshot(repo)
    result = run_cli("factor", ".", "--in-place", "--profiles-dir", "profiles")
    assert result.exit_code == 1, str(result)
    assert (
        "platform/runtimes/kustomization.yaml:17:3: error: [factor-proof] platform/runtimes/kustomization.yaml lists "
        "platform/runtimes/srt/meta/llama-3-2-1b-instruct-pd-rt.yaml, which factor would make a child of the "
        "profiles it would write at profiles/sglang-pd-profile.yaml" in result.stderr
    )
    assert "kustomize reads a listed file only in or below the kustomization's folder" in result.stderr
    assert "apps/team-c/kustomization.yaml:5:5: error: [factor-proof] apps/team-c/kustomization.yaml lists" in (
        result.stderr
    )
    assert "in the search path platform are read by every build of the repository" in result.stderr
    assert result.stdout == ""
    assert _snapshot(repo) == untouched


def test_an_app_whose_build_would_not_read_the_profile_is_named(run_cli, repo: Path) -> None:
    untouched = _snapshot(repo)
    result = run_cli(
        "factor", "apps/team-a", "apps/team-b", "--in-place", "--profiles-dir", "apps/team-b/profiles"
    )  # the run reads both teams, but team-a's own build does not read team-b's folder
    assert result.exit_code == 1, str(result)
    assert (
        "<factor>:1:1: error: [factor-proof] `omerender build apps/team-a` reads apps/team-a and the search paths "
        "(platform), and would not read apps/team-b/profiles/sglang-2-profile.yaml that factor would write"
        in result.stderr
    )
    assert (
        "apps/team-a/runtimes/a-llama-1b.yaml:7:26: error: [factor-proof] after factor, `omerender build apps/team-a` "
        '(with the search paths) would fail: inherit-from parent "sglang-2-profile" not found' in result.stderr
    )
    assert _snapshot(repo) == untouched


def test_a_profile_whose_home_lies_above_the_paths_is_refused(run_cli, repo: Path) -> None:
    # team-c's kustomization lists its runtimes: their profile belongs beside it, outside apps/team-c/runtimes
    untouched = _snapshot(repo)
    result = run_cli("factor", "apps/team-c/runtimes", "--in-place")
    assert result.exit_code == 1, str(result)
    assert (
        "apps/team-c/kustomization.yaml:5:5: error: [factor-proof] apps/team-c/kustomization.yaml lists "
        "apps/team-c/runtimes/c-llama-1b.yaml, which factor would make a child of a profile, so the profile belongs "
        "beside that kustomization (apps/team-c/profiles/sglang-2-profile.yaml) and must be listed in it, but both "
        "lie outside every PATH, where factor does not write; give apps/team-c as a PATH" in result.stderr
    )
    assert _snapshot(repo) == untouched
