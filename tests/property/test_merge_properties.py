"""merge.merge_chain: a chain of one is the identity; an empty parent and a repeated spec change nothing."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import runtime_spec

from omerender.resolve.merge import is_unset, merge_chain

PROPERTY_SETTINGS = settings(max_examples=150, deadline=None)


def _set_only(spec: dict[str, Any]) -> dict[str, Any]:
    """What a spec sets: unset values (None, "", [], {}) count as leaving the field unset."""
    return {k: v for k, v in spec.items() if not is_unset(v)}


@PROPERTY_SETTINGS
@given(runtime_spec)
def test_chain_of_one_is_the_identity(spec: dict[str, Any]) -> None:
    before = copy.deepcopy(spec)
    merged = merge_chain([spec])
    assert merged == _set_only(spec)
    assert spec == before  # inputs are never modified
    merged.setdefault("engineConfig", {})["runner"] = {"name": "changed"}
    assert spec == before  # and the result shares nothing with them


@PROPERTY_SETTINGS
@given(runtime_spec)
def test_an_empty_parent_changes_nothing(spec: dict[str, Any]) -> None:
    assert merge_chain([{}, spec]) == merge_chain([spec]) == merge_chain([spec, {}])


@PROPERTY_SETTINGS
@given(runtime_spec)
def test_laying_a_spec_over_itself_changes_nothing(spec: dict[str, Any]) -> None:
    assert merge_chain([spec, spec]) == merge_chain([spec])


@PROPERTY_SETTINGS
@given(runtime_spec, runtime_spec, runtime_spec)
def test_merging_is_associative_over_the_chain(a: dict[str, Any], b: dict[str, Any], c: dict[str, Any]) -> None:
    """Resolving a parent first and then laying the child over it is the same as merging the whole chain."""
    assert merge_chain([merge_chain([a, b]), c]) == merge_chain([a, b, c])


@PROPERTY_SETTINGS
@given(st.lists(runtime_spec, min_size=1, max_size=5))
def test_the_leaf_wins_single_values(chain: list[dict[str, Any]]) -> None:
    merged = merge_chain(chain)
    images = [s["engineConfig"]["runner"]["image"] for s in chain if "image" in s["engineConfig"]["runner"]]
    assert merged["engineConfig"]["runner"].get("image") == (images[-1] if images else None)


@PROPERTY_SETTINGS
@given(st.lists(runtime_spec, min_size=1, max_size=5))
def test_the_chain_is_merge_laid_over_each_parent_in_turn(chain: list[dict[str, Any]]) -> None:
    """merge_chain lays each spec over one result in place; it must equal merging step by step, inputs untouched."""
    from functools import reduce

    from omerender.resolve.merge import merge

    before = copy.deepcopy(chain)
    merged = merge_chain(chain)
    assert merged == reduce(merge, chain, {})
    assert chain == before
    for item in merged.get("engineConfig", {}).get("runner", {}).get("env", []):
        item["name"] = "changed"  # the result shares nothing with the chain
    assert chain == before
