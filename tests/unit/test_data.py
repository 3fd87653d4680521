"""Helpers on plain YAML data."""

from __future__ import annotations

from typing import Any

from omerender.data import drop_nulls, tidy_object


def test_tidy_object_makes_keys_strings_and_drops_nulls_below_spec() -> None:
    shared = {1: "one", "gone": None}
    body: dict[Any, Any] = {
        True: "yes",
        "metadata": {"name": "m", "labels": {2: "two", None: "n"}, "annotations": None},
        "spec": {"a": None, "b": [{"c": None, 3: "three"}, None], "shared": shared},
        "status": shared,
    }
    tidy_object(body)
    assert body == {
        "true": "yes",
        "metadata": {"name": "m", "labels": {"2": "two", "null": "n"}, "annotations": None},  # only spec loses nulls
        "spec": {"b": [{"3": "three"}, None], "shared": {"1": "one"}},  # a null list item stays
        "status": {"1": "one"},  # the same mapping as spec.shared (an alias), walked from spec too
    }


def test_drop_nulls_everywhere_keeps_keys() -> None:
    value: dict[Any, Any] = {1: None, "a": {"b": None, 2: [None, {"c": None}]}}
    drop_nulls(value)
    assert value == {"a": {2: [None, {}]}}


def test_tidy_object_walks_an_alias_bomb_once_per_container() -> None:
    leaf: dict[Any, Any] = {"x": None}
    level: Any = leaf
    for _ in range(60):  # 2**60 paths, 61 containers
        level = [level, level]
    body = {"spec": {"deep": level}}
    tidy_object(body)
    assert leaf == {}
