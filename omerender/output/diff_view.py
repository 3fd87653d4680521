"""``diff``'s text and markdown forms of ``changes.diff.compare``'s report (json is ``DiffReport.as_data``).

Values from the input are printed as JSON (strings quoted, control characters escaped), and paths
through ``markdown.visible``, so no line of the text form can be split or overwritten by what a
manifest holds. In markdown every such value is a code span built by ``markdown.code``.
"""

from __future__ import annotations

import json
from typing import Any

from omerender.changes.report import Change, DiffReport, Rollout
from omerender.output.markdown import code, row, visible

MARK = {"changed": "~", "added": "+", "removed": "-", "reordered": "^"}
NONE = "<none>"


def _value(value: Any) -> str:
    return NONE if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


def change_text(change: Change) -> str:
    """``old -> new``; for two lists of values, only the items that went and came (a reorder shows both orders)."""
    old, new = change.old, change.new
    if change.change != "reordered" and isinstance(old, list) and isinstance(new, list):
        gone, came = [v for v in old if v not in new], [v for v in new if v not in old]
        if gone or came:
            return f"-{_value(gone)} +{_value(came)}"
    return f"{_value(old)} -> {_value(new)}"


def _sections(report: DiffReport) -> list[tuple[str, list[str]]]:
    """Titles and one-line items shared by the text and markdown forms (rollouts aside)."""
    sections = [
        (
            "Runtimes whose merged spec changed",
            [f"{r.runtime}: {r.old or NONE} -> {r.new or NONE}" for r in report.runtimes],
        ),
        (
            "Pinned InferenceServices drifting (they keep their snapshot)",
            [
                f"{d.inference_service}: stays on {d.pinned_revision}; {d.runtime} live "
                f"{d.live_revision.old} -> {d.live_revision.new}"
                for d in report.drifting
            ],
        ),
        ("InferenceServices created", list(report.created)),
        ("InferenceServices deleted", list(report.deleted)),
        (
            "InferenceServices that no longer render (in a cluster their pods keep serving)",
            [f"{b.inference_service}: {b.runtime}, last rendered revision {b.last_revision}" for b in report.broken],
        ),
    ]
    return [(title, [visible(i) for i in items]) for title, items in sections if items]


def _rollout_title(r: Rollout) -> str:
    rev = r.revision
    moved = f" {rev.old} -> {rev.new}" if rev.old != rev.new else f" {rev.new}"
    return visible(f"{r.inference_service} ({r.runtime}{moved})")


def unbuilt_line(unbuilt: tuple[str, ...]) -> str:
    """What a report says first when a side does not build (``unbuilt`` names those sides), else ``""``."""
    if not unbuilt:
        return ""
    which = " and ".join(unbuilt)
    verb, theirs = ("do", "their") if len(unbuilt) > 1 else ("does", "its")
    return f"{which[0].upper()}{which[1:]} {verb} not build: {theirs} errors are in the diagnostics."


def format_text(report: DiffReport, unbuilt: tuple[str, ...] = ()) -> str:
    """``unbuilt``: the sides that do not build (``diff`` exits 4), said first, so "No changes." never hides them."""
    head = unbuilt_line(unbuilt)
    if not report.changed:
        return f"{head} No changes in what renders.\n" if head else "No changes.\n"
    out: list[str] = [head, ""] if head else []
    sections = _sections(report)
    if report.rollouts:
        sections.insert(1 if report.runtimes else 0, ("InferenceServices that roll out", []))
    for title, items in sections:
        count = len(report.rollouts) if not items else len(items)
        out.append(f"{title} ({count}):")
        out.extend(f"  {item}" for item in items)
        if not items:
            for r in report.rollouts:
                out.append(f"  {_rollout_title(r)}")
                for obj in r.objects:
                    out.append(f"    {visible(obj.object)}")
                    for c in obj.changes:
                        word = " reordered" if c.change == "reordered" else ""
                        out.append(
                            f"      {MARK[c.change]} {visible(c.path)}{word}: {change_text(c)}"
                            f"  [from {visible(c.origin)}]"
                        )
        out.append("")
    return "\n".join(out)


def format_markdown(report: DiffReport, picture: str = "", unbuilt: tuple[str, ...] = ()) -> str:
    """``picture``: a fenced Mermaid block of the affected subtree (``forest.blast.picture``), shown first;
    ``unbuilt`` as for ``format_text``."""
    head = [f"**{unbuilt_line(unbuilt)}**", ""] if unbuilt else []
    if not report.changed:
        return "\n".join(
            ["### omerender diff", "", *head, "No changes in what renders." if head else "No changes.", ""]
        )
    out = [
        "### omerender diff",
        "",
        *head,
        f"**{len(report.runtimes)} runtime(s) changed, {len(report.rollouts)} InferenceService(s) roll out, "
        f"{len(report.drifting)} pinned InferenceService(s) drift.**",
        "",
    ]
    if picture:
        out += [picture.rstrip("\n"), ""]
    sections = _sections(report)
    if report.runtimes:
        title, items = sections.pop(0)
        out += [f"#### {title}", "", *(f"- {code(item)}" for item in items), ""]
    if report.rollouts:
        out += ["#### InferenceServices that roll out", ""]
        for r in report.rollouts:
            out += [f"**{code(_rollout_title(r))}**", ""]
            out += [row(["Object", "Field", "Change", "Old", "New", "From"]), "|---|---|---|---|---|---|"]
            for obj in r.objects:
                for c in obj.changes:
                    values = (obj.object, c.path, c.change, _value(c.old), _value(c.new), c.origin)
                    out.append(row([code(v) for v in values]))
            out.append("")
    for title, items in sections:
        out += [f"#### {title}", "", *(f"- {code(item)}" for item in items), ""]
    return "\n".join(out)
