"""Helpers on plain YAML data."""

from __future__ import annotations

from typing import Any

from omerender.data import drop_nulls, string_keys, tidy_object


def test_tidy_object_is_string_keys_then_drop_nulls_below_spec() -> None:
    def body() -> dict[Any, Any]:
        shared = {1: "one", "gone": None}
        return {
            True: "yes",
            "metadata": {"name": "m", "labels": {2: "two"}, "annotations": None},
            "spec": {"a": None, "b": [{"c": None, 3: "three"}, None], "shared": shared},
            "status": shared,
        }

    tidied, expected = body(), body()
    tidy_object(tidied)
    string_keys(expected)
    drop_nulls(expected["spec"])
    assert tidied == expected
    assert tidied["metadata"]["annotations"] is None  # only the spec loses nulls
    assert tidied["spec"]["b"] == [{"3": "three"}, None]  # a null list item stays
    assert "true" in tidied


def test_tidy_object_walks_an_alias_bomb_once_per_container() -> None:
    leaf: dict[Any, Any] = {"x": None}
    level: Any = leaf
    for _ in range(60):  # 2**60 paths, 61 containers
        level = [level, level]
    body = {"spec": {"deep": level}}
    tidy_object(body)
    assert leaf == {}
