"""Helpers on plain YAML data (dicts, lists and scalars), shared by every stage."""

from __future__ import annotations

from typing import Any


def copy(value: Any) -> Any:
    """A deep copy of plain YAML data (faster than ``copy.deepcopy`` for dicts, lists and scalars)."""
    if isinstance(value, dict):
        return {k: copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy(v) for v in value]
    return value


def drop_nulls(value: Any) -> None:
    """Remove, in place, every mapping entry whose value is null, as the API server does for a CRD.

    OME's CRDs mark no field nullable, so the API server prunes ``key: null`` before it stores the
    object (a null list item stays, and fails validation). Shared (aliased) containers are walked
    once, and the walk is iterative, so no nesting depth can exhaust the stack.
    """
    seen: set[int] = set()
    stack = [value]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, dict):
            for key in [k for k, v in current.items() if v is None]:
                del current[key]
            stack.extend(v for v in current.values() if isinstance(v, dict | list))
        elif isinstance(current, list):
            stack.extend(v for v in current if isinstance(v, dict | list))
