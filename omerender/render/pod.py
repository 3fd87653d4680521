"""Build a component's pod and Deployment the way the OME controller does (RawDeployment mode)."""

from __future__ import annotations

from typing import Any, cast

from omerender import codes
from omerender.data import copy
from omerender.diagnostics import ERROR, WARNING
from omerender.load.obj import Obj
from omerender.names import cluster_model_label, namespaced_model_label
from omerender.ome import BASE_MODEL as BM
from omerender.ome import CONFIG_FIELD
from omerender.render import finetuned
from omerender.render.accelerators import apply_to_runner
from omerender.render.context import Context, labels_and_annotations
from omerender.render.placeholders import PlaceholderProblem, fill
from omerender.render.quantity import canonical_resources
from omerender.resolve.merge import is_unset, lay_over, merge

EXTENSION_FIELDS = frozenset(
    {
        "minReplicas",
        "maxReplicas",
        "scaleTarget",
        "scaleMetric",
        "containerConcurrency",
        "timeoutSeconds",
        "canaryTrafficPercent",
        "labels",
        "annotations",
        "minAvailable",
        "maxUnavailable",
        "deploymentStrategy",
        "kedaConfig",
    }
)
NOT_POD_FIELDS = EXTENSION_FIELDS | {"runner", "leader", "worker", "acceleratorOverride", "config"}
GPU = "nvidia.com/gpu"


def merge_component(ctx: Context, component: str) -> dict[str, Any] | None:
    """OME's Merge{Engine,Decoder,Router}Spec: runtime config laid under the InferenceService's component."""
    own = ctx.body["spec"].get(component)
    if own is None:
        return None
    config = ctx.runtime_spec.get(CONFIG_FIELD[component])
    if not isinstance(config, dict) or not config:
        return cast(dict[str, Any], copy(own))
    base = {k: v for k, v in config.items() if k != "acceleratorOverride"}
    if isinstance(own, dict) and own.keys() <= EXTENSION_FIELDS:
        return _merge_shared(ctx, base, own)
    merged: dict[str, Any] = merge(base, own)
    runner = own.get("runner") if isinstance(own, dict) else None
    if isinstance(runner, dict) and not runner.get("name") and isinstance(merged.get("runner"), dict):
        merged["runner"]["name"] = ""
        ctx.problems.append(
            ctx.isvc.diag(
                ERROR,
                f"spec.{component}.runner has no name: OME's merge then replaces the runtime's runner name with "
                f'"" and the pod gets a container without a name, which Kubernetes rejects; '
                f"set runner.name to the runtime's ({(config.get('runner') or {}).get('name', '')})",
                "spec",
                component,
                "runner",
                code=codes.RUNNER_WITHOUT_NAME,
            )
        )
    return merged


def _merge_shared(ctx: Context, base: dict[str, Any], own: dict[str, Any]) -> dict[str, Any]:
    """``merge(base, own)`` for an InferenceService component that sets only extension fields (replicas, labels,
    ...): those are merged into copies as ``merge`` does, while the pod fields and runner are the runtime's own,
    shared and read only (``ctx.shared_specs`` records it; ``build_pod`` copies them before changing them)."""
    merged = {k: copy(v) if k in EXTENSION_FIELDS else v for k, v in base.items()}
    for key, value in own.items():
        if is_unset(value):
            continue
        current = merged.get(key)
        merged[key] = merge(current, value) if isinstance(current, dict) and isinstance(value, dict) else copy(value)
    ctx.shared_specs[id(merged)] = merged
    return merged


def _upsert_env(env: list[dict[str, Any]], name: str, value: str, *, overwrite: bool) -> None:
    for item in env:
        if item.get("name") == name:
            if overwrite:
                item.clear()
                item.update({"name": name, "value": value})
            return
    env.append({"name": name, "value": value})


def _gpus(resources: dict[str, Any]) -> int:
    for part in ("limits", "requests"):
        value = (resources.get(part) or {}).get(GPU)
        if value is not None:
            try:
                return int(str(value))
            except ValueError:
                return 0
    return 0


def _model_label(model: Obj) -> str:
    if model.kind == BM:
        return namespaced_model_label(model.namespace, model.name)
    return cluster_model_label(model.name)


def _prepare_runner(
    ctx: Context, component: str, merged: dict[str, Any], runner: dict[str, Any], worker: bool = False
) -> None:
    """The steps OME applies to the runner alone: model env and mount, fallback resources, PARALLELISM_SIZE."""
    path = (ctx.model.spec.get("storage") or {}).get("path")
    ft = ctx.finetuned if component != "router" else None
    annotations = labels_and_annotations(ctx, component, merged)[1] if component != "router" else {}
    original = finetuned.original_model_mount_needed(annotations)
    if component != "router" and path and original and ft is None:
        _upsert_env(runner.setdefault("env", []), "MODEL_PATH", str(path), overwrite=False)
    if component != "router" and path and original:
        runner.setdefault("volumeMounts", []).append({"name": ctx.model.name, "mountPath": str(path), "readOnly": True})
    runner_from_runtime(ctx, component, merged, runner, worker, annotations)


def runner_from_runtime(
    ctx: Context,
    component: str,
    merged: dict[str, Any],
    runner: dict[str, Any],
    worker: bool,
    annotations: dict[str, str],
) -> None:
    """The runner steps after the model's env and mount: fine-tuned weights, fallback resources, the
    AcceleratorClass or PARALLELISM_SIZE, the router's config."""
    own_runner = (ctx.body["spec"].get(component) or {}).get("runner") or {}
    ft = ctx.finetuned if component != "router" else None
    if ft is not None:
        finetuned.runner_env_and_mounts(ft, ctx.model.spec.get("vendor"), runner, annotations)
    if component != "router" and not (
        (own_runner.get("resources") or {}).get("requests") or (own_runner.get("resources") or {}).get("limits")
    ):
        for container in ctx.runtime_spec.get("containers") or []:
            if isinstance(container, dict) and container.get("name") == runner.get("name"):
                resources = runner.setdefault("resources", {})
                for part in ("requests", "limits"):
                    for key, value in ((container.get("resources") or {}).get(part) or {}).items():
                        resources.setdefault(part, {}).setdefault(key, value)
    resolved = ctx.accelerators.get(component)  # a worker's too: reconcileWorkerPodSpec, engine.go:327-333
    if resolved is not None:
        user_set = bool(
            (own_runner.get("resources") or {}).get("requests") or (own_runner.get("resources") or {}).get("limits")
        )
        for note in apply_to_runner(resolved, runner, user_set):
            if not worker:  # said once, for the leader
                ctx.problems.append(ctx.isvc.diag(WARNING, note, "spec", component, code=codes.ACCELERATOR_PARTIAL))
    elif component != "router":  # setParallelismEnvVarForEngine runs only when no class resolved
        gpus = _gpus(runner.get("resources") or {})
        if gpus > 0:
            workers = int(((merged.get("worker") or {}).get("size")) or 0)
            _upsert_env(runner.setdefault("env", []), "PARALLELISM_SIZE", str(gpus * (1 + workers)), overwrite=True)
    if component == "router":
        for key in sorted(merged.get("config") or {}):
            runner.setdefault("env", []).append({"name": key, "value": str(merged["config"][key])})


def _main_container(pod: dict[str, Any], runner: dict[str, Any] | None) -> int:
    """The index of the runner's container, the runner laid over the pod's container of its name (both owned)."""
    containers = pod.setdefault("containers", [])
    if runner is None:
        return 0
    for i, container in enumerate(containers):
        if container.get("name") == runner.get("name"):
            args = list(container.get("args") or []) + list(runner.get("args") or [])
            name = container.get("name")
            lay_over(container, runner)
            if not container.get("name"):
                container["name"] = name
            if args:
                container["args"] = args
            return i
    containers.append(runner)
    return len(containers) - 1


def _placeholder_message(problem: PlaceholderProblem, worker: bool) -> str:
    """OME's own error chain (``podspec_reconciler.go:47-50``, ``engine.go:109-112``) for a template it fails to parse
    or run: the controller's pod-spec step, where every fatal placeholder problem fails the InferenceService."""
    if not problem.fatal:
        return problem.message
    if worker:
        return (
            "failed to reconcile worker pod spec: failed to replace placeholders in worker container: "
            f"{problem.message}"
        )
    return f"failed to reconcile pod spec: failed to replace placeholders in container: {problem.message}"


def build_pod(ctx: Context, component: str, merged: dict[str, Any], *, worker: bool = False) -> dict[str, Any] | None:
    """The pod spec of ``merged``, a component's merged spec the caller made for this call alone: its pod fields and
    runner become the pod's (changed in place, not copied), and the caller reads only its other fields afterwards.
    A merged spec whose pod fields are the runtime's own (``ctx.shared_specs``) is copied first."""
    if ctx.shared_specs.get(id(merged)) is merged:
        merged = copy(merged)
    pod = {k: v for k, v in merged.items() if k not in NOT_POD_FIELDS}
    runner = merged.get("runner") if isinstance(merged.get("runner"), dict) else None
    if runner is not None:
        _prepare_runner(ctx, component, merged, runner, worker)
    if runner is None and not pod.get("containers"):
        ctx.problems.append(
            ctx.isvc.diag(
                ERROR,
                f"{component}{' worker' if worker else ''} of runtime {ctx.runtime_name}: no containers found in pod "
                "spec and no runner spec provided (neither the runtime's chain nor the InferenceService gives this "
                "component a container or a runner)",
                "spec",
                component,
                code=codes.NO_CONTAINERS,
            )
        )
        return None
    main = _main_container(pod, runner)
    fill_main(ctx, pod, main, worker)
    model_volumes_and_selector(ctx, component, merged, pod)
    for container in [*pod["containers"], *(pod.get("initContainers") or [])]:
        if isinstance(container, dict):
            container["resources"] = go_resources(container.get("resources"))
    return pod


def fill_main(ctx: Context, pod: dict[str, Any], main: int, worker: bool, holes: tuple[str, ...] | None = None) -> None:
    """The InferenceService's placeholders filled in the main container, the pod's own list (``fill``); with
    ``holes``, only in those fields, in order (the others hold none), of a container that is the pod's own."""
    problems: list[PlaceholderProblem] = []
    meta = ctx.body.get("metadata") or {}
    data = {
        "name": ctx.name,
        "namespace": ctx.namespace,
        "labels": meta.get("labels") or {},
        "annotations": meta.get("annotations") or {},
    }
    if holes is None:
        pod["containers"][main] = fill(pod["containers"][main], data, problems)
    else:
        container = pod["containers"][main]
        for key in holes:
            container[key] = fill(container[key], data, problems)
    for problem in problems:
        severity = ERROR if problem.fatal else WARNING
        message = _placeholder_message(problem, worker)
        ctx.locate(problem.action, severity, message, codes.PLACEHOLDER, text=problem.text)


def model_volumes_and_selector(ctx: Context, component: str, merged: dict[str, Any], pod: dict[str, Any]) -> None:
    """The model's volume, the fine-tuned empty dir, the node selector (model label, runtime, class,
    InferenceService) and the class's affinity, set on ``pod``; its ``volumes`` list is changed in place. A
    LeaderWorkerSet's worker pod gets the same as its leader (``reconcileWorkerPodSpec``, engine.go:342-344)."""
    path = (ctx.model.spec.get("storage") or {}).get("path")
    if path:
        pod.setdefault("volumes", []).append({"name": ctx.model.name, "hostPath": {"path": str(path)}})
    annotations = labels_and_annotations(ctx, component, merged)[1] if component != "router" else {}
    if finetuned.empty_dir_needed(annotations) and not any(
        v.get("name") == finetuned.EMPTY_DIR for v in pod.get("volumes") or []
    ):
        pod.setdefault("volumes", []).append({"name": finetuned.EMPTY_DIR, "emptyDir": {"medium": "Memory"}})
    if component != "router" and not (ctx.finetuned is not None and ctx.finetuned.merged):
        selector = dict(pod.get("nodeSelector") or {})
        selector.setdefault(_model_label(ctx.model), "Ready")
        resolved = ctx.accelerators.get(component)
        discovery = (resolved.spec.get("discovery") or {}) if resolved is not None else {}
        selector.update(ctx.runtime_spec.get("nodeSelector") or {})
        selector.update(discovery.get("nodeSelector") or {})  # MergeNodeSelector: runtime, class, InferenceService
        selector.update((ctx.body["spec"].get(component) or {}).get("nodeSelector") or {})
        pod["nodeSelector"] = selector
        if discovery.get("affinity") and (ctx.body["spec"].get(component) or {}).get("affinity") is None:
            pod["affinity"] = copy(discovery["affinity"])  # Update{Engine,Decoder}Affinity replaces it


def go_resources(resources: Any) -> Any:
    """``resources`` as Go writes it: canonical quantities, empty maps dropped (``omitempty``), but the struct
    itself never omitted, so a container without requests or limits shows ``resources: {}``."""
    if resources is None:
        return {}
    if not isinstance(resources, dict):
        return resources
    return {k: v for k, v in canonical_resources(resources).items() if v not in ({}, [], None)}
