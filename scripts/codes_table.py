"""Rewrite the README's table of diagnostic codes from the catalogue (omerender/codes.py)."""

from __future__ import annotations

import re
from pathlib import Path

from omerender.codes import markdown_table

README = Path(__file__).resolve().parents[1] / "README.md"
SECTION = re.compile(r"(<!-- codes:start -->\n).*?(<!-- codes:end -->)", re.S)


def main() -> None:
    text = README.read_text(encoding="utf-8")
    README.write_text(SECTION.sub(lambda m: m.group(1) + markdown_table() + m.group(2), text), encoding="utf-8")


if __name__ == "__main__":
    main()
