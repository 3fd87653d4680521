"""Every relative link in README.md and docs/*.md resolves: the file exists and, for a page, so does the anchor."""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_links import Link, anchors, broken, is_relative, links, slug

REPO = Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(REPO)) for p in PAGES])
def test_every_relative_link_resolves(page: Path) -> None:
    relative = [link for link in links(page) if is_relative(link.target)]
    wrong = [
        f"{page.relative_to(REPO)}:{link.line}: {link.target}: {why}" for link in relative if (why := broken(link))
    ]
    assert wrong == []


def test_every_page_of_docs_is_listed_in_the_index() -> None:
    index = {(REPO / "docs" / link.target.partition("#")[0]).resolve() for link in links(REPO / "docs" / "README.md")}
    assert [p.name for p in PAGES[1:] if p.resolve() not in index and p.name != "README.md"] == []


def test_anchors_are_made_as_github_makes_them(tmp_path: Path) -> None:
    assert slug("Worker processes (`-j/--jobs N`)") == "worker-processes--j--jobs-n"
    assert slug("diff: what a change rolls out") == "diff-what-a-change-rolls-out"
    page = tmp_path / "p.md"
    page.write_text(
        "# A `b`\n\n## Twice\n\n## Twice\n\n```sh\n# not a heading\n```\n[x](#twice-1) [y](other.md) `[z](nope.md)`\n"
    )
    assert anchors(page) == {"a-b", "twice", "twice-1"}
    found = links(page)
    assert [link.target for link in found] == ["#twice-1", "other.md"]
    assert broken(found[0]) is None and broken(found[1]) == "no such file: other.md"
    assert broken(Link(page, 1, "#nowhere")) == "no heading with anchor #nowhere in p.md"
