"""docs/codes.md, where SARIF's helpUri points, documents every code under the anchor help_uri names."""

from __future__ import annotations

import re
from pathlib import Path

from omerender import codes

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "codes.md"


def test_the_page_is_made_from_the_catalogue() -> None:
    assert PAGE.read_text(encoding="utf-8") == codes.markdown_reference(), (
        "docs/codes.md is stale: python -c 'from omerender import codes; "
        'open("docs/codes.md", "w").write(codes.markdown_reference())\''
    )


def test_every_help_uri_names_a_section_of_the_page() -> None:
    headings = re.findall(r"^## (.+)$", PAGE.read_text(encoding="utf-8"), re.M)
    # GitHub's anchor of a heading: lower case, spaces to '-', other punctuation but '-' and '_' dropped
    anchors = [re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings]
    assert len(anchors) == len(set(anchors)) == len(codes.CATALOGUE)
    for code in codes.CATALOGUE:
        uri = codes.help_uri(code)
        assert uri.startswith(codes.CODE_DOCS_URL + "#") and uri.split("#")[1] in anchors, code
