"""``build -o json``: the ``v1 List`` that ``formats.dump_json`` writes, the same bytes, written by orjson.

Each object is written by orjson (Rust) with two-space indent and sorted keys, then indented under
``items``. orjson writes some values otherwise than ``json.dumps``, so an object is written by
``json.dumps`` instead when orjson refuses it (an integer over 64 bits, a key that is not text, a
lone surrogate) or when its text may hold a value the two write differently. Both write the shortest
text that reads back as the same float, and agree on the form from 1e-4 up (``1e+16`` alike); below
1e-4 ``json`` writes ``1e-05`` and ``1e-07`` where orjson writes ``0.00001`` and ``1e-7``; and orjson
writes NaN and infinities as ``null``, ``json`` as ``NaN`` and ``Infinity``. So an object whose text
holds ``null`` or ``0.0000`` anywhere, or ends a line in a negative exponent, is written again by
``json.dumps``. (Every scalar of indented JSON ends its line, and a string never ends one without its
quote, so a line ending ``e-7`` is a number; ``null`` and ``0.0000`` inside a string only cost a rewrite.)
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

JSON_SETTINGS: Mapping[str, Any] = {"indent": 2, "sort_keys": True, "ensure_ascii": False}
"""How every JSON text omerender writes is laid out (reports, -o json, models.json aside)."""

Piece = TypeVar("Piece", bound=str | bytes)
_SMALL_EXPONENT = re.compile(r"e-\d+,?$", re.MULTILINE)  # orjson writes a lower-case e
_ITEM_INDENT = "\n    "
_HEAD = '{\n  "apiVersion": "v1",\n  "items": ['
_TAIL = '\n  ],\n  "kind": "List",\n  "metadata": {}\n}\n'
_EMPTY = '{\n  "apiVersion": "v1",\n  "items": [],\n  "kind": "List",\n  "metadata": {}\n}\n'


def object_text(obj: Any) -> str:
    """``json.dumps(obj, **JSON_SETTINGS)``, by orjson where that gives the same text."""
    import orjson

    try:
        text = orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
    except TypeError:  # orjson.JSONEncodeError: a big integer, a key that is not text, a lone surrogate
        return json.dumps(obj, **JSON_SETTINGS)
    if "null" in text or "0.0000" in text or _SMALL_EXPONENT.search(text):  # substring tests first: fast
        return json.dumps(obj, **JSON_SETTINGS)
    return text


def item_text(obj: Any) -> str:
    """``obj``'s text as an item of the list, without what comes before it."""
    return object_text(obj).replace("\n", _ITEM_INDENT)  # a JSON string never holds a raw line break


def list_pieces(objects: list[Any], text_of: Callable[[Any], Piece]) -> Iterator[str | Piece]:
    """The text of ``dump_json(v1_list(objects))`` in pieces, in order: joined, they are the whole.

    ``text_of`` writes an item: ``item_text``, or its UTF-8 bytes (``prerendered.json_pieces``: a worker's
    object gives its own text)."""
    if not objects:
        yield _EMPTY
        return
    yield _HEAD
    for index, obj in enumerate(objects):
        yield _ITEM_INDENT if index == 0 else "," + _ITEM_INDENT
        yield text_of(obj)
    yield _TAIL


def dump_list(objects: list[Any]) -> str:
    """``dump_json(v1_list(objects))``: the objects as one ``v1 List``."""
    return "".join(list_pieces(objects, item_text))
