"""Copies of the spec's example for the use-case tests, and one edit at a time."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo"
ISVC = "llama-3-2-3b-instruct"
NS = "llama-demo"
KEY = f"{NS}/{ISVC}"


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """A copy of the spec's example (profile, runtime, model, InferenceService)."""
    target = tmp_path / "demo"
    shutil.copytree(DEMO, target)
    return target


def replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")
