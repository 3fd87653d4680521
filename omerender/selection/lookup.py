"""Which model and runtime an InferenceService names or OME picks for it, and the findings of looking.

Pure: the index and the resolved chains in, a ``Lookup`` out. Whether a runtime that cannot be used
is an error or a warning (a pin, ``--keep-last-good``) is the lifecycle's call, so the reason a
named runtime is refused comes apart from the other findings, as data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from omerender import codes
from omerender.diagnostics import ERROR, INFO, WARNING, Diagnostic
from omerender.load.obj import Obj
from omerender.names import clip, hint
from omerender.ome import BASE_MODEL as BM
from omerender.ome import CLUSTER_BASE_MODEL as CBM
from omerender.ome import CLUSTER_SERVING_RUNTIME as CSR
from omerender.ome import INHERIT_FROM
from omerender.ome import SERVING_RUNTIME as SR
from omerender.resolve.index import Universe, runtime_key
from omerender.resolve.inherit import RESOLVED, Chain
from omerender.selection import left_out, matching, scoring
from omerender.selection.notes import selection_notes

Made = TypeVar("Made")


class Once(Protocol):
    """``Resolved.once``: ``make()`` computed once per (``what``, ``a``, ``b``), per-runtime work done once."""

    def __call__(self, what: str, a: object, b: object, make: Callable[[], Made], /) -> Made: ...


def each_time(what: str, a: object, b: object, make: Callable[[], Made], /) -> Made:
    """A ``Once`` that keeps nothing: ``make()`` every time (a ``Context`` made alone)."""
    return make()


RUNTIME_NAME = ("spec", "runtime", "name")


@dataclass(frozen=True)
class Lookup:
    """The runtime found and its chain (None: none can be used), the findings of looking for it, and,
    for a named runtime that cannot be used, the error saying why (``refusal``, not in ``diagnostics``).
    ``crashed``: OME's matcher would panic, so nothing is settled."""

    found: tuple[Obj, Chain] | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    refusal: Diagnostic | None = None
    crashed: bool = False


def find_model(universe: Universe, isvc: Obj, body: dict[str, Any]) -> tuple[Obj | None, Diagnostic | None]:
    """The BaseModel or ClusterBaseModel ``spec.model.name`` names, or the error OME reports."""
    ref = body["spec"].get("model")
    if not isinstance(ref, dict) or not ref.get("name"):  # the controller's first step (reconciliation.go:52-54)
        return None, isvc.diag(ERROR, "model reference is required", "spec", code=codes.MODEL_RECONCILE_ERROR)
    name = str(ref["name"])
    model = universe.model_named(name, isvc.namespace)
    if model is None:
        candidates = [*universe.cluster_models, *(n for (ns, n) in universe.models if ns == isvc.namespace)]
        left_out = universe.left_out(BM, CBM, isvc.namespace, name)
        advice = left_out or (
            "ensure a BaseModel exists in this namespace or a ClusterBaseModel exists cluster-wide with this name"
            + hint(name, candidates)
        )
        message = f"referenced model {clip(name)!r} not found in namespace {isvc.namespace!r}: {advice}"
        return None, isvc.diag(ERROR, message, "spec", "model", "name", code=codes.MODEL_RECONCILE_ERROR)
    if model.spec.get("disabled") is True:
        return None, isvc.diag(
            ERROR, f"specified base model {name} is disabled", "spec", "model", "name", code=codes.MODEL_RECONCILE_ERROR
        )
    return model, None


def _missing_runtime(universe: Universe, isvc: Obj, model: Obj, name: str) -> Diagnostic:
    candidates = [*universe.cluster_runtimes, *(n for (ns, n) in universe.runtimes if ns == isvc.namespace)]
    left_out = universe.left_out(SR, CSR, isvc.namespace, name)
    message = (
        f"Runtime {clip(name)} does not support model {model.name}: runtime {clip(name)} not found in namespace "
        f"{isvc.namespace} or at cluster scope" + (f": {left_out}" if left_out else hint(name, candidates))
    )
    refused = universe.rejected.get((SR, isvc.namespace, name)) or universe.rejected.get((CSR, "", name))
    if refused is not None:
        message = (
            f"Runtime {clip(name)} does not support model {model.name}: runtime {clip(name)} is invalid, so the API "
            f"server would not store it: see its error at {refused.path}:{refused.line}:{refused.col}"
        )
    return isvc.diag(ERROR, message, *RUNTIME_NAME, code=codes.RUNTIME_VALIDATION_ERROR)


def named_runtime(universe: Universe, chains: dict[str, Chain], once: Once, isvc: Obj, model: Obj, name: str) -> Lookup:
    """The runtime ``spec.runtime.name`` names, if it exists, resolves and supports ``model`` (OME's checks)."""
    runtime = universe.runtime_named(name, isvc.namespace)
    if runtime is None:
        return Lookup(None, refusal=_missing_runtime(universe, isvc, model, name))
    chain = chains[runtime_key(runtime)]
    if not chain.ok:
        message = f"Runtime {name} does not support model {model.name}: {chain.message}"
        return Lookup(None, refusal=isvc.diag(ERROR, message, *RUNTIME_NAME, code=codes.RUNTIME_VALIDATION_ERROR))
    merged: dict[str, Any] = chain.spec or {}  # a resolved chain always has a spec
    spec = once("format-defaults", chain, None, lambda: matching.apply_format_defaults(merged))
    fmt = model.spec.get("modelFormat")
    if not isinstance(fmt, dict) or not fmt.get("name"):
        message = (
            f"model {model.name} has no spec.modelFormat, so omerender cannot check that runtime {name} supports it "
            "(in a cluster the model agent fills it in); add spec.modelFormat {name, version}, spec.modelFramework, "
            "spec.modelArchitecture and spec.modelParameterSize, or supply them with --model-metadata"
        )
        return Lookup((runtime, chain), [model.diag(WARNING, message, "spec", code=codes.MODEL_METADATA_MISSING)])
    reason = once(
        f"named-runtime {name}",
        chain,
        model,
        lambda: matching.validate_named_runtime(
            name, spec, runtime.kind == SR, matching.apply_format_defaults(model.spec)
        ),
    )
    if reason is not None:
        message = f"Runtime {name} does not support model {model.name}: {reason}"
        return Lookup(None, refusal=isvc.diag(ERROR, message, *RUNTIME_NAME, code=codes.RUNTIME_VALIDATION_ERROR))
    return Lookup((runtime, chain))


WEBHOOK_REFUSES = "OME's validating webhook refuses it"


def webhook_selects(spec: dict[str, Any]) -> bool:
    """Whether OME's validating webhook runs auto-selection itself and refuses the InferenceService when it fails:
    an engine, no ``spec.runtime`` at all, and no engine runner with an image (or leader and worker runners with
    images), as ``validateRuntimeAndModelResolution`` and ``hasFullRunnerConfig`` decide
    (pkg/webhook/admission/isvc/inference_service_validation.go:116-122,364-443 at 17b77eda)."""
    engine = spec.get("engine")
    if not isinstance(engine, dict) or spec.get("runtime") is not None:
        return False

    def has_image(part: Any) -> bool:
        runner = part.get("runner") if isinstance(part, dict) else None
        return isinstance(runner, dict) and bool(runner.get("image"))

    if has_image(engine):
        return False
    leader, worker = engine.get("leader"), engine.get("worker")
    return not (leader is not None and worker is not None and has_image(leader) and has_image(worker))


def selected_runtime(
    universe: Universe,
    chains: dict[str, Chain],
    isvc: Obj,
    model: Obj,
    webhook: bool = False,
    required: Iterable[str] = (),
    once: Once = each_time,
) -> Lookup:
    """The runtime OME's auto-selection picks for ``model`` among those listing every accelerator class in
    ``required``, with why (notes) and what to beware of. ``webhook``: the validating webhook selects first and
    refuses the object with its own wording when nothing matches; a runtime a file no kustomization lists defines
    that would be selected is then named (``left_out``)."""
    candidates = [scoring.Candidate(o.name, True, o.spec) for o in universe.namespaced_runtimes(isvc.namespace)]
    candidates += [
        scoring.Candidate(o.name, False, o.spec)
        for o in sorted(universe.cluster_runtimes.values(), key=lambda o: o.name)
    ]
    model_spec = matching.apply_format_defaults(model.spec)
    selection = scoring.select_runtime(candidates, model_spec, isvc.namespace, required)
    if selection.chosen is None:
        message = f"Failed to find runtime for model {model.name}: {selection.error}"  # the controller's event
        if webhook:
            message = (
                f"{WEBHOOK_REFUSES}: no supporting runtime found for model {model.name} and engine "
                f"does not have complete runner configuration: {selection.error}"
            )
        offered = once("left-out runtimes", universe.unlisted, None, lambda: left_out.offered(universe))
        serving = left_out.would_serve(offered, model_spec, isvc.namespace, required)
        message += f"; {serving}" if serving else ""
        failure = isvc.diag(ERROR, message, "spec", code=codes.RUNTIME_SELECTION_ERROR)
        return Lookup(None, [failure, *selection_notes(isvc, selection)])
    chosen = selection.chosen
    runtime = (
        universe.runtimes[(isvc.namespace, chosen.name)]
        if chosen.namespaced
        else universe.cluster_runtimes[chosen.name]
    )
    found = [
        isvc.diag(
            INFO,
            f"no runtime named; OME selects {runtime.kind} {chosen.name} "
            f"(score {chosen.score:g}, {len(selection.ranked)} compatible)",
            "spec",
            code=codes.RUNTIME_SELECTED,
        ),
        *selection_notes(isvc, selection),
    ]
    if selection.tie:
        runner_up = selection.ranked[1]
        message = (
            f"runtime selection is a tie between {chosen.name} and {runner_up.name} decided only by namespace or "
            "name order; name the runtime in spec.runtime.name"
        )
        found.append(isvc.diag(WARNING, message, "spec", code=codes.SELECTION_TIE))
    if INHERIT_FROM in runtime.annotations:
        message = (
            f"OME selected {chosen.name}, which inherits from {clip(runtime.annotations[INHERIT_FROM])}; a selected "
            "runtime is rendered from its own spec without inheritance, so name the runtime in spec.runtime.name "
            "instead"
        )
        found.append(isvc.diag(WARNING, message, "spec", code=codes.SELECTED_RUNTIME_INHERITS))
        return Lookup((runtime, Chain(runtime, (runtime,), RESOLVED, "", runtime.spec)), found)
    return Lookup((runtime, chains[runtime_key(runtime)]), found)


def find_runtime(
    universe: Universe, chains: dict[str, Chain], once: Once, isvc: Obj, model: Obj, body: dict[str, Any]
) -> Lookup:
    """The named runtime (``spec.runtime.name``) or the one OME selects; ``crashed`` where OME's matcher panics."""
    ref = body["spec"].get("runtime")
    try:
        if isinstance(ref, dict) and ref.get("name"):
            return named_runtime(universe, chains, once, isvc, model, str(ref["name"]))
        required = matching.required_classes(body)[0]
        return selected_runtime(universe, chains, isvc, model, webhook_selects(body["spec"]), required, once)
    except matching.OMEPanic as exc:
        message = f"OME's runtime matcher would crash the controller here: {exc}"
        return Lookup(None, [isvc.diag(ERROR, message, "spec", code=codes.OME_PANIC)], crashed=True)
