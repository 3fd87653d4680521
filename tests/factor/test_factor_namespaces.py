"""Profiles of namespaced children: a ServingRuntime in their namespace, one per namespace; a cluster profile only when
asked (--cluster-profiles) and when no runtime of the repository has its name (issue 33)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from factor_fleet import EXAMPLE, RUNTIME, build_output
from ome_repository import APPS, OME, ome_repository

SERVICE = """apiVersion: ome.io/v1beta1
kind: InferenceService
metadata:
  name: {name}
  namespace: {namespace}
spec:
  model:
    name: llama-3-2-3b-instruct
  runtime:
    name: {runtime}
  engine:
    minReplicas: 1
    maxReplicas: 1
"""


def _team_runtime(name: str, namespace: str, lo: str, hi: str, tp: int) -> str:
    text = RUNTIME.format(name=name, lo=lo, hi=hi, tp=tp).replace("kind: ClusterServingRuntime", "kind: ServingRuntime")
    return text.replace(f"  name: {name}\n", f"  name: {name}\n  namespace: {namespace}\n")


def _two_namespaces(root: Path) -> Path:
    """One folder of ServingRuntimes of one engine in two namespaces, and an InferenceService in each."""
    runtimes = root / "runtimes"
    runtimes.mkdir(parents=True)
    for namespace in ("team-a", "team-b"):
        for name, lo, hi, tp in (("small", "1B", "4B", 1), ("medium", "4B", "10B", 2)):
            text = _team_runtime(f"{namespace}-{name}", namespace, lo, hi, tp)
            (runtimes / f"{namespace}-{name}.yaml").write_text(text, encoding="utf-8")
    (root / "model.yaml").write_bytes((EXAMPLE / "model.yaml").read_bytes())
    services = [SERVICE.format(name="chat", namespace=ns, runtime=f"{ns}-small") for ns in ("team-a", "team-b")]
    (root / "services.yaml").write_text("---\n".join(services), encoding="utf-8")
    return root


def _profiles(root: Path) -> list[dict[str, object]]:
    return [yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted((root / "profiles").glob("*.yaml"))]


def test_namespaced_children_get_a_serving_runtime_profile_per_namespace(run_cli, tmp_path: Path) -> None:
    tree = _two_namespaces(tmp_path / "tree")
    before = build_output(tree)
    result = run_cli("factor", str(tree), "--in-place", "-o", "json")
    assert result.exit_code == 0, str(result)
    found = {(p["kind"], p["metadata"].get("namespace"), p["metadata"]["name"]) for p in _profiles(tree)}  # type: ignore[index]
    assert found == {("ServingRuntime", "team-a", "sglang-profile"), ("ServingRuntime", "team-b", "sglang-2-profile")}
    members = {p["name"]: sorted(p["members"]) for p in json.loads(result.stdout)["profiles"]}
    assert members == {
        "sglang-profile": ["ServingRuntime/team-a/team-a-medium", "ServingRuntime/team-a/team-a-small"],
        "sglang-2-profile": ["ServingRuntime/team-b/team-b-medium", "ServingRuntime/team-b/team-b-small"],
    }
    assert build_output(tree) == before


def test_cluster_profiles_give_namespaced_children_one_cluster_profile(run_cli, tmp_path: Path) -> None:
    tree = _two_namespaces(tmp_path / "tree")
    before = build_output(tree)
    result = run_cli("factor", str(tree), "--in-place", "--cluster-profiles", "--no-class-profiles")
    assert result.exit_code == 0, str(result)
    found = [(p["kind"], p["metadata"].get("namespace"), p["metadata"]["name"]) for p in _profiles(tree)]  # type: ignore[index]
    assert found == [("ClusterServingRuntime", None, "sglang-profile")]
    assert build_output(tree) == before


needs_ome = pytest.mark.skipif(not (OME / "runtimes").is_dir(), reason="needs OME's folders in ../shared/ome")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = ome_repository(tmp_path / "repo")
    monkeypatch.chdir(root)
    return root


def _builds(run_cli) -> dict[str, str]:
    out = {}
    for root in (*APPS, "."):
        result = run_cli("build", root)
        assert result.exit_code == 0, f"{root}: {result}"
        out[root] = result.stdout
    return out


def _profile(path: Path) -> tuple[str, str | None, str]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data["kind"], data["metadata"].get("namespace"), data["metadata"]["name"]


@needs_ome
def test_two_teams_factored_apart_get_profiles_that_cannot_overwrite_each_other(run_cli, repo: Path) -> None:
    # the issue: each team's run wrote a ClusterServingRuntime sglang-2-profile with its own spec; applied to one
    # cluster, the second overwrote the first and changed the other team's pods
    before = _builds(run_cli)
    for team in ("apps/team-a", "apps/team-c"):
        result = run_cli("factor", team, "--in-place")
        assert result.exit_code == 0, f"{team}: {result}"
    assert _profile(repo / "apps/team-a/profiles/sglang-2-profile.yaml") == (
        "ServingRuntime",
        "team-a",
        "sglang-2-profile",
    )
    assert _profile(repo / "apps/team-c/profiles/sglang-2-profile.yaml") == (
        "ServingRuntime",
        "team-c",
        "sglang-2-profile",
    )
    assert _builds(run_cli) == before  # each app, and the tree with both (no duplicate object)


@needs_ome
def test_a_cluster_profile_whose_name_another_app_has_is_refused(run_cli, repo: Path) -> None:
    before = _builds(run_cli)
    first = run_cli("factor", "apps/team-a", "--in-place", "--cluster-profiles")
    assert first.exit_code == 0, str(first)
    assert _profile(repo / "apps/team-a/profiles/sglang-2-profile.yaml") == (
        "ClusterServingRuntime",
        None,
        "sglang-2-profile",
    )
    untouched = {p: p.read_bytes() for p in (repo / "apps/team-c").rglob("*") if p.is_file()}
    clash = run_cli("factor", "apps/team-c", "--in-place", "--cluster-profiles")
    assert clash.exit_code == 1, str(clash)
    assert (
        "apps/team-a/profiles/sglang-2-profile.yaml:5:9: error: [factor-proof] factor would write the profile "
        "sglang-2-profile (ClusterServingRuntime) at apps/team-c/profiles/sglang-2-profile.yaml, but "
        "ClusterServingRuntime sglang-2-profile already has that name here, in a folder no build of PATHS reads: in a "
        "cluster one would overwrite the other" in clash.stderr
    )
    assert {p: p.read_bytes() for p in (repo / "apps/team-c").rglob("*") if p.is_file()} == untouched
    named = run_cli("factor", "apps/team-c", "--in-place", "--cluster-profiles", "--profile-name", "sglang=team-c")
    assert named.exit_code == 0, str(named)
    assert _profile(repo / "apps/team-c/profiles/team-c-profile.yaml") == (
        "ClusterServingRuntime",
        None,
        "team-c-profile",
    )
    assert _builds(run_cli) == before


@needs_ome
def test_a_namespaced_profile_avoids_names_elsewhere_in_the_repository(run_cli, repo: Path) -> None:
    # team-a's cluster profile lies in a folder no build of apps/team-c reads; a ServingRuntime of its name in
    # team-c would shadow it there, so team-c's profile takes another name rather than refusing
    before = _builds(run_cli)
    assert run_cli("factor", "apps/team-a", "--in-place", "--cluster-profiles").exit_code == 0
    result = run_cli("factor", "apps/team-c", "--in-place", "-o", "json")
    assert result.exit_code == 0, str(result)
    assert [p["name"] for p in json.loads(result.stdout)["profiles"]] == ["sglang-3-profile"]
    assert _profile(repo / "apps/team-c/profiles/sglang-3-profile.yaml") == (
        "ServingRuntime",
        "team-c",
        "sglang-3-profile",
    )
    assert _builds(run_cli) == before
