"""factor's profile extraction, as pure functions over plain specs, against the merge table."""

from __future__ import annotations

from typing import Any

from omerender.factor import extract
from omerender.resolve.merge import merge


def roundtrip(specs: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    profile, children = extract.extract(specs)
    for spec, child in zip(specs, children, strict=True):
        assert merge(profile, child) == merge({}, spec)
    return profile, children


def test_a_field_one_member_lacks_stays_out() -> None:
    profile, children = roundtrip([{"a": 1, "b": 2}, {"a": 1, "b": 2}, {"a": 1}])
    assert profile == {"a": 1} and children == [{"b": 2}, {"b": 2}, {}]


def test_unset_values_count_as_missing() -> None:
    profile, _ = roundtrip([{"a": [], "b": {"x": 1}}, {"a": [1], "b": {"x": 1, "y": ""}}])
    assert profile == {}  # a is unset in one member; b holds an unset field the merge would drop


def test_replaced_list_goes_up_when_two_members_share_it() -> None:
    specs = [{"command": ["serve", "-a"]}, {"command": ["serve", "-a"]}, {"command": ["serve", "-b"]}]
    profile, children = roundtrip(specs)
    assert profile == {"command": ["serve", "-a"]}
    assert children == [{}, {}, {"command": ["serve", "-b"]}]


def test_replaced_list_no_two_members_share_stays_down() -> None:
    profile, _ = roundtrip([{"args": ["-a"]}, {"args": ["-b"]}])
    assert profile == {}


def test_keyed_list_shares_common_items() -> None:
    specs = [
        {"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "x"}]},
        {"env": [{"name": "A", "value": "1"}, {"name": "B", "value": "y"}, {"name": "C", "value": "2"}]},
    ]
    profile, children = roundtrip(specs)
    assert profile == {"env": [{"name": "A", "value": "1"}]}
    # the merge would put a child's own items before the inherited A, so A stays by name to hold its place
    assert children == [
        {"env": [{"name": "A"}, {"name": "B", "value": "x"}]},
        {"env": [{"name": "A"}, {"name": "B", "value": "y"}, {"name": "C", "value": "2"}]},
    ]


def test_keyed_list_order_is_kept_with_placeholders() -> None:
    specs = [
        {"env": [{"name": "A", "value": "1"}, {"name": "Z", "value": "z"}]},
        {"env": [{"name": "Y", "value": "y"}, {"name": "A", "value": "1"}]},
    ]
    roundtrip(specs)  # the merge puts patch items first: the second member keeps A by name to hold its place


def test_model_size_range_is_shared_whole_or_not_at_all() -> None:
    specs = [{"modelSizeRange": {"min": "1B", "max": "8B"}}, {"modelSizeRange": {"min": "2B", "max": "8B"}}]
    profile, _ = roundtrip(specs)
    assert "modelSizeRange" not in profile


def test_first_difference_names_the_field() -> None:
    old = {"engineConfig": {"runner": {"image": "a", "args": ["x"]}}}
    new = {"engineConfig": {"runner": {"image": "b", "args": ["x"]}}}
    assert extract.first_difference(old, new) == "spec.engineConfig.runner.image"
