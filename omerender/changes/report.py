"""What ``diff`` finds between two builds (``changes.diff.compare``), typed: a ``DiffReport`` and its parts.

``as_data`` gives the JSON ``diff -o json`` prints (schemas and tools read it: its keys are the camelCase names
below, its lists in the order the report holds them). Values from the manifests (``Change.old``, ``Change.new``)
are JSON-shaped data as read, compared and printed, never interpreted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from omerender.changes.fielddiff import Kind
from omerender.data import Json


@dataclass(frozen=True)
class Revisions:
    """A revision before and after (None: none, on that side)."""

    old: str | None
    new: str | None

    def as_data(self) -> dict[str, Any]:
        return {"old": self.old, "new": self.new}


@dataclass(frozen=True)
class RuntimeChange:
    """A runtime (``Kind/namespace/name``) whose merged spec changed, appeared, went away or broke: its
    revision on each side, or ``broken (REASON)``."""

    runtime: str
    old: str | None
    new: str | None

    def as_data(self) -> dict[str, Any]:
        return {"runtime": self.runtime, "old": self.old, "new": self.new}


@dataclass(frozen=True)
class Change:
    """One field of a rendered object that changes: its ``path`` (keyed items as ``[name=x]``), the kind of
    change, both values, and the layer it came from (a runtime of the chain, the InferenceService, or
    ``(controller)``)."""

    path: str
    change: Kind
    old: Json
    new: Json
    origin: str

    def as_data(self) -> dict[str, Any]:
        return {"path": self.path, "change": self.change, "old": self.old, "new": self.new, "origin": self.origin}


@dataclass(frozen=True)
class ObjectChange:
    """A rendered object (``Kind/name``, ``Kind.group/name`` outside the core group) and its changes."""

    object: str
    changes: tuple[Change, ...]

    def as_data(self) -> dict[str, Any]:
        return {"object": self.object, "changes": [c.as_data() for c in self.changes]}


@dataclass(frozen=True)
class Rollout:
    """An InferenceService (``namespace/name``) whose rendered objects change: its pods roll out."""

    inference_service: str
    runtime: str
    revision: Revisions
    objects: tuple[ObjectChange, ...]

    def as_data(self) -> dict[str, Any]:
        return {
            "inferenceService": self.inference_service,
            "runtime": self.runtime,
            "revision": self.revision.as_data(),
            "objects": [o.as_data() for o in self.objects],
        }


@dataclass(frozen=True)
class Drifting:
    """A pinned InferenceService whose live runtime changed while it keeps rendering its snapshot."""

    inference_service: str
    runtime: str
    pinned_revision: str
    live_revision: Revisions

    def as_data(self) -> dict[str, Any]:
        return {
            "inferenceService": self.inference_service,
            "runtime": self.runtime,
            "pinnedRevision": self.pinned_revision,
            "liveRevision": self.live_revision.as_data(),
        }


@dataclass(frozen=True)
class Broken:
    """An InferenceService that rendered before and no longer does (in a cluster its pods keep serving)."""

    inference_service: str
    runtime: str
    last_revision: str

    def as_data(self) -> dict[str, Any]:
        return {"inferenceService": self.inference_service, "runtime": self.runtime, "lastRevision": self.last_revision}


@dataclass(frozen=True)
class DiffReport:
    """Everything that changes between two builds, each part sorted by its key."""

    runtimes: tuple[RuntimeChange, ...] = ()
    rollouts: tuple[Rollout, ...] = ()
    drifting: tuple[Drifting, ...] = ()
    created: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    broken: tuple[Broken, ...] = ()

    @property
    def changed(self) -> bool:
        """Anything changes (``diff`` exits 1)."""
        return any((self.runtimes, self.rollouts, self.drifting, self.created, self.deleted, self.broken))

    def as_data(self) -> dict[str, Any]:
        """The report as ``diff -o json`` prints it."""
        return {
            "runtimes": [r.as_data() for r in self.runtimes],
            "rollouts": [r.as_data() for r in self.rollouts],
            "drifting": [d.as_data() for d in self.drifting],
            "created": list(self.created),
            "deleted": list(self.deleted),
            "broken": [b.as_data() for b in self.broken],
        }
