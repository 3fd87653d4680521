"""Pure parts of omerender.forest: ids, cycles, views, and the diff picture's size limits."""

from __future__ import annotations

import itertools

import pytest

from omerender.changes.report import DiffReport, Revisions, Rollout, RuntimeChange
from omerender.forest import blast
from omerender.forest.model import CSR, INHERITS, ISVC, SR, USES, Forest, Link, Node, _cycles, finish, node_id
from omerender.forest.select import ancestors, chain, collapse_isvcs, subtree


def test_node_ids_are_one_to_one_and_safe():
    names = ["a.b", "a-b", "a_b", "a__b", "a", "b", "a_2d_b", "_", "", "é", "A", "end"]
    ids = {
        node_id(kind, ns, name) for kind in (CSR, SR, ISVC) for ns, name in itertools.product(["", "x-y", "x"], names)
    }
    assert len(ids) == 3 * 3 * len(names)
    assert all(set(i) <= set("abcdefghijklmnopqrstuvwxyz0123456789_") for i in ids)


def test_cycles_are_found_and_tails_are_not_on_them():
    parents = {"a": "b", "b": "c", "c": "a", "tail": "a", "x": "y", "self": "self"}
    assert _cycles(parents) == {"a", "b", "c", "self"}


def _family(children: int, isvcs: int) -> Forest:
    forest = Forest()
    profile = Node(node_id(CSR, "", "p"), CSR, "", "p", "ClusterServingRuntime/p", ["profile"], "Resolved")
    forest.nodes[profile.id] = profile
    for c in range(children):
        child = Node(
            node_id(SR, "ns", f"c{c}"), SR, "ns", f"c{c}", f"ServingRuntime/ns/c{c}", [], "Resolved", parent=profile.id
        )
        forest.nodes[child.id] = child
        forest.links.append(Link(profile.id, child.id, INHERITS))
        for i in range(isvcs):
            isvc = Node(node_id(ISVC, "ns", f"s{c}-{i}"), ISVC, "ns", f"s{c}-{i}", f"ns/s{c}-{i}", parent=child.id)
            forest.nodes[isvc.id] = isvc
            forest.links.append(Link(child.id, isvc.id, USES))
    return finish(forest)


def _report(children: int, isvcs: int) -> DiffReport:
    runtimes = ["ClusterServingRuntime/p", *(f"ServingRuntime/ns/c{c}" for c in range(children))]
    return DiffReport(
        runtimes=tuple(RuntimeChange(r, "a", "b") for r in runtimes),
        rollouts=tuple(
            Rollout(f"ns/s{c}-{i}", f"ServingRuntime/ns/c{c}", Revisions("a", "b"), ())
            for c in range(children)
            for i in range(isvcs)
        ),
    )


def test_views():
    family = _family(3, 2)
    isvc = node_id(ISVC, "ns", "s1-1")
    assert ancestors(family, isvc) == [isvc, node_id(SR, "ns", "c1"), node_id(CSR, "", "p")]
    assert list(chain(family, isvc).nodes) == sorted(ancestors(family, isvc))
    assert len(subtree(family, node_id(SR, "ns", "c2")).nodes) == 3
    counted = collapse_isvcs(family)
    assert len(counted.nodes) == 1 + 3 + 3 and {n.count for n in counted.nodes.values() if n.count} == {2}


@pytest.mark.parametrize(("children", "isvcs", "expect"), [(5, 2, "full"), (100, 5, "counted"), (300, 1, "left out")])
def test_diff_picture_stays_within_what_mermaid_draws(monkeypatch, children, isvcs, expect):
    monkeypatch.setattr(blast, "forest", lambda _: _family(children, isvcs))
    text = blast.picture(_report(children, isvcs), None)
    if expect == "left out":
        assert text.startswith("_The picture is left out") and "```" not in text
        return
    assert text.startswith("```mermaid\n") and len(text) < blast.MAX_TEXT
    assert text.count(" --> ") <= blast.MAX_EDGES
    if expect == "full":
        assert "ns/s4-1" in text
    else:
        assert "ns/s4-1" not in text and "5 InferenceServices" in text
        assert text.count("class ") and " rollout" in text
