"""``omerender effective``: the runtime an InferenceService uses, as ``kubectl ome runtime effective`` shows it."""

from __future__ import annotations

from typing import Any

from omerender.changes.diff import effective_tree
from omerender.constants import TOOL_API_VERSION, SyncMode
from omerender.data import Json
from omerender.lifecycle.settle import Effective
from omerender.resolve import origin

FOLLOWS_LIVE, PINNED = "follows-live", "pinned"  # the modes shown: autoSync true, or pinned either way


def _mode(record: Effective) -> str:
    return FOLLOWS_LIVE if record.sync == SyncMode.LIVE else PINNED


def _drift(record: Effective, pinned_to: str | None) -> tuple[bool | None, dict[str, Any]]:
    """``drifted`` (None when unknown) and the ``RuntimeDrifted`` condition.

    Only a pinned InferenceService drifts. When its runtime's live merged spec does not resolve
    (a broken chain, a runtime gone), whether it differs from the pinned revision is unknown.
    """
    condition: dict[str, Any] = {"type": "RuntimeDrifted"}
    if record.drifted:
        condition.update(
            status="True",
            reason="RevisionMismatch",
            message=f"pinned to revision {pinned_to or record.revision}, live merged spec is revision "
            f"{record.live_revision}",
        )
        return True, condition
    if record.sync != SyncMode.LIVE and pinned_to is not None and record.live_revision is None:
        condition.update(
            status="Unknown",
            reason="LiveRevisionUnknown",
            message=f"pinned to revision {pinned_to}; the live merged spec does not resolve, so it cannot be compared",
        )
        return None, condition
    condition["status"] = "False"
    return False, condition


def describe(record: Effective, detail: bool, show_origin: bool) -> dict[str, Any]:
    """Plain data for one InferenceService; ``detail`` adds the chain (root first) and the merged spec."""
    isvc = record.isvc
    found = isvc.spec.get("runtime")
    ref: dict[str, Any] = found if isinstance(found, dict) else {}
    runtime: dict[str, Any] = {"selection": record.selection.value}
    if record.runtime is not None:
        runtime.update({"kind": record.runtime.kind, "name": record.runtime.name})
        if record.runtime.namespace:
            runtime["namespace"] = record.runtime.namespace
    elif ref.get("name"):
        runtime["name"] = str(ref["name"])
    live = record.live
    locked = record.locked.revision if record.locked is not None else None
    pinned = str(ref["revision"]) if ref.get("revision") else None
    drifted, condition = _drift(record, pinned or locked)
    out: dict[str, Any] = {
        "apiVersion": TOOL_API_VERSION,
        "kind": "EffectiveRuntime",
        "metadata": {"name": isvc.name, "namespace": isvc.namespace},
        "runtime": runtime,
        "revision": record.revision,
        "liveRevision": record.live_revision,
        "lockedRevision": locked,
        "mode": _mode(record),
        "autoSync": ref.get("autoSync") is not False,
        "pinnedRevision": pinned,
        "source": record.source.value,
        "drifted": drifted,
        "chainResolved": bool(live is not None and live.ok),
        "conditions": [condition],
    }
    if live is not None and not live.ok:
        out["chainError"] = {"reason": live.reason, "message": live.message}
    if detail or show_origin:
        out["chain"] = list(record.chain or (record.locked.chain if record.locked is not None else ()))
        out["spec"] = record.spec
    if show_origin:
        out["origins"] = origin.origins(effective_tree(record))
    return out


def origin_rows(record: Effective) -> list[tuple[str, Json, str]]:
    """``(path, value, origin)`` for every field of the merged spec with the InferenceService's components laid over."""
    return [(path, value, source) for path, (value, source) in origin.flatten(effective_tree(record)).items()]
