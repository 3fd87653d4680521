"""The forest page's `tree` output and Mermaid block are what omerender prints for fixtures/llama-demo.

(The README's examples moved to docs/; tests/docs/test_console_examples.py runs every console transcript.)
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE = (REPO / "docs" / "forest.md").read_text(encoding="utf-8")


def test_readme_tree_is_real(run_cli):
    shown = re.search(r"```console\n\$ omerender tree fixtures/llama-demo\n(.*?)```", PAGE, re.S)
    assert shown is not None
    assert run_cli("tree", str(REPO / "fixtures" / "llama-demo")).stdout == shown.group(1)


def test_readme_mermaid_block_is_real(run_cli, tmp_path):
    [shown] = re.findall(r"```mermaid\n.*?```\n", PAGE, re.S)
    old, new = tmp_path / "old", tmp_path / "new"
    shutil.copytree(REPO / "fixtures" / "llama-demo", old)
    shutil.copytree(old, new)
    profile = new / "profile.yaml"
    profile.write_text(profile.read_text().replace("v0.5.5.post3-cu129-amd64", "v0.5.6-cu129-amd64"))
    markdown = run_cli("diff", str(old), str(new), "-o", "markdown").stdout
    assert shown in markdown
