"""factor's proof: a tree built before and after the change has every runtime's merged spec (its revision) and every
rendered object the same, to the byte; each difference is an error naming the runtime or object and the field.

``prove`` compares the run's own build (a difference there is a bug in factor: the plan proved each child against
the merge) and the build of each app of the repository (``consumers``: there a difference means the app would not
read what factor wrote where it would write it, so factor refuses and says which build).
"""

from __future__ import annotations

from typing import Any

from omerender import codes
from omerender.diagnostics import ERROR, Diagnostic
from omerender.factor import extract
from omerender.factor.plan import without_auto_select
from omerender.lifecycle.lock import revision_of
from omerender.load.obj import Obj
from omerender.resolve.index import runtime_key
from omerender.result import BuildResult
from omerender.yamlwrite import dump_stream


def _by_key(result: BuildResult) -> dict[str, Obj]:
    return {runtime_key(r): r for r in result.universe.all_runtimes()}


def object_key(obj: dict[str, Any]) -> tuple[str, str, str]:
    meta = obj.get("metadata") or {}
    return (str(obj.get("kind", "")), str(meta.get("namespace", "")), str(meta.get("name", "")))


def _words(app: str | None) -> tuple[str, str]:
    """How a problem starts, and how it ends: a bug in factor for the run, a refusal for an app."""
    if app is None:
        return "factor", "a bug in factor, nothing written"
    return f"after factor, `omerender build {app}` (with the search paths)", "so factor writes nothing"


def prove(
    old: BuildResult,
    new: BuildResult,
    converted: set[str],
    app: str | None = None,
    spared: frozenset[str] = frozenset(),
) -> list[Diagnostic]:
    """What differs between ``old`` and ``new`` (the run's build, or ``app``'s) beyond ``converted`` runtimes'
    ``autoSelect``. A ``spared`` runtime (only a search path holds it, nothing of the build uses it: its error is a
    warning) may be broken before; it must be broken alike after (a chain factor made use it fails ``new``)."""
    subject, ending = _words(app)
    broken = "factor's output does not build (a bug in factor)" if app is None else f"{subject} would fail"
    problems = [
        Diagnostic(d.path, d.line, d.col, ERROR, f"{broken}: {d.message}", codes.FACTOR_PROOF)
        for d in new.diagnostics
        if d.severity == ERROR
    ]
    if problems and app is not None:
        return problems  # what differs follows from why it fails
    new_runtimes = _by_key(new)
    for key, runtime in sorted(_by_key(old).items()):
        chain_old, chain_new = old.chains[key], new.chains.get(key) if key in new_runtimes else None
        if key in spared and chain_old.spec is None and chain_new is not None and chain_new.reason == chain_old.reason:
            continue
        if chain_new is None or chain_new.spec is None or chain_old.spec is None:
            why = "a bug in factor" if app is None else ending
            problems.append(
                runtime.diag(ERROR, f"{subject} would break runtime {key} ({why})", code=codes.FACTOR_PROOF)
            )
            continue
        expected = without_auto_select(chain_old.spec) if key in converted else chain_old.spec
        if revision_of(expected) != revision_of(chain_new.spec):
            where = extract.first_difference(expected, chain_new.spec)
            problems.append(
                runtime.diag(
                    ERROR,
                    f"{subject} would change the merged spec of {key} at {where} (revision {revision_of(expected)} "
                    f"-> {revision_of(chain_new.spec)}); {ending}",
                    code=codes.FACTOR_PROOF,
                )
            )
    old_objects = {object_key(o): o for o in old.objects}
    new_objects = {object_key(o): o for o in new.objects}
    for ident in sorted(old_objects.keys() | new_objects.keys()):
        before, after = old_objects.get(ident), new_objects.get(ident)
        if before is None or after is None or dump_stream([before]) != dump_stream([after]):
            where = extract.first_difference(before, after, "") if before and after else "(the whole object)"
            problems.append(
                Diagnostic(
                    "<factor>",
                    1,
                    1,
                    ERROR,
                    f"{subject} would change rendered {'/'.join(p for p in ident if p)} at {where or '(order)'}; "
                    f"{ending}",
                    codes.FACTOR_PROOF,
                )
            )
    if not problems and dump_stream(old.objects) != dump_stream(new.objects):
        problems.append(
            Diagnostic("<factor>", 1, 1, ERROR, f"{subject} would reorder rendered objects", codes.FACTOR_PROOF)
        )
    return problems
