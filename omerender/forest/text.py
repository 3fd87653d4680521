"""The forest as a terminal tree, the way ``tree`` and ``kubectl tree`` draw one.

Colour is an argument (the CLI decides it from the terminal and ``NO_COLOR``); without it the
output is plain text, the same bytes whatever the input order.
"""

from __future__ import annotations

from omerender.forest.model import COUNT, MISSING, Forest, Node
from omerender.names import clip
from omerender.resolve.inherit import RESOLVED

MAX_INDENT = 16
"""Levels of indentation drawn; a node deeper than this is drawn at this level with its depth in front,
so a line's length is bounded and the output grows linearly with the forest (a chain of 10,000 runtimes
drawn in full takes 200 MB of spaces and branches)."""
RESET = "\033[0m"
STYLE = {"kind": "\033[2m", "broken": "\033[1;31m", "profile": "\033[36m", "marker": "\033[33m", "drifted": "\033[35m"}


def _paint(text: str, style: str, color: bool) -> str:
    return f"{STYLE[style]}{text}{RESET}" if color else text


def _safe(text: str) -> str:
    """Names come from untrusted files: control characters (escape sequences) are shown escaped."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def _marker_style(marker: str, node: Node) -> str:
    if marker == node.reason or marker.endswith(("ParentNotFound", "NotFound")) or marker.startswith("inherits from"):
        return "broken"
    if marker in ("profile", "disabled"):
        return "profile"
    return "drifted" if "drifted" in marker else "marker"


def line(node: Node, color: bool = False) -> str:
    """``KIND NAMESPACE/NAME  [markers]`` for one node."""
    if node.kind == MISSING:
        head = f"{_paint('(not found)', 'broken', color)} {_safe(clip(node.title))}"
    elif node.kind == COUNT:
        head = f"{_paint(COUNT, 'kind', color)} ({node.count})"
    else:
        head = f"{_paint(node.kind, 'kind', color)} {_safe(node.title)}"
    markers = list(node.markers)
    if node.reason not in ("", RESOLVED) and node.reason not in markers:
        markers.append(node.reason)
    if not markers:
        return head
    shown = ", ".join(_paint(_safe(m), _marker_style(m, node), color) for m in markers)
    return f"{head}  [{shown}]"


def render(forest: Forest, color: bool = False, max_indent: int = MAX_INDENT) -> str:
    """One line per node: roots flush left, children under them with tree branches, ``max_indent`` levels at most.

    Nodes below that level are drawn at it, each with ``(depth N)`` in front, and a last line says how many.
    """
    out: list[str] = []
    stack: list[tuple[str, str, str, int]] = [(root, "", "", 0) for root in reversed(forest.roots)]
    seen: set[str] = set()
    deeper = 0
    while stack:
        current, branch, indent, depth = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        node = forest.nodes[current]
        if depth > max_indent:
            deeper += 1
            branch += _paint(f"(depth {depth})", "marker", color) + " "
        out.append(branch + line(node, color))
        children = node.children
        for index in range(len(children) - 1, -1, -1):
            last = index == len(children) - 1
            below = indent + ("    " if last else "│   ") if depth + 1 < max_indent else indent  # the cut: no deeper
            stack.append((children[index], indent + ("└── " if last else "├── "), below, depth + 1))
    if deeper:
        out.append(
            f"({deeper} node{'s' if deeper != 1 else ''} deeper than {max_indent} levels "
            f"drawn at level {max_indent}, each with its depth in front)"
        )
    return "".join(f"{text}\n" for text in out)
