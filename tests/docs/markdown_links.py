"""Links and headings of the markdown pages, read as GitHub reads them (markdown-it-py, GitHub's anchor rule)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

_PARSER = MarkdownIt("gfm-like")


@dataclass(frozen=True)
class Link:
    page: Path
    line: int
    target: str


def _text(inline: Token) -> str:
    return "".join(child.content for child in inline.children or () if child.type in ("text", "code_inline"))


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but ``-`` and ``_`` dropped, spaces to ``-``."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@functools.cache
def anchors(page: Path) -> frozenset[str]:
    """Every anchor GitHub gives the headings of ``page`` (a repeated heading gets ``-1``, ``-2``, ...)."""
    tokens = _PARSER.parse(page.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    found = set()
    for opening, inline in zip(tokens, tokens[1:], strict=False):
        if opening.type == "heading_open":
            base = slug(_text(inline))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return frozenset(found)


def links(page: Path) -> list[Link]:
    """Every link and image of ``page`` (not those shown as code)."""
    found = []
    for token in _PARSER.parse(page.read_text(encoding="utf-8")):
        line = (token.map or (0, 0))[0] + 1
        for child in token.children or ():
            target = child.attrGet("href") if child.type == "link_open" else child.attrGet("src")
            if child.type in ("link_open", "image") and isinstance(target, str):
                found.append(Link(page, line, target))
    return found


def is_relative(target: str) -> bool:
    return not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I)


def broken(link: Link) -> str | None:
    """Why a relative link does not resolve (a missing file, or an anchor its page lacks), or None."""
    path, _, anchor = link.target.partition("#")
    page = (link.page.parent / path).resolve() if path else link.page
    if not page.exists():
        return f"no such file: {path}"
    if anchor and page.suffix == ".md" and anchor not in anchors(page):
        return f"no heading with anchor #{anchor} in {page.name}"
    return None
