"""Every pin of omerender that the README, docs/ and integrations/ show resolves in this repository.

A pin is the revision a user copies: pre-commit's ``rev:``, the action's ``uses: ...@REF``, the GitLab
include URL and ``OMERENDER_REVISION``, a ``pip install git+...omerender@REF``. omerender has no release tags
yet, so each one is either the placeholder ``<commit-sha>`` (docs/install.md says how to pick a commit) or a
ref that ``git rev-parse`` finds here (a tag once one is pushed, or a commit): a ``v0.1.0`` that no tag
backs fails this test, as it failed every user who copied it.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PLACEHOLDER = "<commit-sha>"
SOURCES = ("*.md", "*.yml", "*.yaml", "*.sh", "Dockerfile")
PINS = (
    re.compile(r"omerender/integrations/github@(?P<ref>[^\s\"'`)]+)"),  # the action
    re.compile(r"raw\.githubusercontent\.com/[^/\s]+/omerender/(?P<ref>[^/\s]+)/"),  # a GitLab include
    re.compile(r"OMERENDER_REVISION:\s*\"?(?P<ref>[^\"\s,}#]+)"),  # the GitLab template's variable
    re.compile(r"/omerender(?:\.git)?@(?P<ref>[^\s\"'`)]+)"),  # pip install git+https://...omerender@REF
)
PRE_COMMIT_REPO = re.compile(r"repo:\s*\S*/omerender\s*$")
REV = re.compile(r"^\s*rev:\s*(?P<ref>[^\s#]+)")


def documents() -> list[Path]:
    found = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    for pattern in SOURCES:
        found += sorted((REPO / "integrations").rglob(pattern))
    return found


def pins(text: str) -> list[tuple[int, str]]:
    """(line number, ref) of every pin of omerender in ``text``."""
    found = []
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        found += [(number, m.group("ref")) for pattern in PINS for m in pattern.finditer(line)]
        rev = REV.match(line)
        if rev and any(PRE_COMMIT_REPO.search(above) for above in lines[max(0, number - 3) : number - 1]):
            found.append((number, rev.group("ref")))
    return found


def resolves(ref: str) -> bool:
    done = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
        cwd=REPO,
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def unresolved(ref: str) -> bool:
    return ref != PLACEHOLDER and not resolves(ref)


def test_every_documented_pin_resolves_here_or_is_the_placeholder() -> None:
    seen = [(path, number, ref) for path in documents() for number, ref in pins(path.read_text(encoding="utf-8"))]
    assert len(seen) >= 6, seen  # pre-commit, the action (twice), the include, OMERENDER_REVISION, pip
    wrong = [f"{path.relative_to(REPO)}:{number}: {ref}" for path, number, ref in seen if unresolved(ref)]
    assert wrong == [], "pin a full commit hash (<commit-sha>) or a tag this repository has"


def test_the_placeholder_is_explained_where_it_is_used() -> None:
    install = (REPO / "docs" / "install.md").read_text(encoding="utf-8")
    assert PLACEHOLDER in install and "git ls-remote" in install


def test_a_tag_that_does_not_exist_is_caught() -> None:
    text = (
        "repos:\n  - repo: https://github.com/acme/omerender\n    rev: v0.1.0\n"
        "- uses: acme/omerender/integrations/github@v0.1.0\n"
        '  OMERENDER_REVISION: "v0.1.0"\n'
        'pip install "git+https://github.com/acme/omerender@v0.1.0"\n'
        "  - remote: https://raw.githubusercontent.com/acme/omerender/v0.1.0/integrations/gitlab/x.yml\n"
    )
    found = pins(text)
    assert sorted(number for number, _ in found) == [3, 4, 5, 6, 7]
    assert not resolves("refs/tags/no-such-tag-here") and all(unresolved(ref) for _, ref in found)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True)
    assert not unresolved(head.stdout.strip()) and not unresolved(PLACEHOLDER)
