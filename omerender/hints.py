"""Hints for a name that is not there: "did you mean" a close one, and look-alike characters shown.

Bounded for hostile input: at most ``MAX_CANDIDATES`` names are compared, each cut to 253
characters, so a hint costs the same however many objects the inputs hold.
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable

MAX_CANDIDATES = 200
MAX_NAME = 253


def close_to(name: str, candidates: Iterable[str]) -> str | None:
    """The closest of ``candidates`` to ``name`` (not ``name`` itself), or None."""
    pool: list[str] = []
    for candidate in candidates:
        if candidate != name:
            pool.append(candidate[:MAX_NAME])
        if len(pool) >= MAX_CANDIDATES:
            break
    found = difflib.get_close_matches(name[:MAX_NAME], sorted(set(pool)), n=1, cutoff=0.75)
    return found[0] if found else None


def non_ascii(name: str) -> str:
    """`` (it holds U+0430 CYRILLIC SMALL LETTER A)`` for a name with characters that look like others."""
    odd = [ch for ch in dict.fromkeys(name) if not ch.isascii()][:3]
    if not odd:
        return ""
    shown = ", ".join(f"U+{ord(ch):04X} {unicodedata.name(ch, '?')}" for ch in odd)
    return f" (it holds non-ASCII characters: {shown})"


def hint(name: str, candidates: Iterable[str]) -> str:
    """``; did you mean "x"?`` plus the look-alike note, or ``""``."""
    found = close_to(name, candidates)
    mean = f'; did you mean "{found}"{non_ascii(found)}?' if found else ""
    return non_ascii(name) + mean
