"""changes.fielddiff on deepdiff: each setting it is given shows in a result.

Each case here fails when the setting it names is dropped (deepdiff's defaults suit other uses).
"""

from __future__ import annotations

from datetime import UTC, datetime

from omerender.changes.fielddiff import FieldChange, Item, compare


def name(n: str) -> Item:
    return Item(("name",), (n,))


def test_an_item_removed_and_another_added_at_the_same_index_stay_two_changes():  # report_repetition
    old, new = {"env": [{"name": "A"}]}, {"env": [{"name": "B"}]}
    assert compare(old, new) == [
        FieldChange(("env", name("A")), "removed", {"name": "A"}, None),
        FieldChange(("env", name("B")), "added", None, {"name": "B"}),
    ]


def test_keys_with_two_underscores_are_data():  # ignore_private_variables
    assert compare({"__x": 1}, {"__x": 2}) == [FieldChange(("__x",), "changed", 1, 2)]


def test_a_map_sharing_few_keys_is_compared_field_by_field():  # threshold_to_diff_deeper
    old, new = {"m": {"a": 1, "b": 2, "c": 3}}, {"m": {"a": 1, "d": 4, "e": 5}}
    assert [(c.path, c.kind) for c in compare(old, new)] == [
        (("m", "b"), "removed"),
        (("m", "c"), "removed"),
        (("m", "d"), "added"),
        (("m", "e"), "added"),
    ]


def test_a_naive_timestamp_keeps_its_value_and_differs_from_a_zoned_one():  # the operator's datetime rule
    naive, zoned = datetime(2024, 1, 1), datetime(2024, 1, 1, tzinfo=UTC)
    assert compare({"t": naive}, {"t": zoned}) == [FieldChange(("t",), "changed", naive, zoned)]
    assert compare({"t": naive}, {"t": datetime(2024, 1, 2)}) == [
        FieldChange(("t",), "changed", naive, datetime(2024, 1, 2))
    ]


def test_items_moved_by_an_insertion_are_no_reorder_and_a_reorder_inside_an_item_is_found():
    a, b, c = ({"name": n} for n in "ABC")
    old = {"containers": [{"name": "x", "env": [a, b]}]}
    new = {"containers": [{"name": "w"}, {"name": "x", "env": [b, c, a]}]}
    assert [(c.path, c.kind) for c in compare(old, new)] == [
        (("containers", name("x"), "env"), "reordered"),
        (("containers", name("x"), "env", name("C")), "added"),
        (("containers", name("w")), "added"),
    ]


def test_a_list_without_a_key_inside_a_keyed_item_is_one_value():
    old = {"containers": [{"name": "x", "args": ["a", "b"]}]}
    new = {"containers": [{"name": "x", "args": ["a", "c"]}]}
    assert compare(old, new) == [FieldChange(("containers", name("x"), "args"), "changed", ["a", "b"], ["a", "c"])]


def test_equal_values_of_another_type_inside_equal_maps_are_not_looked_into():
    assert compare({"m": {"a": 1}}, {"m": {"a": 1.0}}) == []
    assert compare({"a": 1, "b": 1}, {"a": 1.0, "b": 2}) == [
        FieldChange(("a",), "changed", 1, 1.0),
        FieldChange(("b",), "changed", 1, 2),
    ]
