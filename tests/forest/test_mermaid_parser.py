"""`graph -o mermaid` and diff's picture, accepted by the real Mermaid parser (the `mermaid` npm package under
jsdom, tests/mermaid/). .ci/run installs it with `npm ci`; in CI (CI=true) a missing install fails the test."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import yaml
from mermaid_check import node, parse
from use_cases import diff, diff_text, forest, graph_text

from omerender.commands.forest import View
from omerender.forest.graph import mermaid
from omerender.forest.model import INHERITS, SR, Forest, Link, Node, finish, node_id

REPO = Path(__file__).resolve().parents[2]
CASES = REPO / "tests" / "cases"


def _odd_names(tmp_path: Path) -> Path:
    """Runtimes whose names hold dots, dashes, Mermaid keywords and characters Mermaid gives meaning to."""
    names = ["a.b", "a-b", "end", "graph", "subgraph", "click", "style", "default", "a.b.c-d", "x--y", "linkstyle"]
    docs = [
        {
            "apiVersion": "ome.io/v1beta1",
            "kind": "ServingRuntime",
            "metadata": {
                "name": name,
                "namespace": "class" if i % 2 else "end",
                "annotations": {"ome.io/inherit-from": names[i - 1] if i else "missing-parent"},
            },
            "spec": {"disabled": False},
        }
        for i, name in enumerate(names)
    ]
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "r.yaml").write_text(yaml.safe_dump_all(docs, allow_unicode=True), encoding="utf-8")
    return folder


def _odd_labels() -> Forest:
    """Names no valid manifest has (they are rejected on input), to check the label escaping on its own."""
    forest = Forest()
    names = ['q"uote', "x[y]", "p|q", "semi;colon", "ü-ñ", "<b>", "a#35;b", "back`tick", "end"]
    for i, name in enumerate(names):
        node = Node(node_id(SR, "ns", name), SR, "ns", name, markers=[name])
        forest.nodes[node.id] = node
        if i:
            forest.links.append(Link(forest.nodes[node_id(SR, "ns", names[i - 1])].id, node.id, INHERITS, name))
    return finish(forest)


def test_graphs_and_diff_picture_parse(demo, broken, tmp_path):
    node()
    texts = {
        "demo": graph_text(forest(demo)),
        "broken": graph_text(forest(broken)),
        "collapsed": graph_text(forest(broken, View(collapse_isvcs=True))),
        "chain": graph_text(forest(broken, View(isvc="team-a/on-a-loop"))),
        "odd": graph_text(forest(_odd_names(tmp_path))),
        "labels": mermaid(_odd_labels()),
    }
    for case in sorted(CASES.glob("forest-graph-mermaid-*")):
        texts[case.name] = (case / "expected" / "stdout").read_text(encoding="utf-8")
    new = tmp_path / "new"
    shutil.copytree(demo, new)
    profile = new / "profile.yaml"
    profile.write_text(profile.read_text().replace("v0.5.5.post3", "v0.5.6"))
    markdown = diff_text(diff([demo, new]), "markdown")
    [block] = re.findall(r"```mermaid\n(.*?)```", markdown, re.S)
    texts["diff"] = block
    assert all(t.startswith("flowchart TD\n") for t in texts.values()), texts
    done = parse(texts, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("ok flowchart") == len(texts), done.stdout


def test_the_parser_rejects_a_broken_flowchart(tmp_path):
    """The check can fail: text Mermaid cannot read is reported."""
    done = parse({"bad": 'flowchart TD\n  a["unclosed --> b\n'}, tmp_path)
    assert done.returncode == 1
    assert "bad.mmd" in done.stderr
