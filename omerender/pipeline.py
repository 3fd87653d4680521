"""From input paths to rendered objects, runtime status and diagnostics: the core's one entry point."""

from __future__ import annotations

import dataclasses
import functools
import gc
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from omerender import codes, ome
from omerender.admission import annotations as metadata_checks
from omerender.admission import defaults as admission
from omerender.admission import validate
from omerender.diagnostics import ERROR, INFO, WARNING, Diagnostic, has_errors, sorted_unique
from omerender.fanout import parse_in_workers
from omerender.lifecycle.lock import default_path, last_chains, read
from omerender.lifecycle.settle import Lifecycle
from omerender.load import controller_config
from omerender.load.obj import Obj
from omerender.load.reader import LoadResult, ParseMany, empty_inputs, load
from omerender.load.roots import only_searched
from omerender.load.serving_rules import ServingPolicy
from omerender.load.unlisted import LeftOut
from omerender.render import modes
from omerender.resolve.index import Universe, index, runtime_key
from omerender.resolve.inherit import resolve_all
from omerender.resolve.missing import names_missing
from omerender.resolve.status import status_failed, status_list
from omerender.resolve.unused import spared, unused
from omerender.result import BuildOptions, BuildResult, Manifest, Resolved, StatusResult
from omerender.selection.lookup import find_model, find_runtime
from omerender.verify import lints

WORKLOAD_KINDS = ("Deployment", "LeaderWorkerSet")


def object_order(obj: dict[str, Any]) -> tuple[int, str, str, str]:
    """Workloads first (engine Deployments lead), then by kind, namespace and name."""
    meta = obj.get("metadata") or {}
    kind = str(obj.get("kind", ""))
    workload = kind in WORKLOAD_KINDS or obj.get("apiVersion") == "serving.knative.dev/v1"  # a Knative Service too
    return (0 if workload else 1, kind, str(meta.get("namespace", "")), str(meta.get("name", "")))


def _model_config_first(universe: Universe, isvc: Obj, body: dict[str, Any], model: Obj | None) -> Diagnostic | None:
    """The model-config step's error when OME would report it rather than the model or runtime step's.

    OME's reconcile ends at its first step, the model ConfigMap (controller.go:194-198), before its model lookup
    (:217-223) and runtime checks (:225-261), so that step's error is the one it reports. When both it and the lookup
    fail on the same missing base model, the lookup's error (same cause, with a did-you-mean) is kept. A
    VirtualDeployment returns before either (controller.go:171-173).
    """
    from omerender.render import components, finetuned

    if modes.isvc_mode(body["metadata"].get("annotations")) == modes.VIRTUAL:
        return None
    refusal = components.model_config_refusal(isvc, body, universe)
    served_weight = (body["spec"].get("model") or {}).get("kind") == finetuned.KIND
    return refusal if refusal is not None and (model is not None or served_weight) else None


def render_isvc(result: Resolved, isvc: Obj) -> list[Manifest]:
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
    if has_errors(notes):
        return []
    model, problem = find_model(universe, isvc, body)
    first = _model_config_first(universe, isvc, body, model)
    virtual = modes.isvc_mode(body["metadata"].get("annotations")) == modes.VIRTUAL
    if model is None:
        assert problem is not None
        if first is not None:
            result.diagnostics.append(first)
            return []
        result.diagnostics.append(problem)
        result.diagnostics.extend(result.lifecycle.without_model(universe, result.chains, isvc, body))
        return []
    if virtual:
        result.diagnostics.append(
            isvc.diag(
                INFO,
                "ome.io/deploymentMode is VirtualDeployment: "
                "OME creates nothing for this InferenceService and marks it Ready",
                "metadata",
                "annotations",
                ome.DEPLOYMENT_MODE,
                code=codes.VIRTUAL_DEPLOYMENT,
            )
        )
        return []
    lookup = find_runtime(universe, result.chains, result.once, isvc, model, body)
    if lookup.crashed:
        result.diagnostics.extend(lookup.diagnostics if first is None else [first])
        return []
    settled = result.lifecycle.settle(universe, result.chains, isvc, body, lookup)  # recorded for effective and lock
    if first is not None:
        result.diagnostics.append(first)
        return []
    result.diagnostics.extend(settled.diagnostics)
    found = settled.found
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
            "the InferenceService's deployment mode resolves to Serverless (deploy.defaultDeploymentMode): OME's "
            "controller "
            "only checks that Knative Serving is installed (controller.go:541-556) and still picks each component's "
            "workload from the component itself (utils/deployment.go:12-34)"
        )
        result.diagnostics.append(isvc.diag(INFO, message, "metadata", code=codes.SERVERLESS_DEFAULT))
    from omerender.render import components  # here: tree and status never render (start-up)
    from omerender.render.context import Context
    from omerender.verify import apiserver, rejections
    from omerender.verify.serving import checking as serving

    sources = (isvc, *reversed(chain.runtimes))
    ctx = Context(isvc, body, model, runtime.name, spec, sources, ingress=result.controller.ingress, once=result.once)
    objects = components.render_all(ctx, result.universe)
    result.diagnostics.extend(rejections.pod_rejections(ctx, objects))
    result.diagnostics.extend(apiserver.apiserver_rejections(ctx, objects))
    result.diagnostics.extend(serving.check(ctx, objects, result.universe, result.serving))
    result.diagnostics.extend(ctx.problems)
    return objects


def parse_many(options: BuildOptions) -> ParseMany | None:
    """How a run with ``options`` parses many inputs: in ``options.parse_jobs`` processes, or one by one."""
    if options.parse_jobs <= 1:
        return None
    return functools.partial(parse_in_workers, count=options.parse_jobs)


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


def build(
    paths: list[str],
    options: BuildOptions,
    stdin: Callable[..., bytes] = lambda: b"",
    skip: frozenset[str] = frozenset(),
) -> BuildResult:
    """Everything rendered in this process, whole; ``skip``: more resolved files not to read (``diff``: the other
    side's files a search path reaches)."""
    with collector_paused():
        loaded = load_paths(paths, options, stdin, skip)
        result = build_objects(loaded.objects, loaded.diagnostics, options, paths)
    return checked_inputs(result, loaded, paths, options)


def load_paths(
    paths: list[str], options: BuildOptions, stdin: Callable[..., bytes], skip: frozenset[str] = frozenset()
) -> LoadResult:
    """Every object of ``paths`` (the settings files left out), in as many processes as ``options`` allow."""
    skip = settings_files(options) | skip
    return load(paths, options.namespace, options.run_budget(), stdin, skip=skip, parse_many=parse_many(options))


Built = TypeVar("Built", bound=Resolved)


def checked_inputs(result: Built, loaded: LoadResult, paths: list[str], options: BuildOptions) -> Built:
    """``result`` told which inputs could not be read (a partial universe) and which PATHS held no OME object; an
    error in a runtime only a search path holds and nothing under the PATHS uses is a warning (``resolve.unused``)."""
    result.load_errors = [d for d in loaded.diagnostics if d.severity == ERROR]
    empty = empty_inputs(paths, loaded.objects, loaded.diagnostics, ERROR if options.fail_empty_input else WARNING)
    diagnostics = result.diagnostics
    if options.search_paths:
        owned = only_searched(list(options.search_paths), list(options.paths))
        diagnostics = spared(diagnostics, loaded.objects, result.universe, lambda obj: not owned(obj))
        result.lent = owned
    result.diagnostics = sorted_unique(diagnostics + empty)
    return result


def spare_unused(result: Resolved, objects: list[Obj], owned: Callable[[Obj], bool]) -> frozenset[str]:
    """``result``'s errors in what only a search path holds (not ``owned``) and nothing owned uses made warnings, as
    ``build`` makes them (``resolve.unused``); returns the keys of those runtimes, whose chains may stay broken."""
    why = unused(objects, result.universe, owned)
    result.diagnostics = spared(result.diagnostics, objects, result.universe, owned, why)
    return frozenset(runtime_key(runtime) for runtime in result.universe.all_runtimes() if why(runtime))


def resolve_inputs(
    objects: list[Obj],
    load_problems: list[Diagnostic],
    options: BuildOptions,
    lifecycle: Callable[[], Lifecycle] = Lifecycle,
    paths: Sequence[str] = (),
) -> Resolved:
    """Everything before rendering: the overlay, the lock (``lifecycle``), input validation, the index and
    every chain, whose errors the lifecycle words (``--keep-last-good``). When an object names one the index
    lacks, or auto-selection finds no runtime, the files the kustomizations under ``paths`` leave out are looked
    through (``load.unlisted``)."""
    if options.model_metadata:
        from omerender.load.metadata import apply_overlay

        load_problems = [*load_problems, *apply_overlay(options.model_metadata, objects, options.run_budget())]
    settles = lifecycle()  # the lock is read after the overlay, as the run's budget has always counted them
    checked = validate.check_inputs(objects, mode=options.validate)
    checked.diagnostics.extend(metadata_checks.metadata_problems(objects))
    universe, duplicates = index(checked.kept)
    universe.rejected = checked.rejected
    if paths:  # read only when a lookup misses: now if a name is missing, before any worker process is forked
        universe.unlisted = LeftOut(list(paths), options.run_budget(), options.namespace)
        if names_missing(universe):
            universe.unlisted.objects()
    chains, profile_problems = resolve_all(universe)
    chain_problems = settles.chain_problems(universe, chains) + profile_problems
    result = Resolved(universe, chains, lifecycle=settles)
    result.controller, config_problems = controller_config.select(
        objects, options.controller_config, options.max_file_bytes, options.namespace
    )
    result.diagnostics.extend(load_problems + checked.diagnostics + duplicates + chain_problems + config_problems)
    result.diagnostics.extend(settles.problems)
    result.serving, rule_problems = serving_policy(options)
    result.diagnostics.extend(rule_problems)
    result.diagnostics.extend(lints.runtime_lints(universe, chains))
    return result


def serving_policy(options: BuildOptions) -> tuple[ServingPolicy, list[Diagnostic]]:
    """How the serving checks run: the serving-checks setting, and the settings file's exemptions and severities."""
    if options.serving_rules is None:
        return ServingPolicy(options.serving_checks, gpu_memory=options.gpu_memory), []
    from omerender.load import serving_rules

    policy, problems = serving_rules.read(options.serving_rules, options.serving_checks)
    return dataclasses.replace(policy, gpu_memory=options.gpu_memory), problems


def status(
    paths: list[str],
    options: BuildOptions,
    stdin: Callable[..., bytes] = lambda: b"",
    listed: Callable[[Obj], bool] = lambda _obj: True,
) -> StatusResult:
    """Runtime status of every runtime ``listed`` accepts (others, from a --search-path, only resolve).

    A broken chain shows the last chain that resolved, from the lock file, as OME's status keeps it.
    """
    with collector_paused():
        loaded = load(paths, options.namespace, options.run_budget(), stdin, skip=settings_files(options))
    result = resolve_inputs(loaded.objects, loaded.diagnostics, options, paths=paths)
    lock, _, lock_problems = read(options.lock_file or default_path(paths), options.run_budget())
    diagnostics = result.diagnostics + lock_problems
    universe = result.universe
    if options.search_paths:  # as build: an error only a search path's unused runtime holds is a warning
        diagnostics = spared(diagnostics, loaded.objects, universe, listed)
    diagnostics = sorted_unique(diagnostics)
    last = last_chains(lock, universe.all_runtimes())
    listing = status_list(universe, result.chains, last, listed)
    runtimes = {(r.namespace or "", r.kind, r.name): r for r in universe.all_runtimes()}
    shown = {key for key, r in runtimes.items() if listed(r)}
    failed = status_failed(universe, result.chains, listed) or has_errors(diagnostics)
    return StatusResult(
        listing,
        diagnostics,
        failed,
        {key: f"{r.path}:{r.at()[0]}" for key, r in runtimes.items() if key in shown},
        {key: last[runtime_key(r)] for key, r in runtimes.items() if key in shown and runtime_key(r) in last},
    )


def render_slice(result: Resolved, keys: Sequence[tuple[str, str]], kube_version: str | None) -> list[Manifest]:
    """The objects of the InferenceServices ``keys`` in output order; their diagnostics go to ``result``."""
    from omerender.verify import kube_schema as kube_validate

    universe = result.universe
    objects: list[Manifest] = []
    with collector_paused():
        for key in keys:
            rendered = render_isvc(result, universe.isvcs[key])
            result.diagnostics.extend(kube_validate.diagnostics(universe.isvcs[key], rendered, kube_version))
            objects.extend(rendered)
    objects.sort(key=object_order)
    return objects


def resolve_build(
    objects: list[Obj], load_problems: list[Diagnostic], options: BuildOptions, paths: list[str]
) -> Resolved:
    """``resolve_inputs`` with the lifecycle the lock file holds (``options.lock_file``, else beside ``paths``)."""

    def lifecycle() -> Lifecycle:
        path = options.lock_file or default_path(paths)
        return Lifecycle.load(path, options.keep_last_good, options.roll_forward, options.run_budget(), options.relock)

    return resolve_inputs(objects, load_problems, options, lifecycle, paths)


def render_all(resolved: Resolved, kube_version: str | None) -> BuildResult:
    """Every InferenceService of ``resolved`` rendered in this process."""
    result = BuildResult.of(resolved, render_slice(resolved, sorted(resolved.universe.isvcs), kube_version))
    result.diagnostics = sorted_unique(result.diagnostics)
    return result


def build_objects(
    objects: list[Obj], load_problems: list[Diagnostic], options: BuildOptions, paths: list[str]
) -> BuildResult:
    """``build`` after loading: for objects that did not come from files (``omerender krm``)."""
    return render_all(resolve_build(objects, load_problems, options, paths), options.kube_version)


def settings_files(options: BuildOptions) -> frozenset[str]:
    """The files given as settings (model metadata, controller config, lock), resolved: never read as manifests."""
    given = (options.model_metadata, options.controller_config, options.lock_file)
    return frozenset(os.path.realpath(path) for path in given if path and path != "-")
