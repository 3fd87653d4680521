"""Why auto-selection chose what it chose: runner-ups, skipped and excluded runtimes, as notes
(ome-selection §1.8-1.10)."""

from __future__ import annotations

from omerender import codes
from omerender.diagnostics import INFO, Diagnostic
from omerender.load.obj import Obj
from omerender.names import clip
from omerender.ome import CLUSTER_SERVING_RUNTIME, SERVING_RUNTIME
from omerender.selection.scoring import MAX_REASON, Selection

MAX_LISTED_EXCLUSIONS = 10


def selection_notes(isvc: Obj, selection: Selection) -> list[Diagnostic]:
    """Runner-ups and compatible-but-skipped runtimes, as informational notes (shown with ``-v``)."""
    out: list[Diagnostic] = []
    width = len(str(len(selection.ranked)))
    for place, ranked in enumerate(selection.ranked[1:], start=2):
        scope = SERVING_RUNTIME if ranked.namespaced else CLUSTER_SERVING_RUNTIME
        distance = "" if ranked.size_distance is None else f", size distance {ranked.size_distance:g}"
        out.append(
            isvc.diag(
                INFO,
                f"runner-up #{place:0{width}d}: {scope} {ranked.name} (score {ranked.score:g}{distance})",
                "spec",
                code=codes.RUNTIME_RUNNER_UP,
            )
        )
    for name, reason in selection.skipped:
        out.append(
            isvc.diag(INFO, f"{name} is compatible but not considered: {reason}", "spec", code=codes.RUNTIME_SKIPPED)
        )
    if selection.chosen is None or len(selection.excluded) <= MAX_LISTED_EXCLUSIONS:  # a failure lists them all
        for name, reason in selection.excluded:
            message = f"{clip(name)} is excluded: {clip(reason, MAX_REASON)}"
            out.append(isvc.diag(INFO, message, "spec", code=codes.RUNTIME_EXCLUDED))
    else:
        out.append(
            isvc.diag(
                INFO,
                f"{len(selection.excluded)} runtimes are excluded as incompatible",
                "spec",
                code=codes.RUNTIME_EXCLUDED,
            )
        )
    return out
