"""All loaded objects, indexed the way OME looks them up."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omerender import codes
from omerender.diagnostics import ERROR, Diagnostic
from omerender.load.obj import Obj
from omerender.load.unlisted import LeftOut
from omerender.names import clip
from omerender.ome import BASE_MODEL as BM
from omerender.ome import CLUSTER_BASE_MODEL as CBM
from omerender.ome import CLUSTER_SERVING_RUNTIME as CSR
from omerender.ome import SERVING_RUNTIME as SR


def runtime_key(runtime: Obj) -> str:
    """How chains, status and the lock name a runtime: ``Kind/name`` or ``Kind/namespace/name``."""
    kind, namespace, name = runtime.kind, runtime.namespace, runtime.name
    if kind and namespace and name:
        return f"{kind}/{namespace}/{name}"
    return "/".join(p for p in (kind, namespace, name) if p)


@dataclass
class Universe:
    cluster_runtimes: dict[str, Obj] = field(default_factory=dict)
    runtimes: dict[tuple[str, str], Obj] = field(default_factory=dict)
    cluster_models: dict[str, Obj] = field(default_factory=dict)
    models: dict[tuple[str, str], Obj] = field(default_factory=dict)
    isvcs: dict[tuple[str, str], Obj] = field(default_factory=dict)
    others: list[Obj] = field(default_factory=list)
    rejected: dict[tuple[str, str, str], Diagnostic] = field(
        default_factory=dict
    )  # (kind, namespace, name) -> its error
    unlisted: LeftOut = field(
        default_factory=LeftOut
    )  # (kind, namespace or "", name) -> where a file no kustomization lists defines it, read on first ask

    def all_runtimes(self) -> list[Obj]:
        return [*self.cluster_runtimes.values(), *self.runtimes.values()]

    def runtime_named(self, name: str, namespace: str) -> Obj | None:
        """OME's fetch: a ServingRuntime in the namespace first, then a ClusterServingRuntime."""
        return self.runtimes.get((namespace, name)) or self.cluster_runtimes.get(name)

    def model_named(self, name: str, namespace: str) -> Obj | None:
        """OME's base-model lookup: a BaseModel in the namespace first, then a ClusterBaseModel."""
        return self.models.get((namespace, name)) or self.cluster_models.get(name)

    def left_out(self, namespaced: str | None, cluster: str, namespace: str, name: str) -> str:
        """Where the object a lookup missed is defined in a file the build does not read because a kustomization
        does not list it: the ``namespaced`` kind in ``namespace`` first (None: not looked for), then the
        ``cluster`` kind, as OME looks. A sentence for the message, or "" when no such file defines it."""
        found = self.unlisted.get((namespaced, namespace, name)) if namespaced else None
        kind = namespaced
        if found is None:
            found, kind = self.unlisted.get((cluster, "", name)), cluster
        if found is None:
            return ""
        return (
            f"{kind} {clip(name)} is defined in {found.path}:{found.line} but {found.kustomization} does not list it "
            "(resources:), so the build does not read it; add the file to that kustomization's resources"
        )

    def namespaced_runtimes(self, namespace: str) -> list[Obj]:
        return sorted((o for (ns, _), o in self.runtimes.items() if ns == namespace), key=lambda o: o.name)


def _describe(obj: Obj) -> str:
    where = f" in namespace {obj.namespace}" if obj.namespace else ""
    return f"{obj.kind} {obj.name!r}{where}"


def index(objects: list[Obj]) -> tuple[Universe, list[Diagnostic]]:
    """Index objects by kind/namespace/name; a second object with the same identity is an error."""
    universe = Universe()
    problems: list[Diagnostic] = []
    for obj in sorted(objects, key=lambda o: (o.path, o.index, o.item)):
        if not obj.is_ome:
            universe.others.append(obj)
            continue
        table: dict[Any, Obj]
        key: Any
        if obj.kind == CSR:
            table, key = universe.cluster_runtimes, obj.name
        elif obj.kind == SR:
            table, key = universe.runtimes, (obj.namespace, obj.name)
        elif obj.kind == CBM:
            table, key = universe.cluster_models, obj.name
        elif obj.kind == BM:
            table, key = universe.models, (obj.namespace, obj.name)
        else:
            table, key = universe.isvcs, (obj.namespace, obj.name)
        first = table.get(key)
        if first is not None:
            line, _ = first.at("metadata", "name")
            problems.append(
                obj.diag(
                    ERROR,
                    f"duplicate {_describe(obj)}: also defined at {first.path}:{line}",
                    "metadata",
                    "name",
                    code=codes.DUPLICATE_OBJECT,
                )
            )
            continue
        table[key] = obj
    return universe, problems
