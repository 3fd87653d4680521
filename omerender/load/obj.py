"""The one data type every stage passes around: an input document and where it came from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from omerender.diagnostics import Diagnostic, Severity, json_path
from omerender.load.source import Source, slim
from omerender.load.yamlio import position
from omerender.ome import API_VERSION, KINDS

# Where an InferenceService's own per-run notes point (its deployment modes, the runtime it selects, its name):
# found while its first node tree is at hand, so that a clean build composes none of its files again.
PRELOCATED: dict[tuple[str, ...], int] = {
    path: slot
    for slot, path in enumerate(
        [(), ("spec",), ("metadata",), ("metadata", "name"), ("spec", "model"), ("spec", "runtime")]
        + [("spec", component) for component in ("engine", "decoder", "router")]
    )
}


def prelocate(node: yaml.Node | None) -> tuple[int, ...]:
    """``position(node, path)`` of every ``PRELOCATED`` path, each packed in one int (line << 20 | column)."""
    return tuple((line << 20) | col for line, col in (position(node, path) for path in PRELOCATED))


@dataclass
class Obj:
    """One YAML document from the input, with what is needed to point back into its file."""

    path: str
    index: int  # of the document in its file, empty documents counted
    body: dict[str, Any]
    source: Source | None  # None: made by omerender, not read; located at line 1, column 1
    namespace: str = ""
    slim: bool = False  # positions only within apiVersion, kind and metadata (an object not OME's)
    marks: tuple[int, ...] | None = None  # prelocate(): an InferenceService's frequent positions, packed

    @property
    def node(self) -> yaml.Node | None:
        """The document's node tree, composed again from its file's text: ask only where a position is needed."""
        node = self.source.node(self.index) if self.source is not None else None
        return slim(node) if self.slim and node is not None else node

    @property
    def kind(self) -> str:
        return str(self.body.get("kind", ""))

    @property
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

    def at(self, *keys: Any) -> tuple[int, int]:
        slot = PRELOCATED.get(keys) if self.marks is not None else None
        if slot is not None and self.marks is not None:
            packed = self.marks[slot]
            return packed >> 20, packed & 0xFFFFF
        return position(self.node, keys)

    def diag(self, severity: Severity, message: str, *keys: Any, code: str = "") -> Diagnostic:
        line, col = self.at(*keys)
        return Diagnostic(self.path, line, col, severity, message, code, json_path(keys))
