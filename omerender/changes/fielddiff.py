"""Field-level changes between two plain objects, comparing keyed lists by their key.

Kubernetes and OME key lists of named things (env and volumes by name, ports by containerPort,
volumeMounts by mountPath, the merge table in ``resolve.merge``; tolerations by key and effect): an
item is the same item wherever it stands. Compared by index, one env var added at the top would
shift every item after it and show as a change of each. Here a keyed list gives one ``added`` or
``removed`` entry per item, field changes inside an item kept on both sides, and one ``reordered``
entry when the items both sides share stand in another order (the pod template changes and pods
roll out, so a reorder is a change to show). Every old value is read from the old side, every new
one from the new side.

A list whose items have no usable key (a scalar list such as ``args``, duplicate keys, items that
are not maps) is one value: one ``changed`` entry holding both lists.

deepdiff does the comparison: its ``iterable_compare_func`` pairs a keyed list's items by key, and
an operator stops it at values that are equal and at lists without a usable key. Its tree view
gives each change as a chain of levels holding both sides, so a path is written from the items
themselves (never from an index), and its per-item moves are folded into one ``reordered`` entry
per list. Changes come out in walk order: fields as the old object has them then the new ones,
list items as the old list has them then the new ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise
from typing import Any, Literal

from deepdiff import DeepDiff
from deepdiff.helper import notpresent
from deepdiff.model import ChildRelationship, DiffLevel

from omerender.resolve.merge import MERGE_KEYS

Kind = Literal["added", "removed", "changed", "reordered"]

ITEM_KEYS: dict[str, tuple[tuple[str, ...], ...]] = {
    **{field: ((key,),) for field, key in MERGE_KEYS.items()},
    # a container's ports by containerPort (the merge table); a Service's ports have none: by port, else name
    "ports": (("containerPort",), ("port",), ("name",)),
    # an atomic list in Kubernetes; for review, one toleration is one (key, effect): a key may be tolerated per effect
    "tolerations": (("key", "effect"),),
}
"""Per list field, the key candidates in order: the first every item of both sides has, unique per side."""


@dataclass(frozen=True)
class Item:
    """A keyed list item in a path: ``fields`` and their values, as ``[name=x]`` or ``[key=k,effect=e]``."""

    fields: tuple[str, ...]
    values: tuple[Any, ...]

    def text(self) -> str:
        return "[" + ",".join(f"{f}={_plain(v)}" for f, v in zip(self.fields, self.values, strict=True)) + "]"


Segment = str | Item


@dataclass(frozen=True)
class FieldChange:
    """One change at ``path`` (field names and keyed items from the object's root)."""

    path: tuple[Segment, ...]
    kind: Kind
    old: Any
    new: Any


def _plain(value: Any) -> str:
    return "" if value is None else str(value)


def _key_fields(field: str, old: list[Any], new: list[Any]) -> tuple[str, ...] | None:
    """The key of list ``field`` that identifies every item on both sides, if one does."""
    for fields in ITEM_KEYS.get(field, ()):
        usable = True
        for items in (old, new):
            if not all(isinstance(i, dict) and (len(fields) > 1 or fields[0] in i) for i in items):
                usable = False
                break
            keys = [tuple(i.get(f) for f in fields) for i in items]
            if len(set(map(repr, keys))) != len(keys):
                usable = False
                break
        if usable:
            return fields
    return None


def _item(fields: tuple[str, ...], value: dict[str, Any]) -> Item:
    return Item(fields, tuple(value.get(f) for f in fields))


def _present(value: Any) -> bool:
    return value is not notpresent


class _Comparison:
    """What deepdiff is told: which list items are the same item, and where not to look deeper.

    It is deepdiff's ``iterable_compare_func`` and one of its ``custom_operators``. It remembers the
    key of each keyed list it let deepdiff into, by the two lists' identities (both live as long as
    the comparison), so that paths and sort positions name items by that key.
    """

    def __init__(self) -> None:
        self.keys: dict[tuple[int, int], tuple[str, ...]] = {}

    def match(self, level: DiffLevel) -> bool:
        return True

    def give_up_diffing(self, level: DiffLevel, diff_instance: DeepDiff) -> bool:
        old, new = level.t1, level.t2
        if old == new and type(old) is type(new):
            return True
        if isinstance(old, datetime) and isinstance(new, datetime):  # deepdiff would give naive ones a zone
            diff_instance.custom_report_result("values_changed", level)  # type: ignore[no-untyped-call]
            return True
        if not (isinstance(old, list) and isinstance(new, list)):
            return False
        fields = _key_fields(_field_of(level), old, new)
        if fields is None:  # one value: both lists in one change
            diff_instance.custom_report_result("values_changed", level)  # type: ignore[no-untyped-call]
            return True
        self.keys[id(old), id(new)] = fields
        return False

    def normalize_value_for_hashing(self, parent: Any, obj: Any) -> Any:
        return obj  # deepdiff hashes items to tell matched from added: as they are

    def same_item(self, old: Any, new: Any, level: DiffLevel) -> bool:
        fields = self.keys[id(level.t1), id(level.t2)]
        return _item(fields, old) == _item(fields, new)


def _field_of(level: DiffLevel) -> str:
    """The field name a list stands under, or "" at the root."""
    up = level.up
    if up is None or not isinstance(up.t1, dict):
        return ""
    return str(_param(up.t1_child_rel))


def _param(relation: ChildRelationship | None) -> Any:
    """The key or index a level was reached by (deepdiff sets the relation of each side the child is on)."""
    assert relation is not None
    return relation.param


def _chain(level: DiffLevel) -> list[DiffLevel]:
    out = [level]
    while out[-1].up is not None:
        out.append(out[-1].up)
    return out[::-1]


class _Walk:
    """Paths and walk positions of deepdiff's levels."""

    def __init__(self, keys: dict[tuple[int, int], tuple[str, ...]]) -> None:
        self.keys = keys
        self.orders: dict[tuple[int, int], dict[Any, int]] = {}

    def _dict_order(self, old: dict[Any, Any], new: dict[Any, Any]) -> dict[Any, int]:
        ids = (id(old), id(new))
        if ids not in self.orders:
            self.orders[ids] = {k: i for i, k in enumerate([*old, *(k for k in new if k not in old)])}
        return self.orders[ids]

    def path(self, chain: list[DiffLevel]) -> tuple[tuple[Segment, ...], tuple[int, ...]]:
        """The path to the last level of ``chain`` and its walk position."""
        path: list[Segment] = []
        position: list[int] = []
        for parent, child in pairwise(chain):
            in_old = _present(child.t1)
            param = _param(parent.t1_child_rel if in_old else parent.t2_child_rel)
            if isinstance(parent.t1, dict):
                path.append(str(param))
                position.append(self._dict_order(parent.t1, parent.t2)[param])
            else:  # a keyed list: the item by its key; items of the old side first, then those only the new has
                fields = self.keys[id(parent.t1), id(parent.t2)]
                path.append(_item(fields, child.t1 if in_old else child.t2))
                position.append(param if in_old else len(parent.t1) + param)
        return tuple(path), tuple(position)


def compare(old: Any, new: Any) -> list[FieldChange]:
    """Every change from ``old`` to ``new`` (``None`` for an object that is absent), in walk order."""
    comparison = _Comparison()
    tree = DeepDiff(
        old,
        new,
        view="tree",
        iterable_compare_func=comparison.same_item,
        custom_operators=[comparison],
        ignore_private_variables=False,  # a "__x" key is data here
        threshold_to_diff_deeper=0,  # never one change for a whole map that shares few keys
        # Otherwise an item removed and one added at the same index are joined into one changed value; without
        # ignore_order this flag does nothing else (and its hashes, used to match items, count repeats).
        report_repetition=True,
    ).tree
    walk = _Walk(comparison.keys)
    found: dict[tuple[int, ...], FieldChange] = {}
    moved: set[tuple[int, ...]] = set()
    for report_type, levels in tree.items():
        for level in levels:
            chain = _chain(level)
            if report_type == "iterable_item_moved":
                _reorder(walk, chain[:-1], found, moved)
                continue
            path, position = walk.path(chain)
            before, after = level.t1, level.t2
            if not _present(before) or not _present(after):
                _add_or_remove(path, position, before, after, found)
            elif before is None or after is None:
                found[position] = FieldChange(path, "added" if before is None else "removed", before, after)
            else:
                found[position] = FieldChange(path, "changed", before, after)
    return [found[p] for p in sorted(found)]


def _add_or_remove(
    path: tuple[Segment, ...],
    position: tuple[int, ...],
    before: Any,
    after: Any,
    found: dict[tuple[int, ...], FieldChange],
) -> None:
    """A field or item that only one side has: one entry, or one per item for a keyed list."""
    added = not _present(before)
    value = after if added else before
    field = path[-1] if path else ""
    fields = _key_fields(field, value, []) if isinstance(value, list) and isinstance(field, str) else None
    if fields is None or not path or isinstance(path[-1], Item):
        found[position] = FieldChange(
            path, "added" if added else "removed", None if added else value, value if added else None
        )
        return
    for i, item in enumerate(value):
        key = (*path, _item(fields, item))
        found[(*position, i)] = FieldChange(
            key, "added" if added else "removed", None if added else item, item if added else None
        )


def _reorder(walk: _Walk, chain: list[DiffLevel], found: dict[tuple[int, ...], FieldChange], seen: set[Any]) -> None:
    """deepdiff's moves of one list's items as one ``reordered`` entry, if the items both sides share changed order.

    An item moves in deepdiff's sense whenever its index changes, as items added or removed before it make it.
    """
    path, position = walk.path(chain)
    if position in seen:
        return
    seen.add(position)
    old, new = chain[-1].t1, chain[-1].t2
    fields = walk.keys[id(old), id(new)]
    old_keys = [_item(fields, i) for i in old]
    new_keys = [_item(fields, i) for i in new]
    in_old, in_new = set(old_keys), set(new_keys)
    shared_old = [k for k in old_keys if k in in_new]
    shared_new = [k for k in new_keys if k in in_old]
    if shared_old != shared_new:
        found[position] = FieldChange(path, "reordered", [k.text() for k in shared_old], [k.text() for k in shared_new])
