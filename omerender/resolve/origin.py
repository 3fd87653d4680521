"""Which layer set each field of a merged spec: the runtimes of a chain, then the InferenceService.

Origins are computed by running the one merge (``merge.merge``) over copies of the layers whose
scalar leaves are wrapped in ``Tagged`` values that carry the layer's name. The wrapper compares and
hashes as its value, so keyed lists still merge on their keys, and unset values (``None``, ``""``,
``[]``, ``{}``) are left unwrapped so the merge keeps treating them as unset. Whatever leaf survives
the merge names the layer that set it; there is no second implementation of the merge rules.

Paths name fields the way a reader writes them: ``engineConfig.runner.image``,
``engineConfig.volumes[name=dshm].emptyDir.medium`` for lists merged by key, ``tolerations[0].key``
for other lists of objects, and one path for a list of scalars (``engineConfig.runner.args``),
which is always set as a whole.
"""

from __future__ import annotations

import json
import re
from typing import Any

from omerender.data import Json
from omerender.ome import CONFIG_FIELD as COMPONENT_CONFIG
from omerender.resolve.merge import MERGE_KEYS, merge

_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")


class Tagged:
    """A scalar and the layer that set it; equal to and hashed as the scalar alone."""

    __slots__ = ("origin", "value")

    def __init__(self, value: Json, origin: str) -> None:
        self.value = value
        self.origin = origin

    def __eq__(self, other: object) -> bool:
        return self.value == (other.value if isinstance(other, Tagged) else other)  # type: ignore[no-any-return]

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"Tagged({self.value!r}, {self.origin!r})"


def tag(value: Json, origin: str, in_list: bool = False) -> Json:
    """A copy of ``value`` whose set scalars (and every scalar in a list) are ``Tagged`` with ``origin``."""
    if isinstance(value, dict):
        return {k: tag(v, origin) for k, v in value.items()}
    if isinstance(value, list):
        return [tag(v, origin, True) for v in value]
    if not in_list and (value is None or value == ""):
        return value
    return Tagged(value, origin)


def untag(value: Json) -> Json:
    if isinstance(value, dict):
        return {(k.value if isinstance(k, Tagged) else k): untag(v) for k, v in value.items()}
    if isinstance(value, list):
        return [untag(v) for v in value]
    return value.value if isinstance(value, Tagged) else value


def merge_layers(layers: list[tuple[str, dict[str, Any]]]) -> Json:
    """Merge ``(origin, spec)`` layers, first laid first, keeping tags on the leaves."""
    result: Json = {}
    for origin, spec in layers:
        result = merge(result, tag(spec, origin))
    return result


def with_components(merged: Json, origin: str, isvc_spec: dict[str, Any]) -> Json:
    """Lay an InferenceService's components over the runtime configs, as rendering does."""
    out = dict(merged) if isinstance(merged, dict) else {}
    for component, config in COMPONENT_CONFIG.items():
        own = isvc_spec.get(component)
        if isinstance(own, dict) and own:
            base = out.get(config) if isinstance(out.get(config), dict) else {}
            out[config] = merge(base, tag(own, origin))
    return out


def _key_text(key: Json) -> str:
    text = str(key)
    return f".{text}" if _PLAIN_KEY.match(text) else "[" + json.dumps(text) + "]"


def join(path: str, key: Json) -> str:
    text = _key_text(key)
    return text[1:] if not path and text.startswith(".") else path + text


def item_path(path: str, field: str, index: int, item: Json) -> str:
    """The path of list item ``index`` of field ``field``: by merge key when it has one."""
    key = MERGE_KEYS.get(field)
    if key and isinstance(item, dict) and key in item:
        value = item[key]
        value = value.value if isinstance(value, Tagged) else value
        return f"{path}[{key}={value}]"
    return f"{path}[{index}]"


def _is_scalar_list(value: list[Json]) -> bool:
    return all(not isinstance(v, (dict, list)) for v in value)


def _origin_of(values: list[Json]) -> str:
    names = list(dict.fromkeys(v.origin for v in values if isinstance(v, Tagged)))
    return ", ".join(names) if names else ""


def flatten(tagged: Json, path: str = "", field: str = "") -> dict[str, tuple[Json, str]]:
    """Every set leaf of a tagged tree: ``path -> (plain value, origin)``; a scalar list is one leaf."""
    out: dict[str, tuple[Json, str]] = {}
    if isinstance(tagged, dict):
        for key, value in tagged.items():
            out.update(flatten(value, join(path, key), str(key)))
    elif isinstance(tagged, list):
        if tagged and _is_scalar_list(tagged):
            out[path] = (untag(tagged), _origin_of(tagged))
        else:
            for i, item in enumerate(tagged):
                out.update(flatten(item, item_path(path, field, i, item), field))
    elif isinstance(tagged, Tagged):
        out[path] = (tagged.value, tagged.origin)
    return out


def origins(tagged: Json) -> dict[str, str]:
    return {path: origin for path, (_, origin) in flatten(tagged).items()}


def snapshot_origins(snapshot: dict[str, Any], live: Json, fallback: str) -> dict[str, str]:
    """Origins for a locked snapshot: a leaf equal to the live one has its origin, others ``fallback``."""
    current = flatten(live)
    out: dict[str, str] = {}
    for path, (value, _) in flatten(tag(snapshot, fallback)).items():
        found = current.get(path)
        out[path] = found[1] if found is not None and found[0] == value else fallback
    return out


def retag(plain: Json, table: dict[str, str], fallback: str, path: str = "", field: str = "") -> Json:
    """``plain`` with each leaf tagged by its path's origin in ``table`` (``fallback`` when absent)."""
    if isinstance(plain, dict):
        return {k: retag(v, table, fallback, join(path, k), str(k)) for k, v in plain.items()}
    if isinstance(plain, list):
        if plain and _is_scalar_list(plain):
            return tag(plain, table.get(path, fallback))
        return [retag(item, table, fallback, item_path(path, field, i, item), field) for i, item in enumerate(plain)]
    return tag(plain, table.get(path, fallback))


def ancestors(path: str) -> list[str]:
    """``a.b[k=v.w].c`` -> ``["a.b[k=v.w]", "a.b", "a"]``: cuts at ``.`` and ``[`` outside brackets and quotes."""
    cuts: list[int] = []
    depth, quoted = 0, False
    for i, ch in enumerate(path):
        if ch == '"' and depth:
            quoted = not quoted
        elif quoted:
            continue
        elif ch == "[":
            if depth == 0 and i:
                cuts.append(i)
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        elif ch == "." and depth == 0:
            cuts.append(i)
    return [path[:i] for i in reversed(cuts)]


def lookup(table: dict[str, str], path: str) -> str:
    """The origin of ``path``: its own, its nearest ancestor's, or those of the leaves below it."""
    if path in table:
        return table[path]
    for probe in ancestors(path):
        if probe in table:
            return table[probe]
    below = [o for p, o in table.items() if p.startswith(path + ".") or p.startswith(path + "[")]
    return ", ".join(dict.fromkeys(below))
