"""Bare numbers in quantity fields, read the way kubectl's YAML reader reads them.

kubectl turns YAML into JSON with ``sigs.k8s.io/yaml`` (v1.4.0), whose vendored goyaml.v2 resolver
(``resolve.go``) reads a plain scalar as an int when Go's ``strconv.ParseInt(s, 0, 64)`` accepts it
(underscores removed first), else as a float when it matches
``^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$``. PyYAML's YAML 1.1 rules read ``1e3``,
``1.5e3``, ``2e-3`` and ``0o17`` as strings and ``1:30`` as the base-60 int 90. A quantity that
reaches OME as the JSON number 1000 is written back canonically (``1k``), while the string ``"1e3"``
keeps its form, so the difference shows in the rendered objects.

Only the values of ``resources.requests`` and ``resources.limits`` maps are re-read: elsewhere the
difference does not reach anything omerender renders. Quoted scalars are never touched.
"""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

_TRIGGER = re.compile(r"[0-9](?:[eE][-+]?[0-9]|:[0-9])|0[oO][0-7]")  # 1e3, 1:20, 0o17
_GO_INT = re.compile(r"[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)")
_GO_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_INT64 = 1 << 63
_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_QUANTITY_MAPS = ("requests", "limits")


def may_hold(text: str) -> bool:
    """Whether ``text`` may hold a plain scalar PyYAML and goyaml.v2 read differently (a cheap pre-check)."""
    return _TRIGGER.search(text) is not None


def go_scalar(text: str) -> Any:
    """What goyaml.v2 makes of the plain scalar ``text`` (numbers only; anything else comes back as is)."""
    plain = text.replace("_", "")
    if len(plain) > 400:  # longer than any float64 or int64 Go would accept as written
        return text
    if _GO_INT.fullmatch(plain):
        sign = -1 if plain.startswith("-") else 1
        digits = plain.lstrip("+-")
        base = 10
        if len(digits) > 1 and digits[0] == "0":
            base = {"x": 16, "o": 8, "b": 2}.get(digits[1].lower(), 8)
            digits = digits[2:] if base != 8 or digits[1] in "oO" else digits[1:]
        value = sign * int(digits or "0", base)
        if -_INT64 <= value < _INT64:
            return value
    if _GO_FLOAT.fullmatch(plain):
        number = float(plain)
        if math.isinf(number):  # strconv.ParseFloat: value out of range, so the scalar stays a string
            return text
        if number.is_integer() and -_INT64 <= number < _INT64:
            return int(number)  # JSON "1000", which the API server reads as an integer
        return number
    return text


def _pairs(node: yaml.MappingNode, data: dict[Any, Any]) -> list[tuple[str, yaml.Node, Any]]:
    return [
        (key.value, value, data[key.value])
        for key, value in node.value
        if isinstance(key, yaml.ScalarNode) and key.value in data
    ]


def reread_quantities(node: yaml.Node | None, data: Any) -> None:
    """Replace, in place, plain scalars of ``resources.requests|limits`` that goyaml.v2 reads as numbers."""
    stack: list[tuple[yaml.Node, Any]] = [] if node is None else [(node, data)]
    seen: set[int] = set()
    while stack:
        current, value = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, yaml.SequenceNode) and isinstance(value, list) and len(value) == len(current.value):
            stack.extend(zip(current.value, value, strict=True))
        elif isinstance(current, yaml.MappingNode) and isinstance(value, dict):
            for key, child, child_value in _pairs(current, value):
                if key == "resources" and isinstance(child, yaml.MappingNode) and isinstance(child_value, dict):
                    _reread_resources(child, child_value)
                stack.append((child, child_value))


def _reread_resources(node: yaml.MappingNode, data: dict[Any, Any]) -> None:
    for key, child, section in _pairs(node, data):
        if key not in _QUANTITY_MAPS or not isinstance(child, yaml.MappingNode) or not isinstance(section, dict):
            continue
        for name, scalar, _ in _pairs(child, section):
            # a plain scalar: libyaml's composer gives style "" (PyYAML's own None)
            if not isinstance(scalar, yaml.ScalarNode) or scalar.style not in (None, ""):
                continue
            if scalar.tag in (_STR, _FLOAT) or (scalar.tag == _INT and ":" in scalar.value):
                section[name] = go_scalar(scalar.value)
