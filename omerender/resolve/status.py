"""Per-runtime status as OME reports it: ``status.inheritanceChain`` and the ``InheritanceReady`` condition."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from omerender.load.obj import Obj
from omerender.ome import INHERITANCE_READY as CONDITION
from omerender.resolve.index import Universe, runtime_key
from omerender.resolve.inherit import RESOLVED, Chain, profile_problem


def runtime_status(chain: Chain, last_good: list[str] | None = None) -> dict[str, Any]:
    """``last_good``: the last chain that resolved (from the lock), kept in status while the chain is broken."""
    runtime = chain.runtime
    if chain.ok:
        condition = {"type": CONDITION, "status": "True", "reason": RESOLVED, "message": "inheritance chain resolved"}
        names = chain.names
    else:
        condition = {"type": CONDITION, "status": "False", "reason": chain.reason, "message": chain.message}
        names = list(last_good or [])
    metadata: dict[str, Any] = {"name": runtime.name}
    if runtime.namespace:
        metadata["namespace"] = runtime.namespace
    return {
        "apiVersion": str(runtime.body.get("apiVersion")),
        "kind": runtime.kind,
        "metadata": metadata,
        "status": {"inheritanceChain": names, "conditions": [condition]},
    }


def status_list(
    universe: Universe,
    chains: dict[str, Chain],
    last_good: dict[str, list[str]] | None = None,
    listed: Callable[[Obj], bool] = lambda _runtime: True,
) -> dict[str, Any]:
    """The runtimes ``listed`` accepts (``status`` and ``build --status-file`` leave out those read only from a
    search path); ``last_good``: per runtime key, its last chain that resolved (see ``runtime_status``)."""
    last_good = last_good or {}
    items = [
        runtime_status(chains[runtime_key(r)], last_good.get(runtime_key(r)))
        for r in universe.all_runtimes()
        if listed(r)
    ]
    items.sort(key=lambda i: (i["metadata"].get("namespace", ""), i["kind"], i["metadata"]["name"]))
    return {"apiVersion": "v1", "kind": "List", "metadata": {}, "items": items}


def status_failed(universe: Universe, chains: dict[str, Chain], listed: Callable[[Obj], bool] = lambda _: True) -> bool:
    """Whether a runtime ``listed`` has a broken chain or breaks the profile rule."""
    return any(
        not chains[runtime_key(r)].ok or profile_problem(r) is not None for r in universe.all_runtimes() if listed(r)
    )
