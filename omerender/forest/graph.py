"""The forest as a graph: Mermaid ``flowchart`` (GitHub and GitLab render it in markdown), Graphviz DOT
and JSON (``schemas/forest.schema.json``).

Nodes are grouped by namespace (a subgraph each; cluster-scoped runtimes stand outside). Edges run
from parent to child: a runtime to the runtime that inherits from it, a runtime to the
InferenceService that uses it. Broken links are dashed, red and labelled with their reason; profiles,
disabled runtimes and placeholders for what is missing have styles of their own. ``highlight`` maps
node ids to an extra style (``changed``, ``rollout``, ``drifting``, ``collapsed``), as the diff's
picture uses. Ids come from ``model.node_id`` (``[a-z0-9_]`` only); labels are escaped.
"""

from __future__ import annotations

import json
from typing import Any

from omerender.constants import TOOL_API_VERSION
from omerender.forest.model import COUNT, ISVC, MISSING, MORE, Forest, Node
from omerender.names import clip
from omerender.resolve.inherit import RESOLVED

KIND = "RuntimeForest"
DASHED = {"disabled", "missing", "drifting"}
SAFE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ._/:,-")
# style name -> (Mermaid classDef, DOT attributes)
STYLES: dict[str, tuple[str, str]] = {
    "profile": ("fill:#ddf4ff,stroke:#0969da", 'fillcolor="#ddf4ff", color="#0969da"'),
    "disabled": ("stroke-dasharray:4 3", ""),
    "broken": ("fill:#ffebe9,stroke:#cf222e,color:#82071e", 'fillcolor="#ffebe9", color="#cf222e"'),
    "missing": ("fill:#ffffff,stroke:#cf222e,stroke-dasharray:4 3", 'color="#cf222e"'),
    "isvc": ("fill:#f6f8fa,stroke:#57606a", 'fillcolor="#f6f8fa", shape=ellipse'),
    "collapsed": ("fill:#ffffff,stroke:#8c959f,color:#57606a", 'fillcolor="#ffffff", color="#8c959f"'),
    "changed": ("fill:#fff8c5,stroke:#9a6700,stroke-width:3px", 'fillcolor="#fff8c5", color="#9a6700", penwidth=3'),
    "rollout": ("fill:#fbefff,stroke:#8250df,stroke-width:3px", 'fillcolor="#fbefff", color="#8250df", penwidth=3'),
    "drifting": ("fill:#ffffff,stroke:#8250df,stroke-dasharray:4 3", 'color="#8250df"'),
}


def styles(node: Node, highlight: dict[str, str] | None = None) -> list[str]:
    out = []
    if "profile" in node.markers:
        out.append("profile")
    if node.kind == ISVC:
        out.append("isvc")
    if node.kind in (COUNT, MORE):
        out.append("collapsed")
    if node.kind == MISSING:
        out.append("missing")
    elif node.reason not in ("", RESOLVED):
        out.append("broken")
    if "disabled" in node.markers:
        out.append("disabled")
    if highlight and node.id in highlight:
        out.append(highlight[node.id])
    return out


def label_lines(node: Node) -> list[str]:
    if node.kind == MISSING:
        head = ["not found", clip(node.title)]
    elif node.kind == COUNT:
        head = [f"{node.count} InferenceService" + ("" if node.count == 1 else "s")]
    elif node.kind == MORE:
        head = [f"{node.count} more, unchanged"]
    else:
        head = [node.kind, node.title]
    markers = list(node.markers)
    if node.reason not in ("", RESOLVED) and node.reason not in markers:
        markers.append(node.reason)
    return head + ([", ".join(markers)] if markers else [])


def _groups(forest: Forest) -> list[tuple[str, list[Node]]]:
    """Nodes by namespace, cluster-scoped ("") first, each in id order."""
    groups: dict[str, list[Node]] = {}
    for node in forest.nodes.values():
        groups.setdefault(node.namespace, []).append(node)
    return sorted(groups.items())


def _mermaid_text(text: str) -> str:
    return "".join(ch if ch in SAFE else f"#{ord(ch)};" for ch in text)


def _group_id(namespace: str) -> str:
    return "ns_" + "".join(
        ch if ch.isascii() and (ch.isdigit() or ch.islower()) else f"_{ord(ch):x}_" for ch in namespace
    )


def mermaid(forest: Forest, highlight: dict[str, str] | None = None, direction: str = "TD") -> str:
    out = [f"flowchart {direction}"]
    for namespace, nodes in _groups(forest):
        indent = "  "
        if namespace:
            out.append(f'  subgraph {_group_id(namespace)}["namespace {_mermaid_text(namespace)}"]')
            indent = "    "
        for node in nodes:
            text = "<br/>".join(_mermaid_text(part) for part in label_lines(node))
            shape = ('(["', '"])') if node.kind == ISVC else ('["', '"]')
            out.append(f"{indent}{node.id}{shape[0]}{text}{shape[1]}")
        if namespace:
            out.append("  end")
    for link in forest.links:
        if link.reason:
            out.append(f"  {link.parent} -.->|{_mermaid_text(link.reason)}| {link.child}")
        elif link.selected:
            out.append(f"  {link.parent} -->|auto-selected| {link.child}")
        else:
            out.append(f"  {link.parent} --> {link.child}")
    broken = [str(i) for i, link in enumerate(forest.links) if link.reason]
    if broken:
        out.append(f"  linkStyle {','.join(broken)} stroke:#cf222e,color:#cf222e")
    used: dict[str, list[str]] = {}
    for node in forest.nodes.values():
        for style in styles(node, highlight):
            used.setdefault(style, []).append(node.id)
    for style in STYLES:
        if style in used:
            out.append(f"  classDef {style} {STYLES[style][0]}")
            out.append(f"  class {','.join(used[style])} {style}")
    return "\n".join(out) + "\n"


def _dot_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return (
        '"' + "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in escaped) + '"'
    )


def _dot_attrs(node: Node, highlight: dict[str, str] | None) -> str:
    attrs: dict[str, str] = {"fillcolor": '"#ffffff"'}
    names = styles(node, highlight)
    for style in names:
        for pair in filter(None, STYLES[style][1].split(", ")):
            key, _, value = pair.partition("=")
            attrs[key] = value
    attrs["style"] = '"filled,dashed"' if DASHED & set(names) else "filled"
    label = "\\n".join(_dot_string(part)[1:-1] for part in label_lines(node))
    return ", ".join([f'label="{label}"', *(f"{k}={v}" for k, v in sorted(attrs.items()))])


def dot(forest: Forest, highlight: dict[str, str] | None = None) -> str:
    out = ["digraph forest {", "  rankdir=TB;", '  node [shape=box, fontname="Helvetica"];']
    for namespace, nodes in _groups(forest):
        indent = "  "
        if namespace:
            out.append(f"  subgraph {_dot_string('cluster_' + _group_id(namespace))} {{")
            out.append(f"    label={_dot_string('namespace ' + namespace)};")
            indent = "    "
        out.extend(f'{indent}"{node.id}" [{_dot_attrs(node, highlight)}];' for node in nodes)
        if namespace:
            out.append("  }")
    for link in forest.links:
        if link.reason:
            extra = f' [style=dashed, color="#cf222e", fontcolor="#cf222e", label={_dot_string(link.reason)}]'
        elif link.selected:
            extra = ' [style=bold, label="auto-selected"]'
        else:
            extra = ""
        out.append(f'  "{link.parent}" -> "{link.child}"{extra};')
    out.append("}")
    return "\n".join(out) + "\n"


def as_data(forest: Forest) -> dict[str, Any]:
    nodes = [
        {
            "id": n.id,
            "kind": n.kind,
            "namespace": n.namespace,
            "name": n.name,
            "markers": list(n.markers),
            "reason": n.reason,
            "message": n.message,
            "count": n.count,
            "parent": n.parent,
        }
        for n in forest.nodes.values()
    ]
    edges = [
        {"parent": e.parent, "child": e.child, "type": e.type, "reason": e.reason, "selected": e.selected}
        for e in forest.links
    ]
    return {"apiVersion": TOOL_API_VERSION, "kind": KIND, "roots": list(forest.roots), "nodes": nodes, "edges": edges}


def as_json(forest: Forest) -> str:
    return json.dumps(as_data(forest), indent=2, ensure_ascii=False) + "\n"
