"""Trees for the forest tests (tree, graph)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "llama-demo"
BROKEN = REPO / "tests" / "cases" / "forest-tree-broken" / "input"


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    target = tmp_path / "demo"
    shutil.copytree(DEMO, target)
    return target


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    target = tmp_path / "broken"
    shutil.copytree(BROKEN, target)
    return target
