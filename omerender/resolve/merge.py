"""The spec's merge: strategic-merge-patch semantics over OME's pod and container fields.

One function serves both places OME merges: a child runtime laid over its parent, and an
InferenceService component laid over the merged runtime config. Rules (spec, "What merges"):

* single values replace; objects merge field by field; maps (nodeSelector, requests, limits,
  labels, annotations) therefore merge by key;
* lists named in ``MERGE_KEYS`` merge item by item on their key, items with the same key merging
  field by field; every other list replaces the parent's whole list;
* ``None``, ``[]``, ``{}`` and ``""`` in the overlay count as unset, so a child cannot remove what
  its parent sets.

Merged keyed lists come out in the order Kubernetes' strategic merge patch gives them: patch items
in patch order, base-only items kept where they were relative to the items they preceded.
"""

from __future__ import annotations

from typing import Any, cast

from omerender.data import Json, copy

MERGE_KEYS: dict[str, str] = {
    "env": "name",
    "volumes": "name",
    "imagePullSecrets": "name",
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "schedulingGates": "name",
    "resourceClaims": "name",
    "ports": "containerPort",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "topologySpreadConstraints": "topologyKey",
    "hostAliases": "ip",
}


def is_unset(value: Json) -> bool:
    return value is None or value == "" or (isinstance(value, (list, dict)) and not value)


def merge(base: Json, overlay: Json) -> Json:
    """``overlay`` laid over ``base``; neither input is modified, and the result shares no containers with them."""
    if is_unset(overlay):
        return copy(base)
    if isinstance(base, dict) and isinstance(overlay, dict):
        out: dict[str, Any] = copy(base)
        lay_over(out, overlay)
        return out
    return copy(overlay)


def lay_over(out: dict[str, Any], overlay: dict[str, Any]) -> None:
    """``overlay`` laid over ``out`` in place; ``out`` is the caller's own copy, so each base value is copied once."""
    for key, value in overlay.items():
        if is_unset(value):
            continue
        current = out.get(key)
        merge_key = MERGE_KEYS.get(key)
        if (
            merge_key
            and isinstance(current, list)
            and isinstance(value, list)
            and _keyed(current, merge_key)
            and _keyed(value, merge_key)
        ):
            out[key] = _merge_keyed(current, value, merge_key, owned=True)
        elif isinstance(current, dict) and isinstance(value, dict):
            lay_over(current, value)
        else:
            out[key] = copy(value)


def _keyed(items: list[Any], merge_key: str) -> bool:
    return all(isinstance(item, dict) and merge_key in item for item in items)


def _merge_keyed(
    base: list[dict[str, Any]], patch: list[dict[str, Any]], merge_key: str, *, owned: bool
) -> list[dict[str, Any]]:
    """Two lists of maps merged by ``merge_key`` and ordered as strategic merge patch orders them; with
    ``owned`` the items of ``base`` are the caller's copies and are merged in place."""
    base_keys = [item[merge_key] for item in base]
    base_pos = {k: i for i, k in reversed(list(enumerate(base_keys)))}
    merged: dict[Any, dict[str, Any]] = {}
    for item in base:
        if item[merge_key] not in merged:
            merged[item[merge_key]] = item if owned else copy(item)
    patch_keys: dict[Any, None] = {}  # insertion-ordered set: linear, whatever the list's length
    for item in patch:
        key = item[merge_key]
        if key in merged:
            lay_over(merged[key], item)
        else:
            merged[key] = copy(item)
        patch_keys.setdefault(key)
    patch_order = list(patch_keys)
    patch_set = patch_keys.keys()
    base_only = [k for k in dict.fromkeys(base_keys) if k not in patch_set]
    ordered: list[Any] = []
    i = j = 0
    while i < len(base_only) and j < len(patch_order):
        left, right = base_only[i], patch_order[j]
        if right in base_pos and base_pos[left] < base_pos[right]:
            ordered.append(left)
            i += 1
        else:
            ordered.append(right)
            j += 1
    ordered.extend(base_only[i:])
    ordered.extend(patch_order[j:])
    return [merged[k] for k in ordered]


def merge_chain(specs: list[dict[str, Any]]) -> dict[str, Any]:
    """Merge runtime specs from the root down: each spec laid over the result for its parent."""
    result: Any = {}
    for spec in specs:  # merge(result, spec) for each, without copying the result again at every level
        if is_unset(spec):
            continue
        if isinstance(result, dict) and isinstance(spec, dict):
            lay_over(result, spec)
        else:
            result = copy(spec)
    return cast(dict[str, Any], result)
