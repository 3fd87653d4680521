"""The serving checks of one InferenceService's rendered objects, located and under the run's policy."""

from __future__ import annotations

import functools
from typing import Any

from omerender.diagnostics import Diagnostic
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
    made = view.build(ctx, universe, objects)
    if not made.pods:
        return []
    found: list[Diagnostic] = []
    for entry in CHECKS:
        if policy.mode == "off" and not entry.always:
            continue
        for finding in entry.run(made):
            found.append(silencing.apply(finding, _located(made, finding), ctx.sources, policy))
    if policy.mode != "off":
        for source in ctx.sources:  # each object's once per run (the chain's runtimes are shared)
            if silencing.annotated(source):
                found += ctx.once(
                    "serving-annotations", source, None, functools.partial(silencing.annotation_problems, source)
                )
    return found
