"""Fixtures for the runtime-lifecycle tests (defined in lifecycle_helpers)."""

from __future__ import annotations

from lifecycle_helpers import demo, fleet  # noqa: F401 - pytest fixtures
