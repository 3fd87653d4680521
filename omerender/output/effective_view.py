"""``omerender effective -o table``: one InferenceService's runtime as ``kubectl describe`` lays it out."""

from __future__ import annotations

import json
from typing import Any

from omerender.changes.effective import FOLLOWS_LIVE
from omerender.lifecycle.settle import RendersFrom, SelectedBy
from omerender.output.table import columns

ORIGIN_GAP = "  "


def _value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def text(desc: dict[str, Any], rows_of_origin: list[tuple[str, Any, str]] | None = None) -> str:
    runtime = desc["runtime"]
    kind = runtime.get("kind", "runtime")
    name = "/".join(p for p in (runtime.get("namespace"), runtime.get("name", "<none>")) if p)
    if desc["mode"] == FOLLOWS_LIVE:
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
            RendersFrom.LAST_GOOD: " (last good, from the lock)",
            RendersFrom.LOCK: " (the locked snapshot)",
        }.get(desc["source"], "")
    else:
        revision = "<none>: nothing renders"
    rows = [
        ("InferenceService", f"{desc['metadata']['namespace']}/{desc['metadata']['name']}"),
        ("Runtime", f"{kind} {name} ({'named' if runtime['selection'] == SelectedBy.NAME else 'chosen by OME'})"),
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
        out += "\n" + columns(table, ORIGIN_GAP)
    return out
