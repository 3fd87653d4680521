"""`omerender graph`: DOT read back by a real DOT parser, JSON against its schema, SVG through Graphviz."""

from __future__ import annotations

import json
import os
import shutil
import stat
import warnings
from pathlib import Path

import jsonschema
import pydot
import pytest
import yaml
from use_cases import forest, graph_text, said

import omerender
from omerender.commands.forest import View
from omerender.commands.outcome import Verdict

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "schemas" / "forest.schema.json"


def _links(tree: Path) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    """(child, parent name) of every inherit-from, (InferenceService, runtime name) of every named runtime."""
    inherits, uses = set(), set()
    for path in tree.glob("*.yaml"):
        for doc in yaml.safe_load_all(path.read_text()):
            if not doc:
                continue
            meta = doc["metadata"]
            parent = (meta.get("annotations") or {}).get("ome.io/inherit-from")
            if parent:
                inherits.add((meta["name"], parent))
            if doc["kind"] == "InferenceService":
                uses.add((meta["name"], (doc["spec"].get("runtime") or {}).get("name", "(selected)")))
    return inherits, uses


@pytest.mark.parametrize("which", ["demo", "broken"])
def test_dot_parses_with_one_edge_per_link(request, which):
    tree = request.getfixturevalue(which)
    done = forest(tree)
    assert done.verdict is (Verdict.OK if which == "demo" else Verdict.FINDINGS), said(done)
    with warnings.catch_warnings():  # pydot calls pyparsing's deprecated camelCase names
        warnings.simplefilter("ignore", DeprecationWarning)
        [graph] = pydot.graph_from_dot_data(graph_text(done, "dot"))
    data = json.loads(graph_text(done, "json"))
    names = {n["id"]: n["name"] for n in data["nodes"]}
    edges = [e for sub in [graph, *graph.get_subgraphs()] for e in sub.get_edges()]
    drawn = sorted((names[e.get_destination().strip('"')], names[e.get_source().strip('"')]) for e in edges)
    inherits, uses = _links(tree)
    selected = {"picked": "plain-auto"}  # the broken tree's one InferenceService that names no runtime
    expected = sorted(inherits | {(isvc, selected.get(isvc, runtime)) for isvc, runtime in uses})
    assert drawn == expected
    assert len(edges) == len(inherits) + len(uses)
    nodes = {n.get_name().strip('"') for sub in [graph, *graph.get_subgraphs()] for n in sub.get_nodes()} - {"node"}
    assert nodes == set(names)


def test_json_validates_against_its_schema(demo, broken):
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for tree, view in ((demo, View()), (broken, View()), (broken, View(collapse_isvcs=True)), (broken, View("loop-a"))):
        data = json.loads(graph_text(forest(tree, view), "json"))
        validator.validate(data)
    bad = json.loads(graph_text(forest(demo), "json"))
    bad["nodes"][0]["id"] = "has.a.dot"
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(bad)


def test_packaged_schema_matches_repo_copy():
    packaged = Path(omerender.__file__).parent / "schemas" / "forest.schema.json"
    assert packaged.read_bytes() == SCHEMA.read_bytes()


def test_node_ids_are_safe_and_distinct(tmp_path):
    """Names with dots and dashes (and names that only differ there) get distinct ids of [a-z0-9_]."""
    docs = [
        {
            "apiVersion": "ome.io/v1beta1",
            "kind": "ClusterServingRuntime",
            "metadata": {"name": name},
            "spec": {"disabled": False},
        }
        for name in ("a.b", "a-b", "a--b", "a_b", "end", "graph", "a.b.c")
        if name != "a_b"
    ]
    (tmp_path / "r.yaml").write_text(yaml.safe_dump_all(docs))
    data = json.loads(graph_text(forest(tmp_path), "json"))
    ids = [n["id"] for n in data["nodes"]]
    assert len(set(ids)) == len(docs)
    assert all(set(i) <= set("abcdefghijklmnopqrstuvwxyz0123456789_") for i in ids)


def _fake_dot(folder: Path) -> None:
    script = folder / "dot"
    script.write_text('#!/bin/sh\n[ "$1" = "-Tsvg" ] || exit 9\necho "<svg>"; wc -l | tr -d " "; echo "</svg>"\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


def test_svg_without_graphviz_exits_2_naming_the_package(run_cli, demo, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    done = run_cli("graph", str(demo), "-o", "svg")
    assert done.exit_code == 2 and done.stdout == ""
    assert "apt-get install graphviz" in done.stderr


def test_svg_runs_dot(run_cli, demo, tmp_path, monkeypatch):
    (tmp_path / "bin").mkdir()
    _fake_dot(tmp_path / "bin")
    monkeypatch.setenv("PATH", str(tmp_path / "bin") + os.pathsep + os.environ["PATH"])
    done = run_cli("graph", str(demo), "-o", "svg")
    dot_lines = len(run_cli("graph", str(demo), "-o", "dot").stdout.splitlines())
    assert done.exit_code == 0, done
    assert done.stdout == f"<svg>\n{dot_lines}\n</svg>\n"


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz not installed")
def test_svg_with_real_graphviz(run_cli, broken):
    done = run_cli("graph", str(broken), "-o", "svg")
    assert done.exit_code == 1
    assert "<svg" in done.stdout and "InheritanceCycle" in done.stdout and "csr____loop_2d_a" in done.stdout
