"""Namespace shadowing (issue #33): team-b's ServingRuntime ``sglang-profile`` shadows the ClusterServingRuntime of
that name in every chain of team-b, the chain of a cluster runtime in it too (a ServingRuntime's parents are looked
up in its namespace first). The build renders from team-b's profile; every view draws the chain the resolver
resolved, and names origins by kind and namespace."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from builders import MODEL, child_spec, dump, isvc, profile_spec, runtime
from mermaid_check import parse

CLUSTER_PROFILE = runtime("sglang-profile", profile_spec(), profile=True)
TEAM_PROFILE = runtime(
    "sglang-profile",
    profile_spec(annotations={"team": "b"}),
    profile=True,
    kind="ServingRuntime",
    namespace="team-b",
)
CLUSTER_CHILD = runtime("cluster-child", child_spec(), parent="sglang-profile")
TEAM_CHILD = runtime("team-child", child_spec(), parent="cluster-child", kind="ServingRuntime", namespace="team-b")


def _write(folder: Path, team_annotation: str = "b") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    team = json.loads(json.dumps(TEAM_PROFILE))
    team["spec"]["engineConfig"]["annotations"]["team"] = team_annotation
    (folder / "in.yaml").write_text(
        dump(
            MODEL,
            CLUSTER_PROFILE,
            team,
            CLUSTER_CHILD,
            TEAM_CHILD,
            isvc("svc", "team-child", namespace="team-b"),
            isvc("direct", "cluster-child", namespace="team-b"),
        )
    )
    return folder


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return _write(tmp_path / "repo")


def test_the_build_renders_from_the_namespace_s_profile(run_cli, repo):
    done = run_cli("build", str(repo))
    assert done.exit_code == 0, str(done)
    assert "team: b" in done.stdout  # the shadowing profile's annotation reaches svc's objects
    status = run_cli("status", str(repo), "-o", "json")
    chains = {i["metadata"]["name"]: i["status"]["inheritanceChain"] for i in json.loads(status.stdout)["items"]}
    assert chains["team-child"] == ["sglang-profile", "cluster-child", "team-child"]


def test_tree_draws_each_chain_as_resolved(run_cli, repo):
    done = run_cli("tree", str(repo), "--color", "never")
    assert done.exit_code == 0, str(done)
    assert done.stdout == (
        "ClusterServingRuntime sglang-profile  [profile, disabled]\n"
        "└── ClusterServingRuntime cluster-child\n"
        "    └── InferenceService team-b/direct\n"
        "ServingRuntime team-b/sglang-profile  [profile, disabled]\n"
        "└── ClusterServingRuntime cluster-child  [as team-b resolves it]\n"
        "    └── ServingRuntime team-b/team-child\n"
        "        └── InferenceService team-b/svc\n"
    )


def test_tree_isvc_follows_the_shadowing_profile(run_cli, repo):
    done = run_cli("tree", str(repo), "--isvc", "team-b/svc", "--color", "never")
    assert done.exit_code == 0, str(done)
    assert done.stdout == (
        "ServingRuntime team-b/sglang-profile  [profile, disabled]\n"
        "└── ClusterServingRuntime cluster-child  [as team-b resolves it]\n"
        "    └── ServingRuntime team-b/team-child\n"
        "        └── InferenceService team-b/svc\n"
    )
    direct = run_cli("tree", str(repo), "--isvc", "team-b/direct", "--color", "never")
    assert direct.stdout.splitlines()[0] == "ClusterServingRuntime sglang-profile  [profile, disabled]"


def test_tree_runtime_shows_what_inherits_from_it_in_every_namespace(run_cli, repo):
    team = run_cli("tree", str(repo), "-n", "team-b", "--runtime", "sglang-profile", "--color", "never")
    assert team.exit_code == 0, str(team)
    assert "ServingRuntime team-b/team-child" in team.stdout and "direct" not in team.stdout
    cluster = run_cli("tree", str(repo), "--runtime", "sglang-profile", "--color", "never")
    assert "team-child" not in cluster.stdout and "InferenceService team-b/direct" in cluster.stdout
    child = run_cli("tree", str(repo), "--runtime", "cluster-child", "--color", "never")
    assert child.stdout == (
        "ClusterServingRuntime cluster-child\n"
        "└── InferenceService team-b/direct\n"
        "ClusterServingRuntime cluster-child  [as team-b resolves it]\n"
        "└── ServingRuntime team-b/team-child\n"
        "    └── InferenceService team-b/svc\n"
    )


def test_graph_links_the_shadowing_profile(run_cli, repo, tmp_path):
    data = json.loads(run_cli("graph", str(repo), "-o", "json").stdout)
    parents = {n["id"]: n["parent"] for n in data["nodes"]}
    assert parents["sr__team_2d_b__team_2d_child"] == "csr__team_2d_b__cluster_2d_child"
    assert parents["csr__team_2d_b__cluster_2d_child"] == "sr__team_2d_b__sglang_2d_profile"
    assert parents["csr____cluster_2d_child"] == "csr____sglang_2d_profile"
    drawn = run_cli("graph", str(repo), "-o", "mermaid").stdout
    assert "sr__team_2d_b__sglang_2d_profile --> csr__team_2d_b__cluster_2d_child" in drawn
    assert "csr____cluster_2d_child --> sr__team_2d_b__team_2d_child" not in drawn
    checked = parse({"graph": drawn}, tmp_path)
    assert checked.returncode == 0, checked.stderr


def test_diff_picture_and_origins_follow_the_shadowing_profile(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "old")
    _write(tmp_path / "new", team_annotation="b2")
    done = run_cli("diff", "--old", "old", "--new", "new", "-o", "markdown")
    assert done.exit_code == 1, str(done)
    picture = done.stdout.split("```mermaid\n", 1)[1].split("```", 1)[0]
    edges = set(re.findall(r"^  (\S+) --> (\S+)$", picture, re.MULTILINE))
    assert edges == {
        ("sr__team_2d_b__sglang_2d_profile", "csr__team_2d_b__cluster_2d_child"),
        ("csr__team_2d_b__cluster_2d_child", "sr__team_2d_b__team_2d_child"),
        ("sr__team_2d_b__team_2d_child", "isvc__team_2d_b__svc"),
    }
    assert "csr____sglang_2d_profile" not in picture  # the cluster profile is neither changed nor above svc
    assert "`ServingRuntime team-b/sglang-profile` |" in done.stdout
    text = run_cli("diff", "--old", "old", "--new", "new")
    assert '~ metadata.annotations.team: "b" -> "b2"  [from ServingRuntime team-b/sglang-profile]' in text.stdout
    checked = parse({"picture": picture}, tmp_path)
    assert checked.returncode == 0, checked.stderr


def test_effective_show_origin_names_kind_and_namespace(run_cli, repo):
    done = run_cli("effective", "team-b/svc", str(repo), "--show-origin")
    assert done.exit_code == 0, str(done)
    rows = {line.split()[0]: line for line in done.stdout.splitlines() if "  " in line}
    assert rows["engineConfig.annotations.team"].endswith("  ServingRuntime team-b/sglang-profile")
    assert rows["engineConfig.runner.image"].endswith("  ServingRuntime team-b/sglang-profile")
    assert rows["disabled"].endswith("  ServingRuntime team-b/team-child")
    direct = run_cli("effective", "team-b/direct", str(repo), "-o", "json", "--show-origin")
    origins = json.loads(direct.stdout)["origins"]
    assert origins["engineConfig.runner.image"] == "ClusterServingRuntime sglang-profile"
    assert origins["disabled"] == "ClusterServingRuntime cluster-child"


def test_a_broken_chain_is_drawn_as_far_as_it_was_walked(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    team = runtime(
        "sglang-profile", profile_spec(), profile=True, kind="ServingRuntime", namespace="team-b", parent="gone"
    )
    (tmp_path / "in.yaml").write_text(
        dump(MODEL, CLUSTER_PROFILE, team, CLUSTER_CHILD, TEAM_CHILD, isvc("svc", "team-child", namespace="team-b"))
    )
    done = run_cli("tree", "in.yaml", "--color", "never")
    assert done.exit_code == 1
    assert done.stdout == (
        "ClusterServingRuntime sglang-profile  [profile, disabled]\n"
        "└── ClusterServingRuntime cluster-child\n"
        "(not found) team-b/gone  [ParentNotFound]\n"
        "└── ServingRuntime team-b/sglang-profile  [profile, disabled, ParentNotFound]\n"
        "    └── ClusterServingRuntime cluster-child  [as team-b resolves it]\n"
        "        └── ServingRuntime team-b/team-child  [ParentNotFound]\n"
        "            └── InferenceService team-b/svc\n"
    )
    drawn = run_cli("graph", "in.yaml", "-o", "mermaid").stdout
    assert "csr__team_2d_b__cluster_2d_child -.->|ParentNotFound| sr__team_2d_b__team_2d_child" in drawn


def test_a_changed_cluster_runtime_is_highlighted_where_each_namespace_draws_it(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path / "old")
    new = _write(tmp_path / "new")
    docs = [d for d in yaml.safe_load_all((new / "in.yaml").read_text()) if d]
    for doc in docs:
        if doc["kind"] == "ClusterServingRuntime" and doc["metadata"]["name"] == "cluster-child":
            doc["spec"]["engineConfig"]["runner"]["image"] = "engine:2"
    (new / "in.yaml").write_text(dump(*docs))
    done = run_cli("diff", "--old", "old", "--new", "new", "-o", "markdown")
    assert done.exit_code == 1, str(done)
    highlighted = [
        line for line in done.stdout.splitlines() if line.startswith("  class ") and line.endswith(" changed")
    ]
    assert highlighted == [
        "  class csr____cluster_2d_child,csr__team_2d_b__cluster_2d_child,sr__team_2d_b__team_2d_child changed"
    ]
