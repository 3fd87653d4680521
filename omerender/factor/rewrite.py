"""Rewriting runtime documents as thin children, and writing profiles, as YAML text.

Only the document of a rewritten runtime is re-emitted, through a ruamel.yaml round trip that keeps
its comments, key order and quoting; the rest of the file (other documents, the text around them)
is kept to the byte. Fields the child no longer needs are deleted from the round-tripped document,
so whatever the child keeps is the text the author wrote. The indentation of sequences is taken
from the document itself: the style that reproduces the untouched document best is used.
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING, Any

from omerender.factor.edit import Comments, FieldPath, Lines, apply, edit_document, newline_of
from omerender.factor.plan import Profile
from omerender.ome import API_VERSION, CLUSTER_SERVING_RUNTIME, INHERIT_FROM, RUNTIME_PROFILE, SERVING_RUNTIME
from omerender.resolve.merge import MERGE_KEYS
from omerender.roundtrip import dump, round_trip

if TYPE_CHECKING:
    from ruamel.yaml import YAML

INDENTS = ((2, 4, 2), (2, 2, 0), (4, 4, 2), (4, 6, 4))
BOM = "\ufeff"


class RewriteError(Exception):
    """A document factor cannot rewrite as planned (a bug in factor: the plan came from it)."""


def _yaml(indent: tuple[int, int, int], quote_versions: bool = False) -> YAML:
    """factor's round trip: the quotes the author wrote kept, the ones it adds double, as in Kubernetes' docs."""
    return round_trip(indent, quote='"', preserve_quotes=True, also_quote=_VERSION if quote_versions else None)


def round_tripper(text: str) -> YAML:
    """A ruamel.yaml round trip for factor's other in-place edits: the indentation that writes ``text`` back
    unchanged (its own, as ``_indent`` reads it, else one of ``INDENTS``), or the one that changes fewest lines."""
    from ruamel.yaml.error import YAMLError

    best: tuple[int, YAML] | None = None
    for indent in dict.fromkeys((_indent(text), *INDENTS)):
        rt = _yaml(indent)
        try:
            again = dump(rt, rt.load(text))
        except YAMLError:
            return rt  # the caller's own load says what is wrong
        changed = sum(a != b for a, b in itertools.zip_longest(again.splitlines(), text.splitlines()))
        if changed == 0:
            return rt
        if best is None or changed < best[0]:
            best = (changed, rt)
    assert best is not None
    return best[1]


def _prune(node: Any, want: Any, field: str = "") -> None:
    """Delete from the round-tripped ``node`` what ``want`` (a sub-document of it) leaves out."""
    if isinstance(node, dict) and isinstance(want, dict):
        keys = {str(k): k for k in node}
        for name, key in keys.items():
            if name not in want:
                del node[key]
            else:
                _prune(node[key], want[name], name)
        return
    merge_key = MERGE_KEYS.get(field)
    if merge_key and isinstance(node, list) and isinstance(want, list):
        taken = index = 0
        while index < len(node):
            item = node[index]
            key = item.get(merge_key) if isinstance(item, dict) else None
            if taken < len(want) and isinstance(want[taken], dict) and key == want[taken].get(merge_key):
                _prune(item, want[taken], "")
                taken += 1
                index += 1
            else:
                del node[index]


def _indent(text: str) -> tuple[int, int, int]:
    """The mapping indent, sequence indent and dash offset ``text`` is written with (the first seen of each)."""
    mapping = offset = None
    lines = text.splitlines()
    for above, below in itertools.pairwise(lines):
        key = _KEY_LINE.match(above)
        if key is None:
            continue
        dash, nested = _DASH_LINE.match(below), _KEY_LINE.match(below)
        if dash is not None and offset is None:
            offset = len(dash[1]) - len(key[1])
        elif nested is not None and mapping is None and len(nested[1]) > len(key[1]):
            mapping = len(nested[1]) - len(key[1])
        if mapping is not None and offset is not None:
            break
    mapping = mapping if mapping in (2, 3, 4) else 2
    offset = offset if offset is not None and 0 <= offset <= 4 else 2
    return mapping, max(offset + 2, mapping), offset


_VERSION = re.compile(r"[0-9][0-9.]*")  # "1.0.0" reads as a string, but is quoted as people write versions
_LINE_BREAK = re.compile("\r\n|\r|\n|\x85|\u2028|\u2029")  # what libyaml counts as a line break
_KEY_LINE = re.compile(r"^( *)[^\s#-][^:]*:\s*(#.*)?$")
_DASH_LINE = re.compile(r"^( *)- ")


def rewrite_document(text: str, child_spec: dict[str, Any], parent: str, no_auto_select: bool = False) -> str:
    """The document ``text`` as a child of ``parent`` holding only ``child_spec`` under ``spec``."""
    from ruamel.yaml.comments import CommentedMap

    rt = _yaml(_indent(text))
    data = rt.load(text)
    if not isinstance(data, CommentedMap) or not isinstance(data.get("spec"), CommentedMap):
        raise RewriteError("the runtime document has no spec mapping")
    _prune(data["spec"], child_spec, "")
    formats = data["spec"].get("supportedModelFormats")
    if no_auto_select and isinstance(formats, list):
        for entry in formats:
            if isinstance(entry, dict) and entry.get("autoSelect") is True:
                entry["autoSelect"] = False
    metadata = data.get("metadata")
    if not isinstance(metadata, CommentedMap):
        raise RewriteError("the runtime document has no metadata mapping")
    annotations = metadata.get("annotations")
    if not isinstance(annotations, CommentedMap):
        if "annotations" in metadata:
            del metadata["annotations"]
        after = max((i for i, k in enumerate(metadata) if k in ("name", "namespace")), default=len(metadata) - 1)
        metadata.insert(after + 1, "annotations", CommentedMap())
        annotations = metadata["annotations"]
    annotations[INHERIT_FROM] = parent
    return dump(rt, data)


def document_span(text: str, node: Any) -> tuple[int, int]:
    """Character offsets of the root node of a document composed from ``text`` (its start and end marks)."""
    starts = [0, *(m.end() for m in _LINE_BREAK.finditer(text))]

    def offset(mark: Any) -> int:
        line = min(int(mark.line), len(starts) - 1)
        return min(starts[line] + int(mark.column), len(text))

    return offset(node.start_mark), offset(node.end_mark)


def _count(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def rewrite_file(
    text: str, edits: list[tuple[Any, dict[str, Any], str, bool]]
) -> tuple[str, list[tuple[int, int]], list[dict[FieldPath, Comments]]]:
    """``text`` with each document (by its composed root node) rewritten as a child, the rest kept;
    and per edit, in the order given, the document's lines before and after and the comments of the
    fields that left it (by path below ``spec``)."""
    lines = Lines(text)
    newline = newline_of(text)
    spans = sorted((document_span(text, edit[0]), n) for n, edit in enumerate(edits))
    counts: list[tuple[int, int]] = [(0, 0)] * len(edits)
    comments: list[dict[FieldPath, Comments]] = [{} for _ in edits]
    pieces: list[str] = []
    at = 0
    for (start, stop), n in spans:
        root, spec, parent, no_auto_select = edits[n]
        if start < at:
            raise RewriteError("two runtimes share one document")
        end = stop
        piece = text[start:end]
        edited = edit_document(lines, root, spec, parent, no_auto_select, _indent(piece)[0])
        if edited is not None:
            cuts, comments[n] = edited
            end = max([end, *(c[1] for c in cuts)])
            piece = text[start:end]
            new = apply(piece, cuts, start)
        else:
            new = rewrite_document(piece, spec, parent, no_auto_select).replace("\r\n", "\n")
            if not piece.endswith("\n") and new.endswith("\n"):
                new = new[:-1]
            if newline != "\n":
                new = new.replace("\n", newline)  # the file's own line breaks, not ruamel's
            if piece.startswith(BOM) and not new.startswith(BOM):
                new = BOM + new
        counts[n] = (_count(piece), _count(new))
        pieces += [text[at:start], new]
        at = end
    return "".join(pieces) + text[at:], counts, comments


def profile_document(profile: Profile) -> dict[str, Any]:
    annotations = {RUNTIME_PROFILE: "true"}
    if profile.parent:
        annotations[INHERIT_FROM] = profile.parent
    metadata: dict[str, Any] = {"name": profile.name}
    if profile.namespace is not None:  # a profile of namespaced children: a ServingRuntime in their namespace
        metadata["namespace"] = profile.namespace
    return {
        "apiVersion": API_VERSION,
        "kind": CLUSTER_SERVING_RUNTIME if profile.namespace is None else SERVING_RUNTIME,
        "metadata": {**metadata, "annotations": annotations},
        "spec": {"disabled": True, **profile.spec},
    }


def profile_text(profile: Profile, header: str, comments: dict[FieldPath, Comments] | None = None) -> str:
    """The profile as YAML, with the comments its members wrote on the fields it now holds."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    notes = comments or {}

    def noted(out: Any, key: Any, path: FieldPath, indent: int) -> None:
        note = notes.get(path)
        if note is None:
            return
        if note.eol and not isinstance(out[key], (dict, list)):
            out.yaml_add_eol_comment(f"# {note.eol}", key)
        if note.before:
            out.yaml_set_comment_before_after_key(key, before="\n".join(note.before), indent=indent)

    def commented(value: Any, path: FieldPath, name: str, column: int) -> Any:
        """``value`` as ruamel data with its comments; ``column``: where its keys (or dashes) are written."""
        if isinstance(value, dict):
            out = CommentedMap()
            for k, v in value.items():
                out[k] = commented(v, (*path, k), k, column + 2)
                noted(out, k, (*path, k), column)
            return out
        if isinstance(value, list):
            merge_key = MERGE_KEYS.get(name)
            seq = CommentedSeq()
            for n, v in enumerate(value):
                keyed = merge_key is not None and isinstance(v, dict) and merge_key in v
                item_path = (*path, (merge_key, str(v[merge_key]))) if keyed else (*path, n)
                seq.append(commented(v, item_path, "", column + 2))
                noted(seq, n, item_path, column)
            return seq
        return value

    document = profile_document(profile)
    spec = commented(document.pop("spec"), (), "", 2)
    data = commented(document, ("<top>",), "", 2)
    data["spec"] = spec
    data.yaml_set_start_comment(header)
    return dump(_yaml(INDENTS[0], quote_versions=True), data)
