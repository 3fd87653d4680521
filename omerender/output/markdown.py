"""Markdown for pull-request comments that a hostile input cannot turn against the reader.

Every value that comes from the input goes into a code span, the one inline context where
CommonMark and GitHub/GitLab interpret nothing: no emphasis, link, image, raw HTML, autolink or
``@mention``. What can still escape a code span is handled here:

* a backtick run in the value would close the span: the span is delimited by a run longer than
  any in the value, padded with a space when the value starts or ends with a backtick or a space
  (CommonMark strips one space on each side, and only then);
* a line break would end the span's paragraph, or the table row, and start a new block (a heading,
  HTML): control characters are written as visible escapes (``\\r``, ``\\n``, ``\\x1b``);
* in a table cell, ``|`` ends the cell even inside a code span (GFM splits the row first): it is
  written ``\\|``, which GFM turns back into ``|`` inside the span.
"""

from __future__ import annotations

import re

_CONTROLS = {i: f"\\x{i:02x}" for i in [*range(0x20), 0x7F]} | {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"}
_CONTROLS |= {0x2028: "\\u2028", 0x2029: "\\u2029", 0x85: "\\x85"}
_BACKTICKS = re.compile(r"`+")


def visible(value: str) -> str:
    """``value`` on one line: control characters and line separators as visible escapes."""
    return value.translate(_CONTROLS)


def code(value: str) -> str:
    """``value`` as a code span that nothing in it can close or break out of."""
    text = visible(value)
    if not text:
        return "` `"
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    if text[0] in "` " or text[-1] in "` ":
        text = f" {text} "
    return f"{fence}{text}{fence}"


def cell(markdown: str) -> str:
    """Inline markdown made safe for a GFM table cell: every ``|`` escaped (code spans included)."""
    return markdown.replace("|", "\\|")


def row(cells: list[str]) -> str:
    return "| " + " | ".join(cell(c) for c in cells) + " |"
