"""Helpers on plain YAML data (dicts, lists and scalars), shared by every stage."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeAlias

Json: TypeAlias = Any
"""JSON-shaped data as a YAML or JSON document holds it: mappings, lists, strings, numbers, booleans and null,
nested. Named so that a signature says it takes such data (a ``dict[str, Any]`` when it is an object); mypy sees
``Any``, since the shapes nest without end."""
Key: TypeAlias = str | int
"""One step of a path into JSON-shaped data: a mapping's key or a list's index."""


def copy(value: Json) -> Json:
    """A deep copy of plain YAML data (faster than ``copy.deepcopy`` for dicts, lists and scalars)."""
    if isinstance(value, dict):
        return {k: copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy(v) for v in value]
    return value


def containers(value: Json) -> Iterator[dict[Json, Json] | list[Json]]:
    """Every mapping and list in ``value``, each once (aliased containers are shared), without recursion.

    A container's children are taken after the caller has seen it, so the caller may change it in place.
    """
    seen: set[int] = set()
    stack = [value]
    while stack:
        current = stack.pop()
        if id(current) in seen or not isinstance(current, dict | list):
            continue
        seen.add(id(current))
        yield current
        children = current.values() if isinstance(current, dict) else current
        stack.extend(v for v in children if isinstance(v, dict | list))


def _tidy(value: Json, *, keys: bool, nulls: bool) -> None:
    """One walk over ``value``'s mappings, each shared (aliased) one once, without recursion, so no nesting
    depth can exhaust the stack: with ``keys`` every key becomes a string, with ``nulls`` null entries go."""
    for current in containers(value):
        if isinstance(current, dict):
            if keys:
                _text_keys(current)
            if nulls and None in current.values():
                for key in [k for k, v in current.items() if v is None]:
                    del current[key]


def _text_keys(mapping: dict[Json, Json]) -> None:
    if not all(isinstance(k, str) for k in mapping):
        items = list(mapping.items())
        mapping.clear()
        mapping.update((_key_text(k), v) for k, v in items)


def _key_text(key: Json) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    return str(key)


def drop_nulls(value: Json) -> None:
    """Remove, in place, every mapping entry whose value is null, as the API server does for a CRD.

    OME's CRDs mark no field nullable, so the API server prunes ``key: null`` before it stores the
    object (a null list item stays, and fails validation).
    """
    _tidy(value, keys=False, nulls=True)


def tidy_object(body: dict[Json, Json]) -> None:
    """An OME object as the API server stores it, in one walk over each part of it.

    Every mapping key becomes a string, as Kubernetes' YAML-to-JSON step makes it (``on: 5``, which
    YAML 1.1 reads as ``true: 5``, becomes ``"true": 5``; ``1`` and ``~`` become ``"1"`` and ``"null"``),
    and ``spec`` loses its nulls (``drop_nulls``).
    """
    _text_keys(body)
    for key, value in body.items():
        _tidy(value, keys=True, nulls=key == "spec")
