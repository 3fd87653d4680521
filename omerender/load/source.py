"""Where objects came from: one record per input file, whose node trees are composed only on demand.

Positions (line and column) are needed only by diagnostics, but a composed PyYAML node tree costs
about 300 bytes a node: kept beside every document, the trees of a large run weigh several times
its data. So a ``Source`` keeps just the file's display path and text (read anyway, and bounded by
the run's byte budget), and a document's tree is composed again from the text, by the same loader
and with the same document numbering, when a position is asked for: it is the tree the first
parse built, so every position is the same.

The most recently used files stay composed (``CACHED_FILES``, ``CACHED_CHARS``), so that many
diagnostics in one file cost one composition of it. A file is composed only up to the document asked for, and never
beyond what its first parse composed and kept: the cache holds at most that much of a few files.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator

import yaml

from omerender.load.yamlio import compose_documents

CACHED_FILES = 64  # diagnostics come in the order of the objects they are about, not of their files
CACHED_CHARS = 1 << 19  # of text, over the files held composed (a larger file is held alone): ~15 MB of nodes

_LOCATED_KEYS = frozenset({"apiVersion", "kind", "metadata"})


class Source:
    """One input file (or in-memory document): its display path and its text. Compared by identity."""

    __slots__ = ("path", "text")

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text

    def __repr__(self) -> str:
        return f"Source({self.path!r}, {len(self.text)} characters)"

    def node(self, index: int) -> yaml.Node | None:
        """The root node of document ``index`` (as ``ParsedDocument.index`` counts), or None past the end."""
        return _recent.get(self).node(index)


class _Composed:
    """A file's documents composed so far, and the composition to go on with when a later one is asked for."""

    def __init__(self, text: str) -> None:
        self.roots: list[yaml.Node] = []
        self._rest: Iterator[yaml.Node] | None = compose_documents(text)

    def node(self, index: int) -> yaml.Node | None:
        while len(self.roots) <= index and self._rest is not None:
            try:
                self.roots.append(next(self._rest))
            except (StopIteration, yaml.YAMLError, RecursionError):  # past the documents the first parse kept
                self._rest = None
        return self.roots[index] if 0 <= index < len(self.roots) else None


class _Recent:
    """The files composed last, least recently used first; at most ``CACHED_FILES`` and ``CACHED_CHARS``."""

    def __init__(self) -> None:
        self.files: OrderedDict[Source, _Composed] = OrderedDict()
        self.chars = 0

    def get(self, source: Source) -> _Composed:
        found = self.files.get(source)
        if found is not None:
            self.files.move_to_end(source)
            return found
        found = self.files[source] = _Composed(source.text)
        self.chars += len(source.text)
        while len(self.files) > 1 and (len(self.files) > CACHED_FILES or self.chars > CACHED_CHARS):
            self.chars -= len(self.files.popitem(last=False)[0].text)
        return found

    def clear(self) -> None:
        self.files.clear()
        self.chars = 0


_recent = _Recent()


def cached() -> tuple[int, int]:
    """(files, characters of their texts) held composed now."""
    return len(_recent.files), _recent.chars


def forget() -> None:
    """Drop every composed file: the node trees, and the texts only the cache still holds."""
    _recent.clear()


def slim(node: yaml.Node) -> yaml.Node:
    """The tree of an object that is not OME's cut to what its messages point at (apiVersion, kind and
    metadata). Such trees were kept cut, to save memory; positions in them stay what they were."""
    if not isinstance(node, yaml.MappingNode):
        return node
    kept = [(k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value in _LOCATED_KEYS]
    return yaml.MappingNode(node.tag, kept, node.start_mark, node.end_mark)
