"""``omerender effective``: the runtime an InferenceService uses, as ``kubectl ome runtime effective`` shows it."""

from __future__ import annotations

import json
from typing import Any

from omerender import origin
from omerender.diffing import effective_tree
from omerender.lifecycle import Effective

API_VERSION = "omerender.io/v1alpha1"


def _mode(record: Effective) -> str:
    return "follows-live" if record.sync == "live" else "pinned"


def describe(record: Effective, detail: bool, show_origin: bool) -> dict[str, Any]:
    """Plain data for one InferenceService; ``detail`` adds the chain (root first) and the merged spec."""
    isvc = record.isvc
    ref = isvc.spec.get("runtime") if isinstance(isvc.spec.get("runtime"), dict) else {}
    runtime: dict[str, Any] = {"selection": record.selection}
    if record.runtime is not None:
        runtime.update({"kind": record.runtime.kind, "name": record.runtime.name})
        if record.runtime.namespace:
            runtime["namespace"] = record.runtime.namespace
    elif ref.get("name"):
        runtime["name"] = str(ref["name"])
    live = record.live
    drifted = {"type": "RuntimeDrifted", "status": "True" if record.drifted else "False"}
    if record.drifted:
        drifted.update({"reason": "RevisionMismatch", "message": f"pinned to revision {record.revision}, live merged spec is revision {record.live_revision}"})
    out: dict[str, Any] = {
        "apiVersion": API_VERSION,
        "kind": "EffectiveRuntime",
        "metadata": {"name": isvc.name, "namespace": isvc.namespace},
        "runtime": runtime,
        "revision": record.revision,
        "liveRevision": record.live_revision,
        "lockedRevision": record.locked.revision if record.locked is not None else None,
        "mode": _mode(record),
        "autoSync": ref.get("autoSync") is not False,
        "pinnedRevision": str(ref["revision"]) if ref.get("revision") else None,
        "source": record.source,
        "drifted": record.drifted,
        "chainResolved": bool(live is not None and live.ok),
        "conditions": [drifted],
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


def origin_rows(record: Effective) -> list[tuple[str, Any, str]]:
    """``(path, value, origin)`` for every field of the merged spec with the InferenceService's components laid over."""
    return [(path, value, source) for path, (value, source) in origin.flatten(effective_tree(record)).items()]


def text(desc: dict[str, Any], rows_of_origin: list[tuple[str, Any, str]] | None = None) -> str:
    runtime = desc["runtime"]
    kind = runtime.get("kind", "runtime")
    name = "/".join(p for p in (runtime.get("namespace"), runtime.get("name", "<none>")) if p)
    if desc["mode"] == "follows-live":
        sync = "follows the live runtime (autoSync: true)"
    elif desc["pinnedRevision"]:
        sync = f"pinned to revision {desc['pinnedRevision']} (spec.runtime.revision)"
    else:
        sync = "pinned to its locked snapshot (autoSync: false)"
    drift = "True (RevisionMismatch)" if desc["drifted"] else "False"
    rows = [
        ("InferenceService", f"{desc['metadata']['namespace']}/{desc['metadata']['name']}"),
        ("Runtime", f"{kind} {name} ({'named' if runtime['selection'] == 'named' else 'chosen by OME'})"),
        ("Revision", str(desc["revision"] or "<none>") + ("" if desc["source"] != "last-good" else " (last good, from the lock)")),
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
