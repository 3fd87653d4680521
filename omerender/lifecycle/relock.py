"""``lock``'s decisions after the build: which diagnostics re-recording fixes, which InferenceServices are
recorded, and the verdict (up to date, out of date under ``--check``, or the new text to write)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from omerender.lifecycle.settle import Effective, relocked
from omerender.lifecycle.sides import holder


@dataclass(frozen=True)
class LockVerdict:
    """What ``lock`` says, whether it fails, and the text to write at ``path`` (None: write nothing)."""

    path: str
    message: str
    failed: bool = False
    text: str | None = None


def forgive(result: Any) -> None:
    """Turn the lock problems that re-recording fixes into what they become once it is done."""
    recoverable = result.lifecycle.lock.recoverable if result.lifecycle.lock is not None else {}
    result.diagnostics = [recoverable.get(d, d) for d in result.diagnostics]


def recorded(result: Any, search_path: list[str]) -> dict[str, Effective]:
    """The InferenceServices the lock records: all but those read from a search path."""
    return {k: r for k, r in result.lifecycle.records.items() if holder(r.isvc.path, search_path) is None}


def verdict(result: Any, records: dict[str, Effective], search_path: list[str], check: bool) -> LockVerdict:
    """The lock file after this build against the one there, as ``lock`` (or ``lock --check``) reports it."""
    text = relocked(result, records, lambda obj: holder(obj.path, search_path) is not None)
    path = result.lifecycle.path
    if text == result.lifecycle.lock_text:
        return LockVerdict(path, f"{path} is up to date")
    if check:
        return LockVerdict(path, f"omerender: {path} is not up to date; run `omerender lock`", failed=True)
    return LockVerdict(path, f"wrote {path}", text=text)
