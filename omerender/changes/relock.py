"""``lock``'s decisions after the build: which InferenceServices are recorded, and the verdict (up to date,
out of date under ``--check``, or the new text to write). What re-recording fixes the build already words as
warnings (``BuildOptions.relock``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from omerender.lifecycle.settle import Effective
from omerender.load.obj import Obj
from omerender.result import BuildResult


@dataclass(frozen=True)
class LockVerdict:
    """What ``lock`` says, whether it fails, and the text to write at ``path`` (None: write nothing)."""

    path: str
    message: str
    failed: bool = False
    text: str | None = None


def recorded(result: BuildResult, searched: Callable[[Obj], bool]) -> dict[str, Effective]:
    """The InferenceServices the lock records: all but those ``searched`` found only on a search path (build's
    ``load.roots.only_searched``: a PATH that a search path also covers wins)."""
    return {k: r for k, r in result.lifecycle.records.items() if not searched(r.isvc)}


def verdict(
    result: BuildResult, records: dict[str, Effective], searched: Callable[[Obj], bool], check: bool
) -> LockVerdict:
    """The lock file after this build against the one there, as ``lock`` (or ``lock --check``) reports it."""
    text = result.lifecycle.relocked(result.universe, result.chains, records, searched)
    path = result.lifecycle.path
    if text == result.lifecycle.lock_text:
        return LockVerdict(path, f"{path} is up to date")
    if check:
        return LockVerdict(path, f"omerender: {path} is not up to date; run `omerender lock`", failed=True)
    return LockVerdict(path, f"wrote {path}", text=text)
