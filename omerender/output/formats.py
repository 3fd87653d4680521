"""What ``-o/--output`` can pick, per command: a registry of formatters beside each one, and one JSON setting.

Every registry maps a format name to a pure function returning the text to print (ending in a
newline, or empty). The CLI offers exactly a registry's names, so a format exists in ``--help``
only if it is implemented here. JSON is written with :data:`JSON_SETTINGS` everywhere (reports
included): two-space indent, keys sorted, UTF-8 as is. Heavy modules are imported inside the
formatters so the CLI can read the names at start-up.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from omerender.data import Json
from omerender.output.jsonwrite import JSON_SETTINGS
from omerender.output.table import columns

if TYPE_CHECKING:
    from omerender.changes.report import DiffReport
    from omerender.forest.model import Forest
    from omerender.lifecycle.settle import Effective


def dump_json(value: Json) -> str:
    """``value`` as JSON with the project's one setting, ending in a newline."""
    return json.dumps(value, **JSON_SETTINGS) + "\n"


def v1_list(items: list[Any]) -> dict[str, Any]:
    """Many objects as one, as ``kubectl get -o json|yaml`` prints them."""
    return {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": items}


def object_name(obj: Mapping[str, Any]) -> str:
    """``kind.group/name`` as ``kubectl get -o name`` prints it (``service/x``, ``deployment.apps/x``)."""
    api_version = str(obj.get("apiVersion", ""))
    group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
    kind = str(obj.get("kind", "")).lower()
    name = str((obj.get("metadata") or {}).get("name", ""))
    return f"{kind}.{group}/{name}" if group else f"{kind}/{name}"


def _names(objects: list[Any]) -> str:
    return "".join(object_name(obj) + "\n" for obj in objects)


# -- build ----------------------------------------------------------------------------------


def _build_yaml(objects: list[Any]) -> str:
    from omerender.yamlwrite import dump_stream

    return dump_stream(objects)


def _build_json(objects: list[Any]) -> str:
    from omerender.output.jsonwrite import dump_list

    return dump_list(objects)  # dump_json(v1_list(objects)), written faster


BUILD_FORMATS: dict[str, Callable[[list[Any]], str]] = {
    "yaml": _build_yaml,
    "json": _build_json,
    "name": _names,
}


def _yaml_documents(objects: list[Any]) -> Iterator[str | bytes]:
    from omerender.output.prerendered import yaml_documents

    return yaml_documents(objects)  # the text of BUILD_FORMATS["yaml"], one document at a time; workers' as written


def _whole(format_name: str) -> Callable[[list[Any]], Iterator[str | bytes]]:
    def pieces(objects: list[Any]) -> Iterator[str | bytes]:
        yield BUILD_FORMATS[format_name](objects)

    return pieces


def _json_pieces(objects: list[Any]) -> Iterator[str | bytes]:
    from omerender.output.prerendered import json_pieces

    return json_pieces(objects)  # the text of BUILD_FORMATS["json"], one object at a time


BUILD_PIECES: dict[str, Callable[[list[Any]], Iterator[str | bytes]]] = {name: _whole(name) for name in BUILD_FORMATS}
BUILD_PIECES["yaml"] = _yaml_documents
BUILD_PIECES["json"] = _json_pieces
"""The same formats as pieces (text, or UTF-8 a worker wrote), so a large stream is printed as it is produced."""


# -- status ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class StatusView:
    """``status``'s ``v1 List``, and per runtime (namespace, kind, name) what ``-o wide`` adds."""

    listing: dict[str, Any]
    sources: dict[tuple[str, str, str], str] = field(default_factory=dict)
    """``file:line`` where the runtime is declared."""
    last_resolved: dict[tuple[str, str, str], list[str]] = field(default_factory=dict)
    """The last chain that resolved, from the lock file."""


def _status_key(item: Mapping[str, Any]) -> tuple[str, str, str]:
    meta = item.get("metadata") or {}
    return str(meta.get("namespace", "")), str(item.get("kind", "")), str(meta.get("name", ""))


def _status_table(view: StatusView, wide: bool = False) -> str:
    """``kubectl get``'s table of the runtimes; ``wide`` adds the last chain that resolved and the source."""
    rows: list[tuple[str, ...]] = [("NAMESPACE", "KIND", "NAME", "CHAIN", "READY", "REASON")]
    if wide:
        rows[0] += ("LAST-RESOLVED", "SOURCE")
    for item in view.listing["items"]:
        key = _status_key(item)
        condition = item["status"]["conditions"][0]
        chain = ",".join(item["status"]["inheritanceChain"]) or "<none>"
        row: tuple[str, ...] = (*key, chain, condition["status"], condition["reason"])
        if wide:
            row += (",".join(view.last_resolved.get(key, [])) or "<none>", view.sources.get(key, ""))
        rows.append(row)
    return columns(rows)


def _status_yaml(view: StatusView) -> str:
    from omerender.yamlwrite import dump_one

    return dump_one(view.listing)


STATUS_FORMATS: dict[str, Callable[[StatusView], str]] = {
    "table": _status_table,
    "wide": lambda view: _status_table(view, wide=True),
    "yaml": _status_yaml,
    "json": lambda view: dump_json(view.listing),
    "name": lambda view: _names(view.listing["items"]),
}


# -- effective ------------------------------------------------------------------------------


def _effective_table(record: Effective, show_origin: bool) -> str:
    from omerender.changes.effective import describe, origin_rows
    from omerender.output.effective_view import text

    return text(describe(record, False, show_origin), origin_rows(record) if show_origin else None)


def _effective_yaml(record: Effective, show_origin: bool) -> str:
    from omerender.changes.effective import describe
    from omerender.yamlwrite import dump_one

    return dump_one(describe(record, True, show_origin))


def _effective_json(record: Effective, show_origin: bool) -> str:
    from omerender.changes.effective import describe

    return dump_json(describe(record, True, show_origin))


EFFECTIVE_FORMATS: dict[str, Callable[[Effective, bool], str]] = {
    "table": _effective_table,
    "yaml": _effective_yaml,
    "json": _effective_json,
}


# -- diff -----------------------------------------------------------------------------------


def _diff_text(report: DiffReport, unbuilt: tuple[str, ...]) -> str:
    from omerender.output.diff_view import format_text

    return format_text(report, unbuilt)


def _diff_markdown(report: DiffReport, unbuilt: tuple[str, ...]) -> str:
    from omerender.output.diff_view import format_markdown

    return format_markdown(report, unbuilt=unbuilt)


# each takes the report and the sides that do not build (json leaves those to the exit code, 4)
DIFF_FORMATS: dict[str, Callable[[DiffReport, tuple[str, ...]], str]] = {
    "text": _diff_text,
    "json": lambda report, _unbuilt: dump_json(report.as_data()),
    "markdown": _diff_markdown,
}

# -- graph ----------------------------------------------------------------------------------


def _graph_mermaid(forest: Forest) -> str:
    from omerender.forest.graph import mermaid

    return mermaid(forest)


def _graph_dot(forest: Forest) -> str:
    from omerender.forest.graph import dot

    return dot(forest)


def _graph_json(forest: Forest) -> str:
    from omerender.forest.graph import as_data

    return dump_json(as_data(forest))


GRAPH_FORMATS: dict[str, Callable[[Forest], str]] = {
    "mermaid": _graph_mermaid,
    "dot": _graph_dot,
    "json": _graph_json,
    "svg": _graph_dot,  # the DOT text, which the CLI has Graphviz's dot render
}

FORMAT_NAMES = frozenset({*BUILD_FORMATS, *STATUS_FORMATS, *EFFECTIVE_FORMATS, *DIFF_FORMATS, *GRAPH_FORMATS})
"""Every format name: a value of ``--output-dir`` that is one of these is probably meant for ``-o``."""
