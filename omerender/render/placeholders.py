"""OME's Go-template placeholders, recognised and filled without ever evaluating a template.

OME runs the serialised main container through Go's ``html/template`` with the InferenceService's
metadata as data (``ReplacePlaceholders``, ``pkg/controller/v1beta1/inferenceservice/utils/merging.go``).
The template text is the container *marshalled to JSON*, so a ``"`` inside an action reaches the
template parser as ``\"``: the double-quoted ``{{index .Labels "k"}}`` fails there, and only the
raw-string form ``{{index .Labels `k`}}`` works. omerender accepts only the forms that work and fills
them itself; any other ``{{ ... }}`` is reported, never executed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice
from typing import Any

from omerender.names import clip

_FIELD = re.compile(r"^\s*\.(Name|Namespace)\s*$")
_DOTTED = re.compile(r"^\s*\.(Labels|Annotations)\.([A-Za-z_][A-Za-z0-9_]*)\s*$")
_INDEX = re.compile(r"^\s*index\s+\.(Labels|Annotations)\s+`([^`]*)`\s*$")
_QUOTED_INDEX = re.compile(r'^\s*index\s+\.(Labels|Annotations)\s+"')
# Go's template parser meets the JSON escape before the quote (parse.go, ``operand``).
QUOTED_OPERAND = 'template: container-tmpl:1: unexpected "\\\\" in operand'
_HTML_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;", "+": "&#43;", "\0": "\ufffd"}


@dataclass(frozen=True)
class PlaceholderProblem:
    text: str  # the string that holds the placeholder
    action: str  # the offending ``{{...}}`` (or the unterminated tail)
    message: str
    fatal: bool
    ome_error: bool = False  # ``message`` is the template error OME itself reports


def _escape(value: str) -> str:
    return "".join(_HTML_ESCAPES.get(ch, ch) for ch in value)


def _fill(action: str, meta: dict[str, Any]) -> tuple[str | None, str | None]:
    """The value for one action, or ``None`` and why it is not a placeholder OME offers."""
    if m := _FIELD.match(action):
        return str(meta.get(m.group(1).lower(), "")), None
    m = _DOTTED.match(action) or _INDEX.match(action)
    if m:
        table = meta.get(m.group(1).lower()) or {}
        key = m.group(2)
        if key not in table:
            return (
                "",
                f"{m.group(1)[:-1].lower()} {key!r} is not set on the InferenceService; OME fills in an empty string",
            )
        return str(table[key]), None
    return None, None


def scan(text: str, meta: dict[str, Any]) -> tuple[str, list[PlaceholderProblem]]:
    """``text`` with every placeholder filled, and the problems found in it."""
    if "{{" not in text:
        return text, []
    problems: list[PlaceholderProblem] = []
    out: list[str] = []
    pos = 0
    while True:  # one pass with str.find: linear, where a lazy ``{{(.*?)}}`` rescans the rest per ``{{``
        start = text.find("{{", pos)
        end = text.find("}}", start + 2) if start >= 0 else -1
        if end < 0:
            break
        out.append(text[pos:start])
        pos = end + 2
        whole = text[start:pos]
        action = text[start + 2 : end]
        value, note = _fill(action, meta)
        if value is None and _QUOTED_INDEX.match(action):
            problems.append(PlaceholderProblem(text, whole, QUOTED_OPERAND, True, ome_error=True))
            out.append(whole)
            continue
        if value is None:
            problems.append(
                PlaceholderProblem(
                    text,
                    whole,
                    f"unsupported template action {clip(whole)!r}: OME fills only {{{{.Name}}}}, {{{{.Namespace}}}}, "
                    "{{.Labels.key}}, {{.Annotations.key}} and {{index .Labels|.Annotations `key`}}; "
                    "omerender never evaluates templates",
                    True,
                )
            )
            out.append(whole)
            continue
        if note:
            problems.append(PlaceholderProblem(text, whole, note, False))
        out.append(_escape(value))
    rest = text[pos:]
    if "{{" in rest:
        problems.append(
            PlaceholderProblem(
                text,
                rest[rest.index("{{") :][:40],
                "unterminated template action '{{' (OME's template parser rejects it)",
                True,
            )
        )
    out.append(rest)
    return "".join(out), problems


def fill(value: Any, meta: dict[str, Any], problems: list[PlaceholderProblem]) -> Any:
    """``value`` with placeholders filled in every string, keys included.

    Only what changes is copied: a container holding no ``{{`` is returned as it is, so the result
    may share sub-trees with ``value`` (give it a private copy if either is changed afterwards).
    """
    if isinstance(value, str):
        if "{{" not in value:
            return value
        filled, found = scan(value, meta)
        problems.extend(found)
        return filled
    if isinstance(value, dict):
        out: dict[Any, Any] | None = None
        for index, (key, item) in enumerate(value.items()):
            new_key = fill(key, meta, problems) if isinstance(key, str) and "{{" in key else key
            new_item = item if isinstance(item, str) and "{{" not in item else fill(item, meta, problems)
            if out is None and (new_key is not key or new_item is not item):
                out = dict(islice(value.items(), index))
            if out is not None:
                out[new_key] = new_item
        return value if out is None else out
    if isinstance(value, list):
        items: list[Any] | None = None
        for index, item in enumerate(value):
            new_item = item if isinstance(item, str) and "{{" not in item else fill(item, meta, problems)
            if items is None and new_item is not item:
                items = value[:index]
            if items is not None:
                items.append(new_item)
        return value if items is None else items
    return value
