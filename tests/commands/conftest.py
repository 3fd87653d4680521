"""Fixtures for the use-case tests (defined in demo_trees)."""

from __future__ import annotations

from demo_trees import demo  # noqa: F401 - a pytest fixture
