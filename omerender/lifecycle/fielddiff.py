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

deepdiff (used before) compares lists by position and reports index paths that had to be mapped
back to items; its ``iterable_compare_func`` can match items but still reports moves by index.
The walk below is short, has no dependency and says exactly what a reviewer needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

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


def _keyed_field(field: Any, value: Any) -> bool:
    return isinstance(value, list) and _key_fields(str(field), value, []) is not None


def _by_key(items: list[dict[str, Any]], fields: tuple[str, ...]) -> dict[Item, dict[str, Any]]:
    return {Item(fields, tuple(i.get(f) for f in fields)): i for i in items}


def compare(old: Any, new: Any) -> list[FieldChange]:
    """Every change from ``old`` to ``new`` (``None`` for an object that is absent), in walk order."""
    out: list[FieldChange] = []
    _walk(old, new, (), "", out)
    return out


def _walk(old: Any, new: Any, path: tuple[Segment, ...], field: str, out: list[FieldChange]) -> None:
    if old == new and type(old) is type(new):
        return
    if old is None or new is None:
        out.append(FieldChange(path, "added" if old is None else "removed", old, new))
    elif isinstance(old, dict) and isinstance(new, dict):
        for key in [*old, *(k for k in new if k not in old)]:
            field_path = (*path, str(key))
            if key in old and key in new:
                _walk(old[key], new[key], field_path, str(key), out)
            elif _keyed_field(key, old.get(key, new.get(key))):  # a keyed list that appears or goes: per item
                _walk(old.get(key, []), new.get(key, []), field_path, str(key), out)
            elif key not in new:
                out.append(FieldChange(field_path, "removed", old[key], None))
            else:
                out.append(FieldChange(field_path, "added", None, new[key]))
    elif isinstance(old, list) and isinstance(new, list) and (fields := _key_fields(field, old, new)):
        _walk_keyed(_by_key(old, fields), _by_key(new, fields), path, field, out)
    else:
        out.append(FieldChange(path, "changed", old, new))


def _walk_keyed(
    old: dict[Item, dict[str, Any]],
    new: dict[Item, dict[str, Any]],
    path: tuple[Segment, ...],
    field: str,
    out: list[FieldChange],
) -> None:
    shared_old = [k for k in old if k in new]
    shared_new = [k for k in new if k in old]
    if shared_old != shared_new:
        out.append(FieldChange(path, "reordered", [k.text() for k in shared_old], [k.text() for k in shared_new]))
    for key, item in old.items():
        if key not in new:
            out.append(FieldChange((*path, key), "removed", item, None))
        else:
            _walk(item, new[key], (*path, key), field, out)
    for key, item in new.items():
        if key not in old:
            out.append(FieldChange((*path, key), "added", None, item))
