"""The one data type every stage passes around: an input document and where it came from."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import yaml

from omerender.data import Key
from omerender.diagnostics import Diagnostic, Severity, json_path
from omerender.load.lists import ITEMS
from omerender.load.source import Source, slim
from omerender.load.yamlio import child, position, positions
from omerender.ome import API_VERSION, CLUSTER_SERVING_RUNTIME, INFERENCE_SERVICE, INHERIT_FROM, KINDS, SERVING_RUNTIME

_RUNTIME_PATHS: list[tuple[str, ...]] = [
    (),
    ("metadata",),
    ("metadata", "name"),
    ("metadata", "annotations", INHERIT_FROM),
]

# Where an object's frequent diagnostics point, per kind: an InferenceService's own per-run notes (its deployment
# modes, the runtime it selects, its name), and a runtime's chain error (at its inherit-from annotation) or duplicate
# name. Found while the first node tree is at hand, so that neither a clean build nor a long broken chain composes
# those files again.
PRELOCATED: dict[str, dict[tuple[Key, ...], int]] = {
    kind: {path: slot for slot, path in enumerate(paths)}
    for kind, paths in (
        (
            INFERENCE_SERVICE,
            [(), ("spec",), ("metadata",), ("metadata", "name"), ("spec", "model"), ("spec", "runtime")]
            + [("spec", component) for component in ("engine", "decoder", "router")],
        ),
        (CLUSTER_SERVING_RUNTIME, _RUNTIME_PATHS),
        (SERVING_RUNTIME, _RUNTIME_PATHS),
    )
}


COLUMN_BITS = 20


def prelocate(node: yaml.Node | None, kind: str) -> tuple[int, ...] | None:
    """``position(node, path)`` of every ``PRELOCATED`` path of ``kind``, each packed in one int (line << 20 | column;
    -1 for a column too wide to pack, looked up again when asked); None for a kind without such paths."""
    paths = PRELOCATED.get(kind)
    if paths is None:
        return None
    return tuple((line << COLUMN_BITS) | col if col >> COLUMN_BITS == 0 else -1 for line, col in positions(node, paths))


@dataclass
class Obj:
    """One YAML document from the input, with what is needed to point back into its file."""

    path: str
    index: int  # of the document in its file, empty documents counted
    body: dict[str, Any]
    source: Source | None  # None: made by omerender, not read; located at line 1, column 1
    namespace: str = ""
    slim: bool = False  # positions only within apiVersion, kind and metadata (an object not OME's)
    marks: tuple[int, ...] | None = None  # prelocate(): the frequent positions of an InferenceService or runtime
    schema_issues: list[Any] | None = None  # admission's crd_schema_issues(body), found by a parsing worker, or None
    # A model's fields the --model-metadata overlay filled (``modelConfiguration`` keys as
    # ``modelConfiguration.KEY``), each with the overlay's path, line and column; None: none.
    overlaid: dict[str, tuple[str, int, int]] | None = None
    item: int = -1  # of the object in its document's ``items`` (a List document, ``load.lists``), or -1: the document

    @property
    def where(self) -> str:
        """``document N`` or ``item K of document N``, for a message about the object as written."""
        document = f"document {self.index + 1}"
        return document if self.item < 0 else f"item {self.item + 1} of {document}"

    @property
    def node(self) -> yaml.Node | None:
        """The document's node tree, composed again from its file's text: ask only where a position is needed."""
        node = self.source.node(self.index) if self.source is not None else None
        if self.item >= 0:
            node = child(child(node, ITEMS), self.item)
        return slim(node) if self.slim and node is not None else node

    # Kind and name are asked for hundreds of thousands of times in a large run, and never change once an object is
    # loaded: kept on first use. ``reader.to_object`` asks for the kind, never the name, before ``tidy_object``.
    @functools.cached_property
    def kind(self) -> str:
        return str(self.body.get("kind", ""))

    @functools.cached_property
    def name(self) -> str:
        return str((self.body.get("metadata") or {}).get("name", ""))

    @property
    def is_ome(self) -> bool:
        return self.kind in KINDS and self.body.get("apiVersion") == API_VERSION

    @property
    def spec(self) -> dict[str, Any]:
        spec = self.body.get("spec")
        return spec if isinstance(spec, dict) else {}

    @property
    def annotations(self) -> dict[str, Any]:
        ann = (self.body.get("metadata") or {}).get("annotations")
        return ann if isinstance(ann, dict) else {}

    def at(self, *keys: Key) -> tuple[int, int]:
        if self.marks is not None:
            slot = PRELOCATED[self.kind].get(keys)
            packed = -1 if slot is None else self.marks[slot]
            if packed >= 0:
                return packed >> COLUMN_BITS, packed & ((1 << COLUMN_BITS) - 1)
        return position(self.node, keys)

    def diag(self, severity: Severity, message: str, *keys: Key, code: str = "") -> Diagnostic:
        line, col = self.at(*keys)
        return Diagnostic(self.path, line, col, severity, message, code, json_path(keys))
