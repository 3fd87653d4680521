"""Writing YAML: a direct block-style writer whose bytes are PyYAML's, with PyYAML as the reference.

``pyyaml_stream`` is the reference: PyYAML's C dumper, keys sorted as kubectl prints them, strings
holding a line break written as literal blocks. ``dump_stream`` writes the same bytes faster. Layout
(indentation, ``- `` items, ``{}``/``[]``) is written directly; each distinct scalar and key is
formatted once, by the real dumper, in one batch per call, so quoting and YAML 1.1 look-alikes
(``on``, ``0x1f``, ``~``) are decided by PyYAML itself. A document outside the writer's subset
(a container shared within the document, which PyYAML writes as an anchor; a key PyYAML writes as
a complex ``?`` key; a type other than dict, list, str, int, float, bool and None; deep nesting;
a huge scalar) is written by PyYAML.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

MAX_DEPTH = 200  # deeper documents go to PyYAML (its emitter recurses too, but so be it)
MAX_SCALAR = 1 << 20  # characters; PyYAML's width (2**30) never folds below this


class _Dumper(yaml.CSafeDumper):
    pass


def _represent_str(dumper: _Dumper, data: str) -> yaml.Node:
    if "\n" in data:
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", data)


_Dumper.add_representer(str, _represent_str)


def _pyyaml(objects: list[Any]) -> str:
    return yaml.dump_all(
        objects,
        Dumper=_Dumper,
        default_flow_style=False,
        sort_keys=True,
        allow_unicode=True,
        width=1 << 30,
        explicit_start=False,
    )


def pyyaml_stream(objects: list[Any]) -> str:
    """The reference: objects as one YAML stream written by PyYAML, documents split by ``---``."""
    if not objects:
        return ""
    return _pyyaml(objects).replace("\n...\n", "\n")


class _Unsupported(Exception):
    """The document leaves the writer's subset: PyYAML writes it."""


_SCALARS = (str, int, float, bool, type(None))
_Block = tuple[str, tuple[str, ...]]  # a literal block: header ("|-", "|2+") and its lines, unindented


def _ident(value: Any) -> Any:
    """A memo key telling apart what compares equal but prints differently (1, 1.0, True; 0.0, -0.0)."""
    return value if type(value) is str else (type(value), repr(value))


def _items(text: str) -> list[str]:
    """The items of a top-level block sequence as PyYAML wrote it, each without its ``- ``."""
    if text.endswith("\n...\n"):
        text = text[:-4]
    chunks = ("\n" + text).split("\n- ")
    return [chunk + "\n" for chunk in chunks[1:-1]] + [chunks[-1]]


class Writer:
    """Writes documents; keeps the formatted scalars of every document it wrote (one writer per output)."""

    def __init__(self) -> None:
        self._values: dict[Any, str | _Block] = {}
        self._keys: dict[Any, str | None] = {}  # None: PyYAML writes this key as a complex key

    def _collect(self, value: Any, depth: int, seen: set[int], values: dict[Any, Any], keys: dict[Any, Any]) -> None:
        if depth > MAX_DEPTH:
            raise _Unsupported
        kind = type(value)
        if kind is dict:
            if id(value) in seen:
                raise _Unsupported
            seen.add(id(value))
            for key, item in value.items():
                if type(key) not in _SCALARS:
                    raise _Unsupported
                ident = _ident(key)
                if ident not in self._keys:
                    keys[ident] = key
                if type(item) in _SCALARS:
                    self._scalar(item, values)
                else:
                    self._collect(item, depth + 1, seen, values, keys)
        elif kind is list:
            if id(value) in seen:
                raise _Unsupported
            seen.add(id(value))
            for item in value:
                if type(item) in _SCALARS:
                    self._scalar(item, values)
                else:
                    self._collect(item, depth + 1, seen, values, keys)
        elif kind in _SCALARS:
            raise _Unsupported  # a scalar document: PyYAML marks its end in ways not worth copying
        else:
            raise _Unsupported

    def _scalar(self, value: Any, values: dict[Any, Any]) -> None:
        if type(value) is str and len(value) > MAX_SCALAR:
            raise _Unsupported
        ident = _ident(value)
        if ident not in self._values:
            values[ident] = value

    def _learn(self, values: dict[Any, Any], keys: dict[Any, Any]) -> None:
        """Format every new scalar and key with PyYAML, in one call each."""
        if values:
            for ident, text in zip(values, _items(_pyyaml([list(values.values())])), strict=True):
                head, _, rest = text.partition("\n")
                if not rest:
                    self._values[ident] = head
                else:
                    lines = rest[:-1].split("\n")
                    self._values[ident] = (head, tuple(line[2:] for line in lines))
        if keys:
            samples = _items(_pyyaml([[{key: 0} for key in keys.values()]]))
            for ident, text in zip(keys, samples, strict=True):
                plain = text.endswith(": 0\n") and text.count("\n") == 1 and not text.startswith("? ")
                self._keys[ident] = text[:-4] if plain else None

    def _value(self, value: Any, indent: int) -> str:
        found = self._values[_ident(value)]
        if isinstance(found, str):
            return found
        head, lines = found
        pad = " " * indent
        return head + "".join(f"\n{pad}{line}" if line else "\n" for line in lines)

    def _key(self, key: Any) -> str:
        found = self._keys[_ident(key)]
        if found is None:
            raise _Unsupported
        return found

    def _mapping(self, out: list[str], mapping: dict[Any, Any], indent: int, inline: bool) -> None:
        pad = " " * indent
        try:
            items = sorted(mapping.items())
        except TypeError:
            raise _Unsupported from None
        for key, value in items:
            start = "" if inline else pad
            inline = False
            name = self._key(key)
            kind = type(value)
            if kind is dict:
                if value:
                    out.append(f"{start}{name}:\n")
                    self._mapping(out, value, indent + 2, False)
                else:
                    out.append(f"{start}{name}: {{}}\n")
            elif kind is list:
                if value:
                    out.append(f"{start}{name}:\n")
                    self._sequence(out, value, indent, False)
                else:
                    out.append(f"{start}{name}: []\n")
            else:
                out.append(f"{start}{name}: {self._value(value, indent + 2)}\n")

    def _sequence(self, out: list[str], sequence: list[Any], indent: int, inline: bool) -> None:
        pad = " " * indent
        for item in sequence:
            start = "- " if inline else pad + "- "
            inline = False
            kind = type(item)
            if kind is dict:
                if item:
                    out.append(start)
                    self._mapping(out, item, indent + 2, True)
                else:
                    out.append(start + "{}\n")
            elif kind is list:
                if item:
                    out.append(start)
                    self._sequence(out, item, indent + 2, True)
                else:
                    out.append(start + "[]\n")
            else:
                out.append(f"{start}{self._value(item, indent + 2)}\n")

    def documents(self, objects: list[Any]) -> Iterator[str]:
        """The stream's text in pieces, one per object in order: ``"".join`` them for the whole stream."""
        supported: list[bool] = []
        values: dict[Any, Any] = {}
        keys: dict[Any, Any] = {}
        for obj in objects:
            try:
                self._collect(obj, 0, set(), values, keys)
                supported.append(bool(obj))  # an empty root is a flow "{}", written on the "---" line
            except _Unsupported:
                supported.append(False)
        try:
            self._learn(values, keys)
        except ValueError:  # PyYAML wrote the batch in a shape not foreseen: let it write everything
            supported = [False] * len(objects)
        for index, (obj, fast) in enumerate(zip(objects, supported, strict=True)):
            text = self._block(obj) if fast else None
            if text is not None:
                yield text if index == 0 else "---\n" + text
            elif index == 0:
                yield pyyaml_stream([obj])
            else:  # how PyYAML starts a document after another: "---" alone, or "--- {}", "--- &id001"
                yield pyyaml_stream([{"a": 0}, obj]).removeprefix("a: 0\n")

    def _block(self, obj: Any) -> str | None:
        """A non-empty dict or list as a block document, or None when PyYAML must write it."""
        out: list[str] = []
        try:
            if type(obj) is dict:
                self._mapping(out, obj, 0, False)
            else:
                self._sequence(out, obj, 0, False)
        except (_Unsupported, KeyError):
            return None
        return "".join(out)


def dump_stream(objects: list[Any]) -> str:
    """Objects as one YAML stream, keys sorted as kubectl prints them, documents split by ``---``."""
    return "".join(Writer().documents(objects))


def dump_one(obj: Any) -> str:
    return dump_stream([obj])
