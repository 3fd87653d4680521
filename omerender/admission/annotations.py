"""Metadata that OME or the API server ignores or refuses, which a user would not notice otherwise.

* ``ome.io/inherit-from`` on anything but a ServingRuntime or ClusterServingRuntime does nothing;
  empty or null, it names no parent: warnings. (Not a string, the CRD schema refuses it.)
* A cluster-scoped object (ClusterServingRuntime, ClusterBaseModel) with ``metadata.namespace``:
  the namespace is ignored, which usually means the object is not what its author thinks.
"""

from __future__ import annotations

from collections.abc import Iterable

from omerender import codes
from omerender.diagnostics import WARNING, Diagnostic
from omerender.load.obj import Obj
from omerender.names import clip
from omerender.ome import INHERIT_FROM, NAMESPACED_KINDS, RUNTIME_KINDS


def _inherit_from(obj: Obj) -> Diagnostic | None:
    meta = obj.body.get("metadata")
    annotations = meta.get("annotations") if isinstance(meta, dict) else None
    if not isinstance(annotations, dict) or INHERIT_FROM not in annotations:
        return None
    value = annotations[INHERIT_FROM]
    where = ("metadata", "annotations", INHERIT_FROM)
    if obj.kind not in RUNTIME_KINDS:
        return obj.diag(
            WARNING,
            f"{INHERIT_FROM} on {obj.kind} {obj.name} does nothing: only ServingRuntimes and ClusterServingRuntimes "
            "inherit",
            *where,
            code=codes.INHERIT_FROM_IGNORED,
        )
    if value is None or value == "":
        return obj.diag(
            WARNING,
            f"{INHERIT_FROM} is {'empty' if value == '' else 'null'}: {obj.kind} {obj.name} inherits from no parent",
            *where,
            code=codes.INHERIT_FROM_EMPTY,
        )
    return None


def _cluster_namespace(obj: Obj) -> Diagnostic | None:
    meta = obj.body.get("metadata")
    namespace = meta.get("namespace") if isinstance(meta, dict) else None
    if obj.kind in NAMESPACED_KINDS or namespace in (None, ""):
        return None
    return obj.diag(
        WARNING,
        f"{obj.kind} is cluster-scoped: metadata.namespace {clip(namespace)!r} is ignored (remove it, or use the "
        f"namespaced kind{' ServingRuntime' if obj.kind == 'ClusterServingRuntime' else ' BaseModel'})",
        "metadata",
        "namespace",
        code=codes.CLUSTER_SCOPED_NAMESPACE,
    )


def metadata_problems(objects: Iterable[Obj]) -> list[Diagnostic]:
    """Warnings and errors about metadata OME or the API server ignores or refuses (see the module)."""
    found: list[Diagnostic] = []
    for obj in objects:
        if obj.is_ome:
            found.extend(d for d in (_inherit_from(obj), _cluster_namespace(obj)) if d is not None)
    return found
