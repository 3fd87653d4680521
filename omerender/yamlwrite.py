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

import re
from collections.abc import Iterator
from typing import Any

import yaml

from omerender.data import Json

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


def _items(text: str) -> list[str]:
    """The items of a top-level block sequence as PyYAML wrote it, each without its ``- ``."""
    if text.endswith("\n...\n"):
        text = text[:-4]
    chunks = ("\n" + text).split("\n- ")
    return [chunk + "\n" for chunk in chunks[1:-1]] + [chunks[-1]]


_OTHER_BREAKS = re.compile("[\r\x85\u2028\u2029]")  # line breaks to YAML besides "\n"
_FOLDED: _Block = ("", ())  # a multi-line scalar that is not a literal block: PyYAML writes its document


_MARK = "\x00"  # brackets a placeholder's number; never in the writer's text (PyYAML escapes it as "\0")


class Writer:
    """Writes documents; keeps the formatted scalars of every document it wrote (one writer per output).

    Documents are written in chunks of ``chunk`` documents: each in one pass, a scalar or key not yet
    known leaving a numbered placeholder in the text; then the chunk's new scalars and keys are formatted
    by PyYAML in one call each, the placeholders filled in, and the chunk's text handed out.
    """

    def __init__(self, chunk: int = 512) -> None:
        self.chunk = chunk
        self._values: dict[Any, str | _Block] = {}
        self._keys: dict[Any, str | None] = {}  # None: PyYAML writes this key as a complex key
        self._new_values: dict[Any, Any] = {}
        self._new_keys: dict[Any, Any] = {}
        self._seen: set[int] = set()
        # the chunk's placeholders: (ident, indent, is a key) by number, and the text of each by what it stands for
        self._slots: list[tuple[Any, int, bool]] = []
        self._placeholders: dict[tuple[Any, int, bool], str] = {}

    def _placeholder(self, ident: Any, indent: int, key: bool) -> str:
        slot = (ident, indent, key)
        text = self._placeholders.get(slot)
        if text is None:
            self._slots.append(slot)
            text = self._placeholders[slot] = f"{_MARK}{len(self._slots) - 1}{_MARK}"
        return text

    def _learn(self) -> None:
        """Format every new scalar and key with PyYAML, in one call each."""
        values, keys = self._new_values, self._new_keys
        if values:
            for ident, text in zip(values, _items(_pyyaml([list(values.values())])), strict=True):
                head, _, rest = text.partition("\n")
                if _OTHER_BREAKS.search(text) or (rest and not head.startswith("|")):
                    self._values[ident] = _FOLDED  # broken at U+2028 or the like: indented by position
                elif not rest:
                    self._values[ident] = head
                else:
                    lines = rest[:-1].split("\n")
                    self._values[ident] = (head, tuple(line[2:] for line in lines))
        if keys:
            samples = _items(_pyyaml([[{key: 0} for key in keys.values()]]))
            for ident, text in zip(keys, samples, strict=True):
                plain = text.endswith(": 0\n") and text.count("\n") == 1 and not text.startswith("? ")
                plain = plain and not _OTHER_BREAKS.search(text)
                self._keys[ident] = text[:-4] if plain else None
        self._new_values, self._new_keys = {}, {}

    def _block_text(self, found: _Block, indent: int) -> str:
        head, lines = found
        pad = " " * indent
        return head + "".join(f"\n{pad}{line}" if line else "\n" for line in lines)

    def _value(self, value: Any, indent: int) -> str:
        kind = type(value)
        if kind is str:
            if len(value) > MAX_SCALAR:
                raise _Unsupported
            ident: Any = value
        elif kind in _SCALARS:
            ident = (kind, repr(value))
        else:
            raise _Unsupported
        found = self._values.get(ident)
        if found is None:
            self._new_values[ident] = value
            return self._placeholder(ident, indent, False)
        if type(found) is str:
            return found
        if found is _FOLDED:
            raise _Unsupported  # its continuation lines are indented in ways not worth copying
        return self._block_text(found, indent)  # type: ignore[arg-type]

    def _key(self, key: Any) -> str:
        kind = type(key)
        if kind is str:
            ident: Any = key
        elif kind in _SCALARS:
            ident = (kind, repr(key))
        else:
            raise _Unsupported
        found = self._keys.get(ident)
        if found is not None:
            return found
        if ident in self._keys:
            raise _Unsupported
        self._new_keys[ident] = key
        return self._placeholder(ident, 0, True)

    def _enter(self, container: Any, depth: int) -> None:
        if depth > MAX_DEPTH or id(container) in self._seen:
            raise _Unsupported  # too deep, or shared: PyYAML writes an anchor and aliases
        self._seen.add(id(container))

    def _mapping(self, out: list[str], mapping: dict[Any, Any], indent: int, inline: bool, depth: int) -> None:
        seen = self._seen  # _enter, inlined: this is the writer's hot path
        if depth > MAX_DEPTH or id(mapping) in seen:
            raise _Unsupported
        seen.add(id(mapping))
        pad = " " * indent
        try:
            items = sorted(mapping.items())
        except TypeError:
            raise _Unsupported from None
        keys, values = self._keys, self._values
        for key, value in items:
            start = "" if inline else pad
            inline = False
            name = keys.get(key) if type(key) is str else None  # inline: a known text key
            if name is None:
                name = self._key(key)
            kind = type(value)
            if kind is dict or kind is list:
                if value:
                    out.append(f"{start}{name}:\n")
                else:
                    out.append(f"{start}{name}: {{}}\n" if kind is dict else f"{start}{name}: []\n")
                if not value:
                    if depth >= MAX_DEPTH or id(value) in seen:
                        raise _Unsupported  # too deep, or shared within the document: PyYAML writes it
                    seen.add(id(value))
                elif kind is dict:
                    self._mapping(out, value, indent + 2, False, depth + 1)
                else:
                    self._sequence(out, value, indent, False, depth + 1)
            else:
                known = values.get(value) if kind is str else None
                text = known if type(known) is str else self._value(value, indent + 2)
                out.append(f"{start}{name}: {text}\n")

    def _sequence(self, out: list[str], sequence: list[Any], indent: int, inline: bool, depth: int) -> None:
        self._enter(sequence, depth)
        pad = " " * indent + "- "
        for item in sequence:
            start = "- " if inline else pad
            inline = False
            kind = type(item)
            if kind is dict:
                if item:
                    out.append(start)
                    self._mapping(out, item, indent + 2, True, depth + 1)
                else:
                    self._enter(item, depth + 1)
                    out.append(start + "{}\n")
            elif kind is list:
                if item:
                    out.append(start)
                    self._sequence(out, item, indent + 2, True, depth + 1)
                else:
                    self._enter(item, depth + 1)
                    out.append(start + "[]\n")
            else:
                out.append(f"{start}{self._value(item, indent + 2)}\n")

    def _text(self, obj: Any) -> str | None:
        """A non-empty dict or list as a block document's text (placeholders in it, maybe), or None for PyYAML."""
        if not obj or type(obj) not in (dict, list):
            return None  # an empty root is a flow "{}" written on the "---" line; a scalar root is PyYAML's
        out: list[str] = []
        self._seen = set()
        try:
            if type(obj) is dict:
                self._mapping(out, obj, 0, False, 0)
            else:
                self._sequence(out, obj, 0, False, 0)
        except (_Unsupported, RecursionError):
            return None
        finally:
            self._seen = set()
        return "".join(out)

    def _fill(self, text: str) -> str | None:
        """``text`` with its placeholders filled, or None if one stands for text PyYAML must write."""
        parts = text.split(_MARK)
        for i in range(1, len(parts), 2):
            ident, indent, key = self._slots[int(parts[i])]
            if key:
                name = self._keys[ident]
                if name is None:
                    return None
                parts[i] = name
            else:
                found = self._values[ident]
                if found is _FOLDED:
                    return None
                parts[i] = found if isinstance(found, str) else self._block_text(found, indent)
        return "".join(parts)

    def documents(self, objects: list[Json]) -> Iterator[str]:
        """The stream's text in pieces, in order: ``"".join`` them for the whole stream."""
        for index, obj, text in self._written(objects):
            if text is not None:
                yield text if index == 0 else "---\n" + text
            elif index == 0:
                yield pyyaml_stream([obj])
            else:  # how PyYAML starts a document after another: "---" alone, or "--- {}", "--- &id001"
                yield pyyaml_stream([{"a": 0}, obj]).removeprefix("a: 0\n")

    def each(self, objects: list[Json]) -> Iterator[str]:
        """Each object's text as a stream of its own (``dump_one`` of it), sharing this writer's formatted scalars."""
        for _, obj, text in self._written(objects):
            yield pyyaml_stream([obj]) if text is None else text

    def _written(self, objects: list[Any]) -> Iterator[tuple[int, Any, str | None]]:
        """(index, object, its block text without a ``---`` line, or None where PyYAML must write it)."""
        for start in range(0, len(objects), self.chunk):
            chunk = objects[start : start + self.chunk]
            written = [self._text(obj) for obj in chunk]
            try:
                self._learn()
            except ValueError:  # PyYAML wrote the batch in a shape not foreseen: let it write the chunk
                self._new_values, self._new_keys = {}, {}
                written = [None] * len(chunk)
            if self._slots:
                written = [None if t is None else self._fill(t) if _MARK in t else t for t in written]
                self._slots, self._placeholders = [], {}
            for index, (obj, text) in enumerate(zip(chunk, written, strict=True), start):
                yield index, obj, text


def dump_stream(objects: list[Json]) -> str:
    """Objects as one YAML stream, keys sorted as kubectl prints them, documents split by ``---``."""
    return "".join(Writer().documents(objects))


def dump_one(obj: Json) -> str:
    return dump_stream([obj])


def dump_each(objects: list[Json]) -> list[str]:
    """``[dump_one(obj) for obj in objects]``, by one writer: each scalar and key is formatted once for all."""
    return list(Writer().each(objects))
