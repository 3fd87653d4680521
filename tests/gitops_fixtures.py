"""Fixtures of the tests that run a route end to end (Argo CD, KRM, Flux, --emit); helpers in gitops_helpers.py.

A folder whose tests use them imports them in its conftest.py."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from gitops_helpers import FIXTURE, objects, omerender


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the llama-demo example to change."""
    target = tmp_path / "manifests"
    shutil.copytree(FIXTURE, target)
    return target


@pytest.fixture(scope="session")
def reference_build() -> list[dict[str, Any]]:
    """`omerender build fixtures/llama-demo`: what every other route must produce."""
    proc = omerender("build", str(FIXTURE))
    assert proc.code == 0, proc
    docs = objects(proc.out)
    assert any(d["kind"] == "Deployment" for d in docs), proc
    return docs
