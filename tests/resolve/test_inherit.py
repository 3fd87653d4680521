"""resolve.inherit: a runtime's chain, walked child to root and merged root first (spec "Resolution")."""

from __future__ import annotations

from stage_objects import objects, runtime

from omerender import codes
from omerender.ome import MAX_CHAIN_DEPTH
from omerender.resolve.index import index, runtime_key
from omerender.resolve.inherit import RESOLVED, chain_problem, resolve, resolve_all


def _chains(*bodies: dict) -> dict:
    universe, duplicates = index(objects(*bodies))
    assert not duplicates
    chains, problems = resolve_all(universe)
    assert not problems
    return {key.rsplit("/", 1)[-1]: chain for key, chain in chains.items()}


def test_a_chain_lists_its_runtimes_root_first_and_the_child_wins_the_merge() -> None:
    chains = _chains(
        runtime("base", {"disabled": True, "protocolVersions": ["openAI"], "modelSizeRange": {"min": "1B"}}),
        runtime("mid", {"modelSizeRange": {"max": "9B"}}, parent="base"),
        runtime("leaf", {"disabled": False}, parent="mid"),
    )
    leaf = chains["leaf"]
    assert leaf.reason == RESOLVED and leaf.ok and chain_problem(leaf) is None
    assert leaf.names == ["base", "mid", "leaf"]
    assert leaf.spec == {
        "disabled": False,
        "protocolVersions": ["openAI"],
        "modelSizeRange": {"min": "1B", "max": "9B"},
    }


def test_a_missing_parent_breaks_the_chain_with_no_spec_and_an_error_at_the_annotation() -> None:
    chain = _chains(runtime("leaf", {}, parent="gone"))["leaf"]
    assert not chain.ok and chain.reason == codes.PARENT_NOT_FOUND and chain.spec is None
    problem = chain_problem(chain)
    assert problem is not None and problem.severity == "error" and problem.code == codes.PARENT_NOT_FOUND
    assert "inherit-from" in problem.json_path and problem.line > 1  # at the annotation, not the document's start


def test_a_cycle_names_every_runtime_on_it() -> None:
    chains = _chains(runtime("a", {}, parent="b"), runtime("b", {}, parent="a"))
    assert chains["a"].reason == codes.INHERITANCE_CYCLE
    assert "a" in chains["a"].message and "b" in chains["a"].message
    assert chains["a"].spec is None


def test_a_chain_longer_than_ome_allows_is_refused() -> None:
    names = [f"r{i}" for i in range(MAX_CHAIN_DEPTH + 1)]
    bodies = [runtime(names[0], {})] + [runtime(n, {}, parent=p) for p, n in zip(names, names[1:], strict=False)]
    chains = _chains(*bodies)
    assert chains[names[MAX_CHAIN_DEPTH - 1]].ok  # exactly the limit resolves
    assert chains[names[-1]].reason == codes.MAX_DEPTH_EXCEEDED


def test_resolving_one_runtime_does_not_need_the_others_resolved() -> None:
    universe, _ = index(objects(runtime("base", {"disabled": True}), runtime("leaf", {}, parent="base")))
    leaf = next(r for r in universe.all_runtimes() if r.name == "leaf")
    chain = resolve(universe, leaf)
    assert chain.runtime is leaf and runtime_key(chain.runtimes[-1]) == runtime_key(leaf)
