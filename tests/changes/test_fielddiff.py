"""changes.fielddiff: keyed lists compared by key, each value from its own side."""

from __future__ import annotations

from omerender.changes.fielddiff import FieldChange, Item, compare

A, B, C = ({"name": n, "value": v} for n, v in (("A", "1"), ("B", "2"), ("C", "3")))


def _env(*items):
    return {"env": list(items)}


def name(n: str) -> Item:
    return Item(("name",), (n,))


def test_an_item_added_in_front_is_one_addition():
    assert compare(_env(A, B), _env(C, A, B)) == [FieldChange(("env", name("C")), "added", None, C)]


def test_a_removal_and_a_field_change():
    changed = {"name": "B", "value": "9"}
    assert compare(_env(A, B, C), _env(A, changed)) == [
        FieldChange(("env", name("B"), "value"), "changed", "2", "9"),
        FieldChange(("env", name("C")), "removed", C, None),
    ]


def test_a_reorder_is_its_own_change_and_hides_nothing():
    assert compare(_env(A, B), _env(B, A)) == [FieldChange(("env",), "reordered", ["[name=A]", "[name=B]"],
                                                            ["[name=B]", "[name=A]"])]  # fmt: skip


def test_additions_do_not_count_as_a_reorder():
    assert [c.kind for c in compare(_env(A, B), _env(C, A, C | {"name": "D"}, B))] == ["added", "added"]


def test_tolerations_by_key_and_effect():
    gpu = {"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}
    gpu_exec = gpu | {"effect": "NoExecute"}
    old, new = {"tolerations": [gpu]}, {"tolerations": [gpu, gpu_exec | {"tolerationSeconds": 5}]}
    [change] = compare(old, new)
    assert (change.path[1].text(), change.kind) == ("[key=gpu,effect=NoExecute]", "added")


def test_duplicate_keys_and_scalar_lists_are_one_value():
    assert compare(_env(A, A), _env(A)) == [FieldChange(("env",), "changed", [A, A], [A])]
    assert compare({"args": ["a", "b"]}, {"args": ["b", "a"]}) == [
        FieldChange(("args",), "changed", ["a", "b"], ["b", "a"])
    ]


def test_service_ports_key_by_port():
    old = {"ports": [{"port": 80, "name": "http"}]}
    new = {"ports": [{"port": 80, "name": "web"}]}
    assert compare(old, new) == [FieldChange(("ports", Item(("port",), (80,)), "name"), "changed", "http", "web")]


def test_a_keyed_list_that_appears_is_one_addition_per_item():
    assert compare({}, _env(A, B)) == [
        FieldChange(("env", name("A")), "added", None, A),
        FieldChange(("env", name("B")), "added", None, B),
    ]
    assert compare(_env(A), {}) == [FieldChange(("env", name("A")), "removed", A, None)]
