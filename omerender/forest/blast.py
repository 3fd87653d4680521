"""The picture of a diff's blast radius: the affected subtree of the new forest as a Mermaid block.

Kept: every runtime whose merged spec changed and the InferenceServices that roll out, drift, break
or are created, with the runtimes above them up to their root. Under a kept runtime, what is not
kept is collapsed into one node counting it. A profile none of whose family changed is absent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from omerender.forest.graph import mermaid
from omerender.forest.model import ISVC, MORE, Forest, Link, Node, finish, forest, keep
from omerender.forest.select import ancestors, collapse_isvcs, descendants
from omerender.result import BuildResult

if TYPE_CHECKING:
    from omerender.changes.report import DiffReport

# Mermaid's defaults (maxTextSize, maxEdges), which GitHub and GitLab render with: past them, no picture
MAX_TEXT, MAX_EDGES = 50_000, 500


def _focus(report: DiffReport, whole: Forest) -> dict[str, str]:
    """Node id -> highlight style, for what the diff names."""
    by_key: dict[str, list[str]] = {}  # a cluster runtime is drawn again in the namespaces that shadow its parents
    for node in whole.nodes.values():
        if node.key:
            by_key.setdefault(node.key, []).append(node.id)
    wanted = [
        *((r.runtime, "changed") for r in report.runtimes),
        *((r.inference_service, "rollout") for r in report.rollouts),
        *((key, "rollout") for key in report.created),
        *((d.inference_service, "drifting") for d in report.drifting),
        *((b.inference_service, "drifting") for b in report.broken),
    ]
    return {found: style for key, style in wanted for found in by_key.get(key, ())}


def _collapsed(whole: Forest, picked: Forest) -> Forest:
    """Add, under each kept node, one node counting the runtimes and InferenceServices left out below it."""
    for node in list(picked.nodes.values()):
        hidden = [c for c in whole.nodes[node.id].children if c not in picked.nodes]
        if not hidden:
            continue
        below = [whole.nodes[d] for h in hidden for d in descendants(whole, h)]
        isvcs = sum(1 for n in below if n.kind == ISVC)
        runtimes = len(below) - isvcs
        more = Node(f"more__{node.id}", MORE, node.namespace, node.name, parent=node.id)
        more.count = len(below)
        more.markers = [
            text
            for n, text in (
                (runtimes, f"{runtimes} runtime" + ("" if runtimes == 1 else "s")),
                (isvcs, f"{isvcs} InferenceService" + ("" if isvcs == 1 else "s")),
            )
            if n
        ]
        picked.nodes[more.id] = more
        picked.links.append(Link(node.id, more.id, "collapsed"))
    return finish(picked)


def picture(report: DiffReport, new: BuildResult) -> str:
    """A fenced ```mermaid block for ``report`` (``changes.diff.compare``) over the build ``new``;
    "" when nothing in the new tree is affected."""
    whole = forest(new)
    focus = _focus(report, whole)
    if not focus:
        return ""
    kept = {a for f in focus for a in ancestors(whole, f)}
    drawn = _collapsed(whole, keep(whole, kept))
    text = mermaid(drawn, focus)
    if _too_big(text, drawn):
        counted = collapse_isvcs(drawn)
        text = mermaid(counted, _counted_focus(counted, drawn, focus))
        if _too_big(text, counted):
            return (
                f"_The picture is left out: {len(drawn.nodes)} nodes are more than GitHub's Mermaid draws "
                f"({MAX_TEXT:,} characters, {MAX_EDGES} edges)._\n"
            )
    return "```mermaid\n" + text + "```\n"


def _too_big(text: str, drawn: Forest) -> bool:
    return len(text) > MAX_TEXT or len(drawn.links) > MAX_EDGES


def _counted_focus(counted: Forest, drawn: Forest, focus: dict[str, str]) -> dict[str, str]:
    """A count node takes the strongest style of the InferenceServices it stands for."""
    out = {k: v for k, v in focus.items() if k in counted.nodes}
    for node in drawn.nodes.values():
        if node.id in focus and node.id not in counted.nodes and node.parent is not None:
            count_id = f"isvcs__{node.parent}"
            if count_id in counted.nodes and out.get(count_id) != "rollout":
                out[count_id] = focus[node.id]
    return out
