"""From input paths to rendered objects, runtime status and diagnostics: the core's one entry point."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from omerender import codes, ome
from omerender.admission import annotations as metadata_checks
from omerender.admission import defaults as admission
from omerender.admission import validate
from omerender.diagnostics import ERROR, INFO, WARNING, Diagnostic, sorted_unique
from omerender.load import controller_config
from omerender.load.bounded import Budget
from omerender.load.obj import Obj
from omerender.load.reader import LoadOptions, empty_inputs, load
from omerender.names import clip, hint
from omerender.ome import CLUSTER_SERVING_RUNTIME as CSR
from omerender.ome import INHERIT_FROM
from omerender.ome import SERVING_RUNTIME as SR
from omerender.render import components, modes
from omerender.render import pod as render
from omerender.resolve.index import Universe, index, runtime_key
from omerender.resolve.inherit import Chain, resolve_all
from omerender.selection import matching, scoring
from omerender.selection.notes import selection_notes
from omerender.settings import Settings
from omerender.verify import apiserver, lints, rejections
from omerender.verify import kube_schema as kube_validate

WORKLOAD_KINDS = ("Deployment", "LeaderWorkerSet")


@dataclass
class BuildOptions:
    namespace: str = "default"
    max_file_bytes: int = 10 * 1024 * 1024
    lock_file: str | None = None  # None: omerender.lock beside the first path (see lock.default_path)
    keep_last_good: bool = False  # render InferenceServices whose runtime broke from their locked snapshot
    roll_forward: tuple[str, ...] = ()  # namespace/name of autoSync: false InferenceServices to take live
    model_metadata: str | None = None  # overlay file of model-agent fields (omerender.metadata)
    validate: str = "strict"  # unknown fields in OME objects: errors (strict), warnings (warn) or silent (ignore)
    kube_version: str | None = kube_validate.DEFAULT_KUBE_VERSION  # None: skip the Kubernetes schema check
    controller_config: str | None = None  # --controller-config: a file holding the inferenceservice-config ConfigMap
    fail_empty_input: bool = False  # an input PATH holding no OME object is an error, not a warning
    budget: Budget | None = None  # what the run may read in all (load.bounded); made on first use

    def run_budget(self) -> Budget:
        if self.budget is None:
            self.budget = Budget(max_file_bytes=self.max_file_bytes)
        return self.budget


@dataclass
class BuildResult:
    universe: Universe
    chains: dict[str, Chain]
    objects: list[dict[str, Any]] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    lifecycle: Any = None  # lifecycle.Lifecycle: locked snapshots, pins, drift; None renders live
    load_errors: list[Diagnostic] = field(default_factory=list)  # inputs that could not be read: a partial universe
    controller: controller_config.ControllerConfig = field(default_factory=controller_config.ControllerConfig)

    memo: dict[tuple[str, int, int], tuple[object, object, Any]] = field(default_factory=dict, repr=False)

    def once(self, what: str, a: object, b: object, make: Callable[[], Any]) -> Any:
        """``make()``, computed once per (``what``, ``a``, ``b``) by identity; per runtime work, not per InferenceService."""
        key = (what, id(a), id(b))
        found = self.memo.get(key)
        if found is None or found[0] is not a or found[1] is not b:  # the references kept make ids unique
            found = self.memo[key] = (a, b, make())
        return found[2]

    @property
    def failed(self) -> bool:
        return any(d.severity == ERROR for d in self.diagnostics)


def object_order(obj: dict[str, Any]) -> tuple[int, str, str, str]:
    """Workloads first (engine Deployments lead), then by kind, namespace and name."""
    meta = obj.get("metadata") or {}
    kind = str(obj.get("kind", ""))
    workload = kind in WORKLOAD_KINDS or obj.get("apiVersion") == "serving.knative.dev/v1"  # a Knative Service too
    return (0 if workload else 1, kind, str(meta.get("namespace", "")), str(meta.get("name", "")))


def _model_for(universe: Universe, isvc: Obj, body: dict[str, Any]) -> tuple[Obj | None, Diagnostic | None]:
    ref = body["spec"].get("model")
    if not isinstance(ref, dict) or not ref.get("name"):
        return None, isvc.diag(ERROR, "model reference is required", "spec", code=codes.RUNTIME_FETCH_ERROR)
    name = str(ref["name"])
    model = universe.model_named(name, isvc.namespace)
    if model is None:
        candidates = [*universe.cluster_models, *(n for (ns, n) in universe.models if ns == isvc.namespace)]
        message = (
            f"referenced model {clip(name)!r} not found in namespace {isvc.namespace!r}: ensure a BaseModel exists in "
            "this namespace or a ClusterBaseModel exists cluster-wide with this name" + hint(name, candidates)
        )
        return None, isvc.diag(ERROR, message, "spec", "model", "name", code=codes.MODEL_RECONCILE_ERROR)
    if model.spec.get("disabled") is True:
        return None, isvc.diag(
            ERROR, f"specified base model {name} is disabled", "spec", "model", "name", code=codes.MODEL_RECONCILE_ERROR
        )
    return model, None


def _named_runtime(result: BuildResult, isvc: Obj, model: Obj, name: str) -> tuple[Obj, Chain] | None:
    universe = result.universe
    runtime = universe.runtime_named(name, isvc.namespace)
    where = ("spec", "runtime", "name")
    model_name = model.name
    if runtime is None:
        candidates = [*universe.cluster_runtimes, *(n for (ns, n) in universe.runtimes if ns == isvc.namespace)]
        message = (
            f"Runtime {clip(name)} does not support model {model_name}: runtime {clip(name)} not found in namespace "
            f"{isvc.namespace} or at cluster scope" + hint(name, candidates)
        )
        refused = universe.rejected.get((SR, isvc.namespace, name)) or universe.rejected.get((CSR, "", name))
        if refused is not None:
            message = (
                f"Runtime {clip(name)} does not support model {model_name}: runtime {clip(name)} is invalid, so the API "
                f"server would not store it: see its error at {refused.path}:{refused.line}:{refused.col}"
            )
        result.diagnostics.append(isvc.diag(ERROR, message, *where, code=codes.RUNTIME_VALIDATION_ERROR))
        return None
    chain = result.chains[runtime_key(runtime)]
    if not chain.ok:
        message = f"Runtime {name} does not support model {model_name}: {chain.message}"
        result.diagnostics.append(isvc.diag(ERROR, message, *where, code=codes.RUNTIME_VALIDATION_ERROR))
        return None
    merged: dict[str, Any] = chain.spec or {}  # a resolved chain always has a spec
    spec = result.once("format-defaults", chain, None, lambda: matching.apply_format_defaults(merged))
    fmt = model.spec.get("modelFormat")
    if not isinstance(fmt, dict) or not fmt.get("name"):
        result.diagnostics.append(
            model.diag(
                WARNING,
                f"model {model_name} has no spec.modelFormat, so omerender cannot check that runtime {name} supports it "
                "(in a cluster the model agent fills it in); add spec.modelFormat {name, version}, spec.modelFramework, "
                "spec.modelArchitecture and spec.modelParameterSize, or supply them with --model-metadata",
                "spec",
                code=codes.MODEL_METADATA_MISSING,
            )
        )
    else:
        reason = result.once(
            f"named-runtime {name}",
            chain,
            model,
            lambda: matching.validate_named_runtime(
                name, spec, runtime.kind == SR, matching.apply_format_defaults(model.spec)
            ),
        )
        if reason is not None:
            message = f"Runtime {name} does not support model {model_name}: {reason}"
            result.diagnostics.append(isvc.diag(ERROR, message, *where, code=codes.RUNTIME_VALIDATION_ERROR))
            return None
    return runtime, chain


def _selected_runtime(result: BuildResult, isvc: Obj, model: Obj) -> tuple[Obj, Chain] | None:
    universe = result.universe
    candidates = [scoring.Candidate(o.name, True, o.spec) for o in universe.namespaced_runtimes(isvc.namespace)]
    candidates += [
        scoring.Candidate(o.name, False, o.spec)
        for o in sorted(universe.cluster_runtimes.values(), key=lambda o: o.name)
    ]
    selection = scoring.select_runtime(candidates, matching.apply_format_defaults(model.spec), isvc.namespace)
    if selection.chosen is None:
        message = f"Failed to find runtime for model {model.name}: {selection.error}"
        result.diagnostics.append(isvc.diag(ERROR, message, "spec", code=codes.RUNTIME_SELECTION_ERROR))
        result.diagnostics.extend(selection_notes(isvc, selection))
        return None
    chosen = selection.chosen
    runtime = (
        universe.runtimes[(isvc.namespace, chosen.name)]
        if chosen.namespaced
        else universe.cluster_runtimes[chosen.name]
    )
    result.diagnostics.append(
        isvc.diag(
            INFO,
            f"no runtime named; OME selects {runtime.kind} {chosen.name} (score {chosen.score:g}, {len(selection.ranked)} compatible)",
            "spec",
            code=codes.RUNTIME_SELECTED,
        )
    )
    result.diagnostics.extend(selection_notes(isvc, selection))
    if selection.tie:
        runner_up = selection.ranked[1]
        result.diagnostics.append(
            isvc.diag(
                WARNING,
                f"runtime selection is a tie between {chosen.name} and {runner_up.name} decided only by namespace or name order; name the runtime in spec.runtime.name",
                "spec",
                code=codes.SELECTION_TIE,
            )
        )
    if INHERIT_FROM in runtime.annotations:
        result.diagnostics.append(
            isvc.diag(
                WARNING,
                f"OME selected {chosen.name}, which inherits from {clip(runtime.annotations[INHERIT_FROM])}; a selected runtime is "
                "rendered from its own spec without inheritance, so name the runtime in spec.runtime.name instead",
                "spec",
                code=codes.SELECTED_RUNTIME_INHERITS,
            )
        )
        return runtime, Chain(runtime, (runtime,), "Resolved", "", runtime.spec)
    return runtime, result.chains[runtime_key(runtime)]


def render_isvc(result: BuildResult, isvc: Obj) -> list[dict[str, Any]]:
    problems = admission.isvc_validation(isvc)
    result.diagnostics.extend(problems)
    if problems:
        return []
    universe = result.universe

    def model_kind(name: str) -> str | None:
        if name in universe.cluster_models:
            return "ClusterBaseModel"
        return "BaseModel" if (isvc.namespace, name) in universe.models else None

    body, notes = admission.isvc_defaults(isvc, model_kind, result.controller.default_mode)
    result.diagnostics.extend(notes)
    if any(n.severity == ERROR for n in notes):
        return []
    model, problem = _model_for(result.universe, isvc, body)
    if model is None:
        result.diagnostics.append(problem)  # type: ignore[arg-type]
        if result.lifecycle is not None:
            result.diagnostics.extend(result.lifecycle.without_model(result.universe, result.chains, isvc, body))
        return []
    ref = body["spec"].get("runtime")
    mark = len(result.diagnostics)
    if modes.isvc_mode(body["metadata"].get("annotations")) == modes.VIRTUAL:
        result.diagnostics.append(
            isvc.diag(
                INFO,
                "ome.io/deploymentMode is VirtualDeployment: OME creates nothing for this InferenceService and marks it Ready",
                "metadata",
                "annotations",
                ome.DEPLOYMENT_MODE,
                code=codes.VIRTUAL_DEPLOYMENT,
            )
        )
        return []
    try:
        if isinstance(ref, dict) and ref.get("name"):
            found = _named_runtime(result, isvc, model, str(ref["name"]))
        else:
            found = _selected_runtime(result, isvc, model)
    except matching.OMEPanic as exc:
        result.diagnostics.append(
            isvc.diag(
                ERROR, f"OME's runtime matcher would crash the controller here: {exc}", "spec", code=codes.OME_PANIC
            )
        )
        return []
    if result.lifecycle is not None:
        lookup = result.diagnostics[mark:]
        del result.diagnostics[mark:]
        settled = result.lifecycle.settle(result.universe, result.chains, isvc, body, found, lookup)
        found = settled.found
        result.diagnostics.extend(settled.diagnostics)
    if found is None:
        return []
    runtime, chain = found
    merged: dict[str, Any] = chain.spec or {}  # a settled chain always has a spec
    spec = result.once("crd-defaults", chain, None, lambda: admission.runtime_defaults(merged))  # read only
    result.diagnostics.extend(admission.replica_override_warnings(isvc, spec, runtime, chain.runtimes))
    if body["spec"].get("engine") is None:
        result.diagnostics.append(
            isvc.diag(
                ERROR,
                "engine component is required (write engine: {} to take the runtime's engineConfig)",
                "spec",
                code=codes.DEPLOYMENT_MODE_ERROR,
            )
        )
        return []
    if (
        modes.mode_from_annotations(body["metadata"].get("annotations")) or result.controller.default_mode
    ) == modes.SERVERLESS:
        message = (
            "the InferenceService's deployment mode resolves to Serverless (deploy.defaultDeploymentMode): OME's controller "
            "only checks that Knative Serving is installed (controller.go:541-556) and still picks each component's "
            "workload from the component itself (utils/deployment.go:12-34)"
        )
        result.diagnostics.append(isvc.diag(INFO, message, "metadata", code=codes.SERVERLESS_DEFAULT))
    sources = (isvc, *reversed(chain.runtimes))
    ctx = render.Context(
        isvc, body, model, runtime.name, spec, sources, ingress=result.controller.ingress, once=result.once
    )
    objects = components.render_all(ctx, result.universe)
    result.diagnostics.extend(rejections.check(ctx, objects))
    result.diagnostics.extend(apiserver.check(ctx, objects))
    result.diagnostics.extend(ctx.problems)
    return objects


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection inside; the objects alive at the end are frozen out of later collections.

    Loading and rendering make millions of containers and almost no cycles, so the collector would
    only walk them again and again (at scale 1, ten full collections over the loaded data took over
    a second). The collector's state is restored, so the core can run again in the same process.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def build(paths: list[str], options: BuildOptions, stdin: Callable[[], bytes] = lambda: b"") -> BuildResult:
    with collector_paused():
        loaded = load(paths, _load_options(options), stdin)
        result = build_objects(loaded.objects, loaded.diagnostics, options, paths)
    result.load_errors = [d for d in loaded.diagnostics if d.severity == ERROR]
    empty = empty_inputs(paths, loaded.objects, loaded.diagnostics, ERROR if options.fail_empty_input else WARNING)
    result.diagnostics = sorted_unique(result.diagnostics + empty)
    return result


def resolve_inputs(objects: list[Obj], load_problems: list[Diagnostic], options: BuildOptions) -> BuildResult:
    """Everything before rendering: the overlay, input validation, the index and every chain."""
    if options.model_metadata:
        from omerender.load.metadata import apply_overlay

        load_problems = [*load_problems, *apply_overlay(options.model_metadata, objects, options.run_budget())]
    checked = validate.check_inputs(objects, mode=options.validate)
    checked.diagnostics.extend(metadata_checks.check(objects))
    universe, duplicates = index(checked.kept)
    universe.rejected = checked.rejected
    chains, chain_problems = resolve_all(universe)
    result = BuildResult(universe, chains)
    result.controller, config_problems = controller_config.select(
        objects, options.controller_config, options.max_file_bytes, options.namespace
    )
    result.diagnostics.extend(load_problems + checked.diagnostics + duplicates + chain_problems + config_problems)
    result.diagnostics.extend(lints.runtime_lints(universe, chains))
    return result


@dataclass
class StatusResult:
    """What ``status`` reports: the ``v1 List``, its diagnostics, whether a runtime failed, and per
    runtime (namespace, kind, name) where it is declared and its last chain that resolved (lock file)."""

    listing: dict[str, Any]
    diagnostics: list[Diagnostic]
    failed: bool
    sources: dict[tuple[str, str, str], str] = field(default_factory=dict)
    last_resolved: dict[tuple[str, str, str], list[str]] = field(default_factory=dict)


def status(
    paths: list[str],
    options: BuildOptions,
    stdin: Callable[[], bytes] = lambda: b"",
    listed: Callable[[Obj], bool] = lambda _obj: True,
) -> StatusResult:
    """Runtime status of every runtime ``listed`` accepts (others, from a --search-path, only resolve).

    A broken chain shows the last chain that resolved, from the lock file, as OME's status keeps it.
    """
    from omerender.lifecycle.lock import default_path, last_chains, read
    from omerender.resolve.status import status_failed, status_list

    with collector_paused():
        loaded = load(paths, _load_options(options), stdin)
    result = resolve_inputs(loaded.objects, loaded.diagnostics, options)
    lock, _, lock_problems = read(options.lock_file or default_path(paths), options.run_budget())
    diagnostics = sorted_unique(result.diagnostics + lock_problems)
    universe = result.universe
    last = last_chains(lock, universe.all_runtimes())
    listing = status_list(universe, result.chains, last)
    runtimes = {(r.namespace or "", r.kind, r.name): r for r in universe.all_runtimes()}
    shown = {key for key, r in runtimes.items() if listed(r)}

    def key_of(item: dict[str, Any]) -> tuple[str, str, str]:
        return str(item["metadata"].get("namespace", "")), str(item["kind"]), str(item["metadata"]["name"])

    listing["items"] = [item for item in listing["items"] if key_of(item) in shown]
    failed = status_failed(universe, result.chains) or any(d.severity == ERROR for d in diagnostics)
    return StatusResult(
        listing,
        diagnostics,
        failed,
        {key: f"{r.path}:{r.at()[0]}" for key, r in runtimes.items() if key in shown},
        {key: last[runtime_key(r)] for key, r in runtimes.items() if key in shown and runtime_key(r) in last},
    )


def build_objects(
    objects: list[Obj], load_problems: list[Diagnostic], options: BuildOptions, paths: list[str]
) -> BuildResult:
    """``build`` after loading: for objects that did not come from files (``omerender krm``)."""
    result = resolve_inputs(objects, load_problems, options)
    universe = result.universe
    from omerender.lifecycle.lock import default_path
    from omerender.lifecycle.settle import Lifecycle

    result.lifecycle = Lifecycle.load(
        options.lock_file or default_path(paths), options.keep_last_good, options.roll_forward, options.run_budget()
    )
    result.lifecycle.start(result)
    with collector_paused():
        for key in sorted(universe.isvcs):
            rendered = render_isvc(result, universe.isvcs[key])
            result.diagnostics.extend(kube_validate.diagnostics(universe.isvcs[key], rendered, options.kube_version))
            result.objects.extend(rendered)
    result.objects.sort(key=object_order)
    result.diagnostics = sorted_unique(result.diagnostics)
    return result


def _load_options(options: BuildOptions) -> LoadOptions:
    """What loading takes from the build's options: files given as settings are never read as manifests."""
    import os

    given = (options.model_metadata, options.controller_config, options.lock_file)
    skip = frozenset(os.path.realpath(path) for path in given if path and path != "-")
    return LoadOptions(namespace=options.namespace, budget=options.run_budget(), skip=skip)


def options_from(settings: Settings, **rest: Any) -> BuildOptions:
    """The core's options from the run's settings, made in this one place; ``rest`` are the command's own
    (the resolved Kubernetes version, a lock file chosen by the command, roll-forward keys)."""
    fields: dict[str, Any] = {
        "namespace": settings.namespace,
        "max_file_bytes": settings.max_file_size,
        "validate": settings.validate,
        "lock_file": settings.lock_file,
        "model_metadata": settings.model_metadata,
        "controller_config": settings.controller_config,
        "fail_empty_input": settings.fail_empty_input,
        "keep_last_good": settings.keep_last_good,
    }
    return BuildOptions(**{**fields, **rest})
