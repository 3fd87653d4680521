"""Errors in runtimes and models that only a search path holds and nothing under the PATHs uses: warnings.

A search path lends parents and models to the PATHs; it is not what the command builds. OME refuses a broken
runtime (its chain, or the API server refuses the object) or a broken model and nothing else, so an error in a
runtime no InferenceService or runtime under the PATHs reaches (named, through an ``inherit-from`` chain, or as an
auto-selection candidate), or in a model no InferenceService under the PATHs names (directly or through a
FineTunedWeight's base model), does not fail the build of the PATHs: it is reported at its line as a warning that
says so. Everything else stays as it is: an error in a PATH's object, in a runtime or model a PATH's object uses,
and in anything that cannot be tied to one object (a file that does not parse).
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable, Iterable

from omerender.diagnostics import ERROR, WARNING, Diagnostic
from omerender.load.obj import Obj
from omerender.ome import BASE_MODEL as BM
from omerender.ome import CLUSTER_BASE_MODEL as CBM
from omerender.ome import CLUSTER_SERVING_RUNTIME as CSR
from omerender.ome import INFERENCE_SERVICE as ISVC
from omerender.ome import MAX_CHAIN_DEPTH
from omerender.ome import SERVING_RUNTIME as SR
from omerender.resolve.index import Universe
from omerender.resolve.inherit import parent_name

Key = tuple[str, str, str]  # (kind, namespace or "", name)
SPARED = (CSR, SR, ISVC, BM, CBM)  # the kinds whose errors may be warnings here
WEIGHT = "FineTunedWeight"  # names its base model in spec.baseModelRef
WALK = 4 * MAX_CHAIN_DEPTH  # parents followed from one runtime: past OME's depth limit, the chain is broken anyway


def _key(obj: Obj) -> Key:
    return (obj.kind, obj.namespace if obj.kind in (SR, BM) else "", obj.name)


def _auto_selectable(runtime: Obj) -> bool:
    formats = runtime.spec.get("supportedModelFormats")
    return isinstance(formats, list) and any(isinstance(f, dict) and f.get("autoSelect") is True for f in formats)


class _Uses:
    """The runtimes reached from what the PATHs hold: keys of names looked up, found or not (a runtime the API
    server refused is not in the universe, but a PATH's object naming it still needs it)."""

    def __init__(self, universe: Universe) -> None:
        self.universe = universe
        self.keys: set[Key] = set()

    def name(self, name: str, namespace: str | None) -> Obj | None:
        """``name`` looked up as OME does (a ServingRuntime in ``namespace`` first; None: cluster scope only)."""
        if namespace is not None:
            self.keys.add((SR, namespace, name))
        self.keys.add((CSR, "", name))
        if namespace is not None:
            return self.universe.runtime_named(name, namespace)
        return self.universe.cluster_runtimes.get(name)

    def chain(self, runtime: Obj | None) -> None:
        """``runtime`` and its parents, each looked up from the start's scope as OME's resolver does (a
        ServingRuntime's parents in its namespace first, at every depth)."""
        namespace = runtime.namespace if runtime is not None and runtime.kind == SR else None
        for _ in range(WALK):
            if runtime is None:
                return
            self.keys.add(_key(runtime))
            parent = parent_name(runtime)
            if parent is None:
                return
            runtime = self.name(parent, namespace)


def used_runtimes(universe: Universe, owned: Callable[[Obj], bool]) -> set[Key]:
    """Every runtime an object ``owned`` (under a PATH) uses: its named runtime and that runtime's parents, each
    auto-selection candidate of its namespace, and a PATH's runtime's parents."""
    uses = _Uses(universe)
    selecting: set[str] = set()
    for (namespace, _), isvc in universe.isvcs.items():
        if not owned(isvc):
            continue
        spec = isvc.body.get("spec")
        ref = spec.get("runtime") if isinstance(spec, dict) else None
        name = ref.get("name") if isinstance(ref, dict) else None
        if name:
            uses.chain(uses.name(str(name), namespace))
        else:
            selecting.add(namespace)
    for runtime in universe.all_runtimes():
        candidate = _auto_selectable(runtime) and (
            (runtime.kind == CSR and bool(selecting)) or runtime.namespace in selecting
        )
        if owned(runtime) or candidate:
            uses.chain(runtime)
    return uses.keys


def _named(ref: object) -> str:
    """The ``name`` of a reference (a mapping), or ""."""
    return str(ref.get("name") or "") if isinstance(ref, dict) else ""


def used_models(objects: Iterable[Obj], universe: Universe, owned: Callable[[Obj], bool]) -> set[Key]:
    """Every model an InferenceService ``owned`` may use, as OME looks it up: ``spec.model.name`` as a BaseModel of
    its namespace and as a ClusterBaseModel (whatever kind it names: a wider set only keeps more errors), and the
    base model of a FineTunedWeight it serves. ``objects``: those the API server refused too (their names count)."""
    keys: set[Key] = set()
    weights = {o.name: o for o in universe.others if o.kind == WEIGHT}
    for isvc in objects:
        if not isvc.is_ome or isvc.kind != ISVC or not owned(isvc):
            continue
        spec = isvc.body.get("spec")
        ref = spec.get("model") if isinstance(spec, dict) else None
        names = [(_named(ref), isvc.namespace)]
        served = ref.get("fineTunedWeights") if isinstance(ref, dict) else None
        for weight_name in [_named(ref), *(served if isinstance(served, list) else [])]:
            weight = weights.get(str(weight_name))
            base = weight.spec.get("baseModelRef") if weight is not None else None
            if isinstance(base, dict):
                names.append((_named(base), str(base.get("namespace") or isvc.namespace)))
        for name, namespace in names:
            if name:
                keys.update({(BM, namespace, name), (CBM, "", name)})
    return keys


def _owners(objects: Iterable[Obj], files: set[str]) -> dict[str, tuple[list[int], list[Obj]]]:
    """Per file of ``files``: its objects' first lines, ascending, and the objects."""
    found: dict[str, list[tuple[int, int, Obj]]] = {}
    for obj in objects:
        if obj.path in files:
            found.setdefault(obj.path, []).append((obj.at()[0], obj.index, obj))
    out: dict[str, tuple[list[int], list[Obj]]] = {}
    for path, items in found.items():
        items.sort(key=lambda item: (item[0], item[1]))
        out[path] = ([line for line, _, _ in items], [obj for _, _, obj in items])
    return out


def unused(objects: list[Obj], universe: Universe, owned: Callable[[Obj], bool]) -> Callable[[Obj], str]:
    """Why an error in an object does not fail the command (what the warning adds to its message), or "": it is
    read only from a search path (not ``owned``) and is an InferenceService, or a runtime or model nothing
    ``owned`` uses. The uses are found once, when first asked about an object that may be spared."""
    used: set[Key] | None = None

    def why(owner: Obj) -> str:
        nonlocal used
        if not owner.is_ome or owner.kind not in SPARED or owned(owner):
            return ""
        if owner.kind == ISVC:
            return (
                f" (a warning here: InferenceService {owner.name} is read only from a search path, which lends "
                "runtimes and models to the PATHs and is not built; building the folder that holds it reports the "
                "error)"
            )
        if used is None:
            used = used_runtimes(universe, owned) | used_models(objects, universe, owned)
        if _key(owner) in used:
            return ""
        users, what = (
            ("InferenceService", "model") if owner.kind in (BM, CBM) else ("InferenceService or runtime", "runtime")
        )
        return (
            f" (a warning here: {owner.kind} {owner.name} is read only from a search path and no {users} under the "
            f"PATHs uses it, so OME would refuse only this {what}; building the folder that holds it reports the "
            "error)"
        )

    return why


def spared(
    diagnostics: list[Diagnostic],
    objects: list[Obj],
    universe: Universe,
    owned: Callable[[Obj], bool],
    why: Callable[[Obj], str] | None = None,
) -> list[Diagnostic]:
    """``diagnostics`` with each error located in an object that is not ``owned`` (read only from a search path)
    made a warning that says so, when the object is an InferenceService (the command does not build it), or a
    runtime or model no owned object uses (``unused``). ``objects``: every object read, those the API server would
    refuse included; ``why``: ``unused`` of the same, when the caller has it."""
    searched = {o.path for o in objects if o.is_ome and o.kind in SPARED and not owned(o)}
    candidates = [d for d in diagnostics if d.severity == ERROR and d.path in searched]
    if not candidates:
        return diagnostics
    why = why or unused(objects, universe, owned)
    owners = _owners(objects, {d.path for d in candidates})
    out: list[Diagnostic] = []
    for given in diagnostics:
        lines, objs = owners.get(given.path, ([], []))
        at = bisect.bisect_right(lines, given.line) - 1 if given.severity == ERROR else -1
        added = why(objs[at]) if at >= 0 else ""
        out.append(dataclasses.replace(given, severity=WARNING, message=given.message + added) if added else given)
    return out
