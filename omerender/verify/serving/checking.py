"""The serving checks of one InferenceService's rendered objects, located and under the run's policy."""

from __future__ import annotations

import functools
from typing import Any

from omerender.diagnostics import Diagnostic
from omerender.load.obj import Obj
from omerender.load.serving_rules import ServingPolicy
from omerender.render.context import Context
from omerender.resolve.index import Universe
from omerender.verify.serving import silencing, view
from omerender.verify.serving.finding import Finding
from omerender.verify.serving.registry import CHECKS


def _located(made: view.ServingView, finding: Finding) -> Diagnostic:
    place = finding.place or made.fallback(finding.component)
    return place.source.diag(finding.severity, finding.message, *place.keys, code=finding.code)


def check(ctx: Context, objects: list[dict[str, Any]], universe: Universe, policy: ServingPolicy) -> list[Diagnostic]:
    """What the serving checks find in ``objects`` (the rendered objects of ``ctx``'s InferenceService)."""
    made = view.build(ctx, universe, objects, policy.gpu_memory)
    if not made.pods:
        return []
    found: list[Diagnostic] = []
    for entry in CHECKS:
        if policy.mode == "off" and not entry.always:
            continue
        for finding in entry.run(made):
            found.append(silencing.apply(finding, _located(made, finding), ctx.sources, policy))
    if policy.mode != "off" and ctx.once("serving-annotated", universe, None, functools.partial(_annotated, universe)):
        # the chain's once per run: it is the same for every InferenceService on its leaf
        isvc, chain = ctx.sources[0], ctx.sources[1:]
        found += silencing.annotation_problems(isvc) if silencing.annotated(isvc) else []
        if chain:
            known, problems = ctx.once("serving-annotations", chain[0], None, functools.partial(_chain_problems, chain))
            same = len(known) == len(chain) and all(a is b for a, b in zip(known, chain, strict=True))
            found += problems if same else _chain_problems(chain)[1]  # a locked snapshot's chain differs
    return found


def _annotated(universe: Universe) -> bool:
    """Whether any runtime or InferenceService of the inputs has an ignore-check annotation."""
    return any(silencing.annotated(obj) for obj in [*universe.all_runtimes(), *universe.isvcs.values()])


def _chain_problems(chain: tuple[Obj, ...]) -> tuple[tuple[Obj, ...], list[Diagnostic]]:
    return chain, [d for obj in chain if silencing.annotated(obj) for d in silencing.annotation_problems(obj)]
