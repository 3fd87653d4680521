"""Runtimes a kustomization leaves out that auto-selection would pick for a model it finds no runtime for.

Asked only when selection fails: the runtimes that files no kustomization lists define (``load.unlisted``, read
then and within its bounds) are put through OME's selection for the model, alone, and those it ranks are named
with the file and the kustomization that omits it, best first, at most ``MAX_NAMED``. A runtime the API server
would not store, or one whose name the build already holds (adding its file would make a duplicate), is not
offered; one on which OME's matcher would crash is passed over.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from omerender.admission.validate import check_inputs
from omerender.load.obj import Obj
from omerender.load.unlisted import Unlisted
from omerender.names import clip
from omerender.ome import CLUSTER_SERVING_RUNTIME as CSR
from omerender.ome import SERVING_RUNTIME as SR
from omerender.resolve.index import Universe
from omerender.selection import matching, scoring

MAX_NAMED = 3


def offered(universe: Universe) -> list[tuple[Obj, Unlisted]]:
    """The runtimes of unlisted files the API server would store and the build does not already name, in the
    order ``load.unlisted`` found them."""
    found: list[tuple[Obj, Unlisted]] = []
    for (kind, namespace, name), where in universe.unlisted.objects().items():
        if kind not in (CSR, SR) or where.obj is None or not isinstance(where.obj.body.get("spec"), dict):
            continue
        taken = universe.cluster_runtimes if kind == CSR else universe.runtimes
        if (name if kind == CSR else (namespace, name)) in taken:
            continue
        found.append((where.obj, where))
    stored = {id(obj) for obj in check_inputs([obj for obj, _ in found]).kept}
    return [(obj, where) for obj, where in found if id(obj) in stored]


def _ranked(
    candidates: list[scoring.Candidate], model: dict[str, Any], namespace: str, required: frozenset[str]
) -> tuple[scoring.Ranked, ...]:
    """What OME's selection ranks among ``candidates``, in its order; those on which the matcher would crash are
    left out first."""

    def calm(candidate: scoring.Candidate) -> bool:
        try:
            scoring.select_runtime([candidate], model, namespace, required)
        except matching.OMEPanic:
            return False
        return True

    try:
        return scoring.select_runtime(candidates, model, namespace, required).ranked
    except matching.OMEPanic:
        return scoring.select_runtime([c for c in candidates if calm(c)], model, namespace, required).ranked


def would_serve(
    runtimes: list[tuple[Obj, Unlisted]], model_spec: dict[str, Any], namespace: str, required: Iterable[str]
) -> str:
    """A sentence naming the runtimes of ``runtimes`` (``offered``) that OME's selection would pick for a model
    with ``model_spec`` (CRD defaults applied) in ``namespace``, or "" when none would."""
    if not runtimes or matching.model_error(model_spec):
        return ""
    usable = [(obj, where) for obj, where in runtimes if obj.kind == CSR or obj.namespace == namespace]
    by_key = {(obj.kind == SR, obj.name): (obj, where) for obj, where in usable}
    candidates = [scoring.Candidate(obj.name, obj.kind == SR, obj.spec) for obj, _ in usable]
    ranked = _ranked(candidates, model_spec, namespace, frozenset(required))
    if not ranked:
        return ""
    named = []
    for choice in ranked[:MAX_NAMED]:
        obj, where = by_key[(choice.namespaced, choice.name)]
        named.append(
            f"{obj.kind} {clip(obj.name)} in {where.path}:{where.line} would serve it, but {where.kustomization} "
            f"does not list {where.path} (resources:)"
        )
    more = f"; and {len(ranked) - MAX_NAMED} more" if len(ranked) > MAX_NAMED else ""
    return "; ".join(named) + more + "; add its file to that kustomization's resources"
