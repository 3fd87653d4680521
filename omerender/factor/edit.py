"""Rewriting a runtime document as a child by editing its text: whole lines out, one annotation in.

The fast path of ``rewrite``: the composed node tree (the one the build read, with its marks)
says which lines hold each field; a field the child no longer needs leaves with its lines (its own
comments with it, and the comment lines right above it at its indentation); the
``ome.io/inherit-from`` annotation goes in as new lines; ``autoSelect: true`` becomes ``false``
where asked. Everything else is the author's text to the byte: line endings, BOM, quoting,
comments. The comments of the fields that leave are returned, by field path, for the profile.

Only block style is edited: where a deletion would fall inside a flow collection (``{...}``,
``[...]``), or a field would be left empty, ``edit_document`` returns None and the caller takes the
ruamel.yaml round trip instead. Work is linear in the document's nodes and lines.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from omerender.ome import INHERIT_FROM
from omerender.resolve.merge import MERGE_KEYS

LINE_BREAK = re.compile("\r\n|\r|\n|\x85|\u2028|\u2029")  # what libyaml counts as a line break
_BREAK_CHARS = "\r\n\x85\u2028\u2029"
_COMMENT_LINE = re.compile(r"[ \t]*#(.*)")
_EOL_COMMENT = re.compile(r"[ \t]+#(.*)")
_PLAIN_SAFE = re.compile(r"[a-z0-9]([-a-z0-9.]*[a-z0-9])?")

FieldPath = tuple[Any, ...]  # mapping keys, and ``("name", value)`` pairs for items of keyed lists


@dataclass
class Comments:
    """Comments of one field: the full lines above it and the one after its value on its line."""

    before: list[str] = field(default_factory=list)
    eol: str = ""


class _Refused(Exception):
    """This document needs the round trip (flow style, an emptied field, an unexpected layout)."""


class Lines:
    """A text and the offset where each of its lines starts, counted as libyaml counts them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0, *(m.end() for m in LINE_BREAK.finditer(text))]

    def line(self, n: int) -> str:
        end = self.starts[n + 1] if n + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[n] : end].rstrip(_BREAK_CHARS)  # a line holds no break but its last

    def start(self, n: int) -> int:
        return self.starts[n] if n < len(self.starts) else len(self.text)

    def after(self, n: int) -> int:
        """The offset just past line ``n`` and its line break."""
        return self.start(n + 1)


def _last_line(node: yaml.Node) -> int:
    """The last line holding the node's own text (a block collection's end mark lies on the next key's line)."""
    if isinstance(node, yaml.MappingNode) and node.value and not node.flow_style:
        return _last_line(node.value[-1][1])
    if isinstance(node, yaml.SequenceNode) and node.value and not node.flow_style:
        return _last_line(node.value[-1])
    mark = node.end_mark
    if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">") and mark.column == 0:
        return int(mark.line) - 1
    return int(mark.line)


def _comment_block(lines: Lines, first: int, column: int) -> int:
    """The first line of the comment lines right above line ``first`` written at ``column``."""
    top = first
    while top > 0:
        text = lines.line(top - 1)
        if not _COMMENT_LINE.fullmatch(text) or len(text) - len(text.lstrip(" ")) != column:
            break
        top -= 1
    return top


class _Editor:
    def __init__(self, lines: Lines) -> None:
        self.lines = lines
        self.cuts: list[tuple[int, int, str]] = []  # (start, end, replacement) in the file's text
        self.comments: dict[FieldPath, Comments] = {}

    def _gather(self, node: yaml.Node, path: FieldPath, key_line: int, indent: int) -> None:
        """Record the comments of the field at ``path`` (key on ``key_line``, written at ``indent``) and below it."""
        lines = self.lines
        top = _comment_block(lines, key_line, indent)
        before = [_COMMENT_LINE.fullmatch(lines.line(n))[1] for n in range(top, key_line)]  # type: ignore[index]
        eol = ""
        if isinstance(node, yaml.ScalarNode) and node.style not in ("|", ">") and node.end_mark.line == key_line:
            rest = _EOL_COMMENT.match(lines.line(key_line)[node.end_mark.column :])
            eol = rest[1] if rest else ""
        if before or eol:
            self.comments[path] = Comments([b.removeprefix(" ") for b in before], eol.removeprefix(" "))
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode):
                    self._gather(v, (*path, k.value), k.start_mark.line, k.start_mark.column)
        elif isinstance(node, yaml.SequenceNode) and not node.flow_style:
            merge_key = MERGE_KEYS.get(str(path[-1]) if path else "")
            for n, item in enumerate(node.value):
                key = _scalar_at(item, merge_key) if merge_key else None
                dash = max(0, item.start_mark.column - 2)
                self._gather(item, (*path, (merge_key, key) if key is not None else n), item.start_mark.line, dash)

    def _cut_lines(self, first: int, last: int, indent: int) -> None:
        """Cut lines ``first`` to ``last``, the comment lines right above them written at ``indent``, and the blank
        lines after them (a blank line set the field apart; kept, blank lines would pile up where fields left)."""
        top = _comment_block(self.lines, first, indent)
        while last + 2 < len(self.lines.starts) and not self.lines.line(last + 1).strip():
            last += 1
        self.cuts.append((self.lines.start(top), self.lines.after(last), ""))

    def _indent(self, node: yaml.Node, dash: bool) -> int:
        """Where the line of ``node`` (a key, or a sequence item after its dash) starts; refuses other layouts."""
        prefix = self.lines.line(node.start_mark.line)[: node.start_mark.column]
        if not re.fullmatch(r" *- +" if dash else " *", prefix):
            raise _Refused
        return len(prefix) - len(prefix.lstrip(" "))

    def prune(self, node: yaml.Node, want: Any, name: str, path: FieldPath) -> None:
        """Cut what ``want`` leaves out of ``node``, as ``rewrite._prune`` deletes it from the round trip."""
        if isinstance(node, yaml.MappingNode) and isinstance(want, dict):
            gone = [(k, v) for k, v in node.value if not isinstance(k, yaml.ScalarNode) or k.value not in want]
            if gone and (node.flow_style or len(gone) == len(node.value)):
                raise _Refused
            for k, v in node.value:
                if not isinstance(k, yaml.ScalarNode):
                    raise _Refused
                key_path = (*path, k.value)
                if k.value in want:
                    self.prune(v, want[k.value], k.value, key_path)
                    continue
                indent = self._indent(k, dash=False)
                self._gather(v, key_path, k.start_mark.line, indent)
                self._cut_lines(k.start_mark.line, _last_line(v), indent)
            return
        merge_key = MERGE_KEYS.get(name)
        if not (merge_key and isinstance(node, yaml.SequenceNode) and isinstance(want, list)):
            return
        taken = 0
        kept = 0
        for item in node.value:
            key = _scalar_at(item, merge_key)
            if taken < len(want) and isinstance(want[taken], dict) and key == _text_of(want[taken].get(merge_key)):
                item_path = (*path, (merge_key, key))
                self.prune(item, want[taken], "", item_path)
                taken += 1
                kept += 1
                continue
            if node.flow_style or not isinstance(item, yaml.MappingNode):
                raise _Refused
            indent = self._indent(item, dash=True)
            self._gather(item, (*path, (merge_key, key)), item.start_mark.line, indent)
            self._cut_lines(item.start_mark.line, _last_line(item), indent)
        if not kept:
            raise _Refused

    def flip_auto_select(self, spec: yaml.MappingNode) -> None:
        formats = _value_at(spec, "supportedModelFormats")
        if not isinstance(formats, yaml.SequenceNode):
            return
        for entry in formats.value:
            value = _value_at(entry, "autoSelect")
            if isinstance(value, yaml.ScalarNode) and not value.style and value.value.lower() in ("true", "yes", "on"):
                start = self.lines.start(value.start_mark.line) + value.start_mark.column
                end = self.lines.start(value.end_mark.line) + value.end_mark.column
                self.cuts.append((start, end, "false"))

    def annotate(self, metadata: yaml.MappingNode, parent: str, newline: str, indent: int) -> None:
        if metadata.flow_style or not metadata.value:
            raise _Refused
        value = parent if _PLAIN_SAFE.fullmatch(parent) else f'"{parent}"'
        annotations = _value_at(metadata, "annotations")
        if annotations is not None:
            if not isinstance(annotations, yaml.MappingNode) or annotations.flow_style or not annotations.value:
                raise _Refused
            if any(isinstance(k, yaml.ScalarNode) and k.value == INHERIT_FROM for k, _ in annotations.value):
                raise _Refused
            column = annotations.value[0][0].start_mark.column
            self._insert_after(_last_line(annotations), f"{' ' * column}{INHERIT_FROM}: {value}", newline)
            return
        keys = [k.value if isinstance(k, yaml.ScalarNode) else None for k, _ in metadata.value]
        at = max((i for i, k in enumerate(keys) if k in ("name", "namespace")), default=len(keys) - 1)
        column = metadata.value[0][0].start_mark.column
        text = f"{' ' * column}annotations:{newline}{' ' * (column + indent)}{INHERIT_FROM}: {value}"
        self._insert_after(_last_line(metadata.value[at][1]), text, newline)

    def _insert_after(self, line: int, text: str, newline: str) -> None:
        offset = self.lines.after(line)
        ends_with_break = offset > 0 and LINE_BREAK.match(self.lines.text, offset - 1) is not None
        if offset == len(self.lines.text) and not ends_with_break:
            self.cuts.append((offset, offset, newline + text))
        else:
            self.cuts.append((offset, offset, text + newline))


def apply(text: str, cuts: list[tuple[int, int, str]], base: int = 0) -> str:
    """``text`` (which starts at offset ``base`` of the file) with ``cuts`` (file offsets) made."""
    pieces: list[str] = []
    at = 0
    for start, end, new in sorted(cuts, key=lambda c: (c[0], c[1])):
        if start - base < at:
            raise ValueError("overlapping edits")
        pieces += [text[at : start - base], new]
        at = end - base
    return "".join(pieces) + text[at:]


def _value_at(node: yaml.Node, key: str) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == key:
                return v  # type: ignore[no-any-return]
    return None


def _scalar_at(node: yaml.Node, key: str) -> str | None:
    value = _value_at(node, key)
    return value.value if isinstance(value, yaml.ScalarNode) else None


def _text_of(value: Any) -> str | None:
    return value if isinstance(value, str) else None if value is None else str(value)


def newline_of(text: str) -> str:
    found = LINE_BREAK.search(text)
    return found[0] if found else "\n"


Cuts = list[tuple[int, int, str]]


def _plain_tree(root: yaml.Node) -> bool:
    """No node appears twice (an anchor and its aliases) and no merge key: the text is the data, field for field."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            return False
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if k.tag == "tag:yaml.org,2002:merge" or (isinstance(k, yaml.ScalarNode) and k.value == "<<"):
                    return False
                stack += [k, v]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
    return True


def edit_document(
    lines: Lines, root: yaml.Node, child_spec: dict[str, Any], parent: str, no_auto_select: bool, indent: int
) -> tuple[Cuts, dict[FieldPath, Comments]] | None:
    """The edits (offsets in ``lines.text``) that make the document of ``root`` a child holding ``child_spec``,
    and the comments of the fields that leave; None where only the round trip can (see the module)."""
    spec = _value_at(root, "spec")
    metadata = _value_at(root, "metadata")
    if not isinstance(spec, yaml.MappingNode) or not isinstance(metadata, yaml.MappingNode) or spec.flow_style:
        return None
    span = lines.text[lines.start(root.start_mark.line) : lines.after(root.end_mark.line)]
    if ("&" in span or "<<" in span) and not _plain_tree(root):
        return None
    editor = _Editor(lines)
    try:
        editor.prune(spec, child_spec, "", ())
        if no_auto_select and "supportedModelFormats" in child_spec:
            editor.flip_auto_select(spec)
        editor.annotate(metadata, parent, newline_of(lines.text), indent)
    except _Refused:
        return None
    cuts = sorted(editor.cuts, key=lambda c: (c[0], c[1]))
    if any(a[1] > b[0] for a, b in itertools.pairwise(cuts)):
        return None  # two edits overlap: the round trip decides
    return cuts, editor.comments
