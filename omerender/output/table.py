"""Text tables as kubectl prints them: each column as wide as its widest cell, no blanks at a line's end."""

from __future__ import annotations

from collections.abc import Sequence

GAP = "   "  # between columns, as kubectl get


def columns(rows: Sequence[Sequence[str]], gap: str = GAP) -> str:
    """``rows`` (the header first, all of one length) as lines, each cell padded to its column's width."""
    if not rows:
        return ""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "".join(gap.join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() + "\n" for row in rows)
