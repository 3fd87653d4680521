"""Profile extraction: what a group of runtime specs can share, and what each member must still say.

Pure functions over plain YAML data, bound to the merge of ``omerender.resolve.merge``:

* a field goes into the profile only if every member sets it (a child cannot delete what its
  parent sets; ``None``, ``[]``, ``{}`` and ``""`` count as unset) and either all members agree on
  it, or the members that differ can restate their own value: for a mapping, field by field; for
  a keyed list (``MERGE_KEYS``), item by item; for a scalar or a replaced list, whole, so the
  value most members share goes up only when at least two members share it;
* a mapping one member writes with an unset field inside stays out of the profile: the merge would
  drop that field, and the member's merged spec would change;
* each child holds what its spec says beyond the profile, and ``proves`` checks that the merge of
  profile and child gives the member's merged spec back, to the byte.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from typing import Any

from omerender.resolve.merge import MERGE_KEYS, is_unset, merge

MISSING: Any = object()
WHOLE = frozenset({"modelSizeRange"})  # mappings a profile holds whole or not at all: OME needs both bounds


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def same(a: Any, b: Any) -> bool:
    """``_canon(a) == _canon(b)`` without writing either out: same types (1, 1.0 and True differ), same values,
    mapping keys in any order; stops at the first difference."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    for kind in (str, int, float):
        if isinstance(a, kind) or isinstance(b, kind):
            return isinstance(a, kind) and isinstance(b, kind) and bool(a == b)
    if (isinstance(a, dict) and not isinstance(b, dict)) or (isinstance(a, list) and not isinstance(b, list)):
        return False
    if isinstance(a, dict):
        return len(a) == len(b) and all(k in b and same(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return _canon(a) == _canon(b)


def _item_key(value: Any) -> Any:
    """A hashable stand-in for a merge key's value: the string itself, else its canonical text."""
    return (True, value) if isinstance(value, str) else (False, _canon(value))


def _has_unset(value: dict[str, Any]) -> bool:
    return any(is_unset(v) for v in value.values())


def keyed_items(value: Any, merge_key: str | None) -> bool:
    """A list the merge combines item by item: every item a mapping with a distinct key."""
    if merge_key is None or not isinstance(value, list):
        return False
    if not all(isinstance(item, dict) and merge_key in item for item in value):
        return False
    keys = [_item_key(item[merge_key]) for item in value]
    return len(set(keys)) == len(keys)


def common(values: list[Any], field: str = "") -> Any:
    """What a profile can hold for one field all members set (``MISSING``: nothing)."""
    first = values[0]
    if type(first) is str and first and all(v == first for v in values):
        return first  # the common case, in one pass: every member writes the same text
    if any(is_unset(v) for v in values):
        return MISSING
    if all(isinstance(v, dict) for v in values) and field not in WHOLE:
        if any(_has_unset(v) for v in values):
            return MISSING
        out: dict[str, Any] = {}
        for key in values[0]:
            if all(key in v for v in values):
                shared = common([v[key] for v in values], key)
                if shared is not MISSING:
                    out[key] = shared
        return out or MISSING
    merge_key = MERGE_KEYS.get(field)
    if merge_key and all(keyed_items(v, merge_key) for v in values):
        return _common_items(values, merge_key) or MISSING
    counts = Counter(_item_key(v) for v in values)
    best, count = counts.most_common(1)[0]
    if count == len(values) or count >= 2:
        return next(v for v in values if _item_key(v) == best)
    return MISSING


def _common_items(values: list[list[dict[str, Any]]], merge_key: str) -> list[dict[str, Any]]:
    """Items every list holds (by key), each reduced to what they share: one index per list, so linear."""
    indexes = [{_item_key(i[merge_key]): i for i in v} for v in values]  # keys are distinct (``keyed_items``)
    out = []
    for item in values[0]:
        key = _item_key(item[merge_key])
        matches = [index.get(key) for index in indexes]
        if any(m is None for m in matches):
            continue
        shared = common(matches)  # MISSING where a match has an unset field
        if isinstance(shared, dict) and merge_key in shared and len(shared) > 1:
            out.append(shared)
    return out


def child(profile: Any, spec: Any, field: str = "") -> Any:
    """What a member must still write over ``profile`` for its merged spec to be ``spec``."""
    if profile is MISSING or profile is None:
        return spec
    if isinstance(profile, dict) and isinstance(spec, dict) and field not in WHOLE:
        out: dict[str, Any] = {}
        for key, value in spec.items():
            if key not in profile:
                out[key] = value
            elif not same(value, profile[key]):
                out[key] = child(profile[key], value, key)
        return out
    merge_key = MERGE_KEYS.get(field)
    if merge_key and keyed_items(profile, merge_key) and keyed_items(spec, merge_key):
        return _child_items(profile, spec, merge_key)
    return spec


def _child_items(profile: list[dict[str, Any]], spec: list[dict[str, Any]], merge_key: str) -> list[dict[str, Any]]:
    """The fewest items that give ``spec`` back, in its order; each shared item only by its key and what differs."""
    inherited = {_item_key(i[merge_key]): i for i in profile}
    full: list[dict[str, Any]] = []
    lean: list[dict[str, Any]] = []
    for item in spec:
        base = inherited.get(_item_key(item[merge_key]))
        if base is None:
            full.append(item)
            lean.append(item)
            continue
        delta = child(base, item)
        reduced = {merge_key: item[merge_key], **{k: v for k, v in delta.items() if k != merge_key}}
        full.append(reduced)
        if len(reduced) > 1:
            lean.append(reduced)
    if same(merge({"x": profile}, {"x": lean})["x"], spec):
        return lean
    return full


def proves(profile: dict[str, Any], child_spec: dict[str, Any], spec: dict[str, Any]) -> bool:
    """Whether ``child_spec`` laid over ``profile`` merges to what ``spec`` merges to on its own."""
    return same(merge(profile, child_spec), merge({}, spec))


def first_difference(old: Any, new: Any, path: str = "spec") -> str:
    """The first field (a dotted path) where ``old`` and ``new`` differ, or ``""``."""
    if same(old, new):
        return ""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(old) + [k for k in new if k not in old]:
            if key not in old or key not in new:
                return f"{path}.{key}"
            found = first_difference(old[key], new[key], f"{path}.{key}")
            if found:
                return found
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found:
                return found
    return path


def extract(specs: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A profile for ``specs`` (without ``disabled``) and each member's child spec.

    The caller proves each child (``proves``) and drops the members that do not prove.
    """
    shared = common(specs) if specs else MISSING
    profile: dict[str, Any] = shared if isinstance(shared, dict) else {}
    profile.pop("disabled", None)
    return profile, [child(profile, s) for s in specs]
