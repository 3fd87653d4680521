"""``omerender effective``: the runtime an InferenceService uses, as ``kubectl ome runtime effective`` shows it."""

from __future__ import annotations

import json
from typing import Any

from omerender.changes.diff import effective_tree
from omerender.constants import SyncMode
from omerender.data import Json
from omerender.lifecycle.settle import Effective
from omerender.resolve import origin

API_VERSION = "omerender.io/v1alpha1"


def _mode(record: Effective) -> str:
    return "follows-live" if record.sync == SyncMode.LIVE else "pinned"


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
    runtime: dict[str, Any] = {"selection": record.selection}
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
        "apiVersion": API_VERSION,
        "kind": "EffectiveRuntime",
        "metadata": {"name": isvc.name, "namespace": isvc.namespace},
        "runtime": runtime,
        "revision": record.revision,
        "liveRevision": record.live_revision,
        "lockedRevision": locked,
        "mode": _mode(record),
        "autoSync": ref.get("autoSync") is not False,
        "pinnedRevision": pinned,
        "source": record.source,
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


def _value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def origin_rows(record: Effective) -> list[tuple[str, Json, str]]:
    """``(path, value, origin)`` for every field of the merged spec with the InferenceService's components laid over."""
    return [(path, value, source) for path, (value, source) in origin.flatten(effective_tree(record)).items()]


def text(desc: dict[str, Any], rows_of_origin: list[tuple[str, Json, str]] | None = None) -> str:
    runtime = desc["runtime"]
    kind = runtime.get("kind", "runtime")
    name = "/".join(p for p in (runtime.get("namespace"), runtime.get("name", "<none>")) if p)
    if desc["mode"] == "follows-live":
        sync = "follows the live runtime (autoSync: true)"
    elif desc["pinnedRevision"]:
        sync = f"pinned to revision {desc['pinnedRevision']} (spec.runtime.revision)"
    elif desc["lockedRevision"] is None:  # as build's runtime-not-locked warning says
        sync = "to be pinned (autoSync: false), not locked yet: renders the live runtime until `omerender lock`"
    else:
        sync = "pinned to its locked snapshot (autoSync: false)"
    condition = next((c for c in desc["conditions"] if c["type"] == "RuntimeDrifted"), {"status": "False"})
    drift = condition["status"] + (
        f" ({condition['reason']}: {condition['message']})" if condition.get("reason") else ""
    )
    if desc["revision"]:
        revision = desc["revision"] + {
            "last-good": " (last good, from the lock)",
            "lock": " (the locked snapshot)",
        }.get(desc["source"], "")
    else:
        revision = "<none>: nothing renders"
    rows = [
        ("InferenceService", f"{desc['metadata']['namespace']}/{desc['metadata']['name']}"),
        ("Runtime", f"{kind} {name} ({'named' if runtime['selection'] == 'named' else 'chosen by OME'})"),
        ("Revision", revision),
        ("Locked revision", str(desc["lockedRevision"] or "<not locked>")),
        ("Live revision", str(desc["liveRevision"] or "<chain broken>")),
        ("Sync", sync),
        ("Drifted", drift),
    ]
    if "chain" in desc:
        rows.append(("Chain", " -> ".join(desc["chain"]) or "<none>"))
    if "chainError" in desc:
        rows.append(("Chain error", f"{desc['chainError']['reason']}: {desc['chainError']['message']}"))
    width = max(len(k) for k, _ in rows)
    out = "".join(f"{k + ':':<{width + 1}}  {v}\n" for k, v in rows)
    if rows_of_origin:
        table = [("FIELD", "VALUE", "ORIGIN"), *((p, _short(_value(v)), o) for p, v, o in rows_of_origin)]
        widths = [max(len(r[i]) for r in table) for i in range(2)]
        out += "\n" + "".join(f"{p:<{widths[0]}}  {v:<{widths[1]}}  {o}".rstrip() + "\n" for p, v, o in table)
    return out
