"""The one place YAML is read: libyaml-backed parsing that keeps node positions.

Writing is ``omerender.yamlwrite`` (rendered objects) and ``omerender.roundtrip`` (files edited in place).

Parsing goes through PyYAML's C parser. Each document comes with its composed node tree, for
positions; callers that keep documents drop it and compose the text again when a diagnostic needs
a line and column (``load.source``): node trees cost several times the data they describe. YAML
1.1 scalars (``yes``/``on`` are booleans) match what Kubernetes' own YAML decoder does.
Timestamps stay strings, as they do when the API server reads a manifest into an untyped field.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple, cast

import yaml

from omerender.load.gonumbers import may_hold, reread_quantities

MAX_EXPANDED_NODES = 1_000_000
PRESCAN_BYTES = 1 << 20  # larger texts are counted as events before nodes are built
MAX_FILE_NODES = 1_000_000
MAX_DEPTH = 100  # nesting levels; OME objects need about 15, and deeper input only risks recursion limits


class DuplicateKeyError(yaml.MarkedYAMLError):
    pass


_STR = "tag:yaml.org,2002:str"
_NULL = "tag:yaml.org,2002:null"


class _Loader(yaml.CSafeLoader):
    tidy = True  # a mapping built since the flag was last cleared has a key that is not text, or a null value

    def resolve(self, kind: type[yaml.Node], value: str, implicit: tuple[bool, bool]) -> str:
        """PyYAML's resolve for a loader without path resolvers (SafeLoader has none), with a plain scalar's tag
        looked up once per text: libyaml's composer asks for every node."""
        if kind is yaml.ScalarNode and implicit[0]:
            return _implicit_tag(value)
        return _DEFAULT_TAGS[kind]

    def descend_resolver(self, current_node: yaml.Node | None, current_index: Any) -> None:
        """Nothing to follow: path resolvers are what the resolver's path is kept for, and this loader has none."""

    def ascend_resolver(self) -> None:
        """Nothing to follow (``descend_resolver``)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[tuple[str, str], yaml.Node] = {}
        for key_node, value_node in node.value:
            if key_node.tag != _STR or value_node.tag == _NULL:
                self.tidy = False
            if isinstance(key_node, yaml.ScalarNode):
                ident = (key_node.tag, key_node.value)
                if ident in seen:
                    raise DuplicateKeyError(
                        "while constructing a mapping",
                        node.start_mark,
                        f'found duplicate key "{key_node.value}"',
                        key_node.start_mark,
                    )
                seen[ident] = key_node
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return mapping


assert not _Loader.yaml_path_resolvers, "resolve() and descend_resolver() above assume no path resolvers"
_DEFAULT_TAGS: dict[type[yaml.Node], str] = {
    yaml.ScalarNode: _Loader.DEFAULT_SCALAR_TAG,
    yaml.SequenceNode: _Loader.DEFAULT_SEQUENCE_TAG,
    yaml.MappingNode: _Loader.DEFAULT_MAPPING_TAG,
}


@lru_cache(maxsize=1 << 14)
def _implicit_tag(value: str) -> str:
    """The tag of a plain scalar, as ``BaseResolver.resolve`` finds it (SafeLoader has no path resolvers)."""
    resolvers = _Loader.yaml_implicit_resolvers
    for tag, regexp in resolvers.get(value[:1], []) + resolvers.get(None, []):
        if regexp.match(value):
            return cast(str, tag)
    return _Loader.DEFAULT_SCALAR_TAG


_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_VALUE = "tag:yaml.org,2002:value"  # a plain "=": text as a key (SafeConstructor.flatten_mapping), an error as a value


def construct_plain(loader: _Loader, node: yaml.Node) -> Any:
    """``loader.construct_document(node)`` for a text without anchors, tags or merge keys, where no node is reached
    twice: built node by node, without PyYAML's bookkeeping for shared and recursive nodes, and noting ``tidy``
    as ``_Loader.construct_mapping`` does. Raises on anything else; the caller then asks PyYAML itself.

    A module function, not a closure: a recursive closure is a reference cycle, which would keep the loader
    (and libyaml's buffers) alive while the collector is paused."""
    kind, tag = type(node), node.tag
    if kind is yaml.ScalarNode:
        return node.value if tag == _STR else loader.yaml_constructors[tag](loader, node)
    if kind is yaml.SequenceNode and tag == _SEQ:
        return [construct_plain(loader, item) for item in node.value]
    if tag != _MAP:
        raise _NotPlain
    mapping: dict[Any, Any] = {}
    keys: set[tuple[str, str]] = set()
    for key_node, value_node in node.value:
        key_tag = key_node.tag
        if key_tag != _STR or value_node.tag == _NULL:
            loader.tidy = False
        if type(key_node) is not yaml.ScalarNode or (key_tag, key_node.value) in keys:
            raise _NotPlain  # a complex or duplicate key: PyYAML's own errors
        keys.add((key_tag, key_node.value))
        # Keys interned: the same few dozen names repeat in every document, one copy each instead of one per mapping.
        key = sys.intern(key_node.value) if key_tag in (_STR, _VALUE) else construct_plain(loader, key_node)
        if value_node.tag == _STR and type(value_node) is yaml.ScalarNode:  # most values: text, without a call
            mapping[key] = value_node.value
        else:
            mapping[key] = construct_plain(loader, value_node)
    return mapping


class _NotPlain(Exception):
    """A node ``construct_plain`` leaves to PyYAML."""


def _timestamp_as_text(loader: yaml.BaseLoader, node: yaml.ScalarNode) -> str:
    return str(node.value)


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_text)

MAX_INT_DIGITS = 4300  # Python's own limit on reading a whole number from text (sys.get_int_max_str_digits)


def _int_within_limits(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    """A YAML integer, or a located error for one longer than any number a reader of Kubernetes objects takes:
    Python refuses to read more than ``MAX_INT_DIGITS`` digits at once, which was an internal error."""
    try:
        return yaml.SafeLoader.construct_yaml_int(loader, node)
    except ValueError:
        digits = sum(ch.isdigit() for ch in str(node.value))
        raise yaml.MarkedYAMLError(
            problem=f"a number of {digits} digits is too long to read (at most {MAX_INT_DIGITS}); quote it if it is "
            "text",
            problem_mark=node.start_mark,
        ) from None


_Loader.add_constructor("tag:yaml.org,2002:int", _int_within_limits)


@dataclass(frozen=True)
class ParsedDocument:
    index: int
    data: Any
    node: yaml.Node
    alias_text: int = 0  # measure(node).alias_text, when the text could hold aliases
    tidy: bool = False  # every key is text and no value null: data.tidy_object would change nothing


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _shape_error(problem: str, node: yaml.Node) -> yaml.MarkedYAMLError:
    return yaml.MarkedYAMLError(problem=problem, problem_mark=node.start_mark)


class Shape(NamedTuple):
    nodes: int  # once every alias is expanded, counted up to the limit + 1
    depth: int
    alias_text: int  # characters of scalar text aliases add to what is written, counted up to MAX_ALIAS_TEXT + 1


MAX_ALIAS_TEXT = 1 << 24  # characters; bounds what a few aliases of a long string multiply (the run has its own)


def measure(node: yaml.Node, limit: int = MAX_EXPANDED_NODES) -> Shape:
    """The shape of a document once every alias is expanded.

    Linear in the nodes as written, however far aliases would expand them. A node that holds an
    alias to itself (``&a [*a]``) raises ``yaml.MarkedYAMLError``: it would expand forever.
    """
    size: dict[int, int] = {}
    height: dict[int, int] = {}
    text: dict[int, int] = {}  # scalar characters below a node, aliases expanded
    written = 0  # scalar characters as written: each node once
    cap = 1 << 62  # far above any text written; keeps the sums of an alias bomb small numbers
    active: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        current, children_done = stack.pop()
        key = id(current)
        children = _children(current)
        if children_done:
            size[key] = min(limit + 1, 1 + sum(size[id(c)] for c in children))
            height[key] = 1 + max((height[id(c)] for c in children), default=0)
            text[key] = min(cap, sum(text[id(c)] for c in children))
            active.discard(key)
            continue
        if key in size:
            continue
        if key in active:
            raise _shape_error("recursive alias: a node holds an alias to itself, so it would expand forever", current)
        if not children:
            size[key], height[key] = 1, 1
            text[key] = len(current.value) if isinstance(current, yaml.ScalarNode) else 0
            written += text[key]
            continue
        active.add(key)
        stack.append((current, True))
        stack.extend((c, False) for c in children if id(c) not in size)
    deepest = node
    for _ in range(min(height[id(node)], MAX_DEPTH + 1) - 1):
        deepest = max(_children(deepest), key=lambda c: height[id(c)])
    if height[id(node)] > MAX_DEPTH:
        raise _shape_error(f"document nests more than {MAX_DEPTH} levels deep", deepest)
    return Shape(size[id(node)], height[id(node)], min(MAX_ALIAS_TEXT + 1, max(0, text[id(node)] - written)))


def count_nodes(text: str, limit: int = MAX_FILE_NODES, problem: str = "") -> int:
    """The nodes of ``text`` as written; raises at the first node past ``limit``. Constant memory."""
    count = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        if isinstance(event, _NODE_EVENTS):
            count += 1
            if count > limit:
                raise yaml.MarkedYAMLError(
                    problem=problem or f"file holds more than {limit} YAML nodes; split it into smaller files",
                    problem_mark=cast(yaml.Mark, event.start_mark),
                )
    return count


def possible_nodes(text: str) -> int:
    """An upper bound of the YAML nodes ``text`` holds as written (aliases are bounded by ``measure``):
    every node but a document's root needs a line break, ``:``, ``,``, ``-``, ``?``, ``[`` or ``{``."""
    return 2 * sum(text.count(ch) for ch in "\n:,-?[{") + 2


_NODE_EVENTS = (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent, yaml.AliasEvent)


def _may_nest_deeply(text: str) -> bool:
    """Cheap bound: without aliases, nesting needs a flow bracket or a column of indentation per level."""
    flow = text.count("[") + text.count("{")
    if flow > MAX_DEPTH // 2:
        return True
    return _prefix_of(MAX_DEPTH - 1 - flow).search(text) is not None  # a line's prefix + flow + 2 > MAX_DEPTH


@lru_cache(maxsize=MAX_DEPTH)
def _prefix_of(length: int) -> re.Pattern[str]:
    """A line that starts with at least ``length`` characters of indentation and block indicators."""
    return re.compile(rf"^[ ?:-]{{{length}}}", re.MULTILINE)


def parse_documents(text: str) -> Iterator[ParsedDocument]:
    """Yield each non-empty document of ``text``; raises ``yaml.YAMLError`` with marks on bad input.

    Parsing is bounded: libyaml refuses nesting beyond 1000 levels, and each composed document is
    measured (when aliases or deep nesting are possible) before it is constructed, so an alias
    bomb, a recursive alias or a document nested more than ``MAX_DEPTH`` levels is refused first.
    A text over ``PRESCAN_BYTES`` is first streamed as events, without building nodes, and refused
    if it holds more than ``MAX_FILE_NODES`` nodes: composing nodes costs about 300 bytes each.
    """
    if len(text) > PRESCAN_BYTES and possible_nodes(text) > MAX_FILE_NODES:
        count_nodes(text)
    loader = _Loader(text)
    check_shape = "&" in text or _may_nest_deeply(text)
    plain = not check_shape and "!" not in text and "<<" not in text  # no anchor, tag or merge key: construct_plain
    go_numbers = may_hold(text)
    try:
        for index, node in enumerate(_roots(loader)):
            shape = measure(node) if check_shape else None
            if shape is not None and shape.nodes > MAX_EXPANDED_NODES:
                raise _shape_error(f"document expands to more than {MAX_EXPANDED_NODES} nodes through aliases", node)
            if shape is not None and shape.alias_text > MAX_ALIAS_TEXT:
                raise _shape_error(
                    f"aliases in this document repeat more than {MAX_ALIAS_TEXT} characters of text", node
                )
            loader.tidy = True
            try:
                data = construct_plain(loader, node) if plain else loader.construct_document(node)
            except Exception:
                if not plain:
                    raise
                loader.tidy = True  # PyYAML decides: the same data, or its own error with its marks
                data = loader.construct_document(node)
            if go_numbers:
                reread_quantities(node, data)
            if data is not None:
                yield ParsedDocument(index, data, node, shape.alias_text if shape is not None else 0, loader.tidy)
    finally:
        loader.dispose()


def _roots(loader: _Loader) -> Iterator[yaml.Node]:
    """The root node of every document, empty ones too: their count is ``ParsedDocument.index``."""
    while loader.check_node():
        node = loader.get_node()
        if node is None:
            break
        yield node


def compose_documents(text: str) -> Iterator[yaml.Node]:
    """The root node of each document of ``text``, numbered as ``parse_documents`` numbers them.

    For positions in a text ``parse_documents`` has accepted, so nothing is measured again and no Go
    number reread. The data is built again (and dropped) only where it changes the tree: constructing
    a mapping moves the pairs of its merge keys (``<<: *base``) into it, in place, and a position is
    looked up in the tree so changed. Merge keys are plain ``<<`` or need a tag (``!``).
    """
    loader = _Loader(text)
    construct = "<<" in text or "!" in text
    try:
        for node in _roots(loader):
            if construct:
                loader.construct_document(node)
            yield node
    finally:
        loader.dispose()


def _child(node: yaml.Node, key: Any) -> yaml.Node | None:
    """The value at ``key`` of a mapping node (the first such key), or the item at index ``key`` of a sequence."""
    if isinstance(node, yaml.MappingNode):
        text = str(key)
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == text:
                return cast(yaml.Node, value_node)
    elif isinstance(node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
        return cast(yaml.Node, node.value[key])
    return None


def child(node: yaml.Node | None, key: Any) -> yaml.Node | None:
    """``_child`` for other modules: the value at mapping key ``key``, or sequence item ``key``; None when absent."""
    return None if node is None else _child(node, key)


def position(node: yaml.Node | None, keys: tuple[Any, ...]) -> tuple[int, int]:
    """1-based (line, col) of the node at ``keys`` below ``node``; the deepest existing one if absent.

    For a mapping key the value's position is given, so a message about an annotation points at
    the annotation's value.
    """
    return positions(node, [keys])[0]


def positions(node: yaml.Node | None, paths: Iterable[tuple[Any, ...]]) -> list[tuple[int, int]]:
    """``position(node, path)`` of each path, each node on the way looked up once for all the paths through it."""
    if node is None:
        return [(1, 1) for _ in paths]
    reached: dict[tuple[Any, ...], yaml.Node] = {(): node}
    found = []
    for path in paths:
        depth = len(path)
        while path[:depth] not in reached:
            depth -= 1
        current = reached[path[:depth]]
        for at in range(depth, len(path)):
            below = _child(current, path[at])
            if below is None:
                break
            current = reached[path[: at + 1]] = below
        mark = current.start_mark
        found.append((mark.line + 1, mark.column + 1))
    return found


def find_scalar(node: yaml.Node | None, needle: str) -> tuple[int, int] | None:
    """1-based position of the first scalar whose text contains ``needle``, in document order."""
    if node is None:
        return None
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, yaml.ScalarNode):
            if needle in str(current.value):
                return (current.start_mark.line + 1, current.start_mark.column + 1)
        elif isinstance(current, yaml.MappingNode):
            stack.extend(reversed([n for pair in current.value for n in pair]))
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(reversed(current.value))
    return None
