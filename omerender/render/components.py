"""Everything the OME controller creates for one InferenceService once its runtime is resolved.

The order follows ``controller.go``: the model ConfigMap, then each component (engine, decoder,
router) in the workload its deployment mode selects, then the external Service.
"""

from __future__ import annotations

from typing import Any

from omerender import codes, ome
from omerender.diagnostics import ERROR, INFO, WARNING, Diagnostic, has_errors
from omerender.load.obj import Obj
from omerender.render import accelerators, companions, exposure, finetuned, modelconfig, modes
from omerender.render.context import Context, labels_and_annotations
from omerender.render.deployment import deployment as build_deployment
from omerender.render.multinode import render_multinode
from omerender.render.pod import merge_component
from omerender.render.pod_template import component_pod
from omerender.render.serverless import knative_service
from omerender.resolve.index import Universe

NOT_RENDERED = {
    # still in OME 17b77eda: constants.go:443, components/engine.go:158-159, reconcilers/multinodevllm/
    modes.RAY_VLLM: "RayClusters <component>-<i>, prober Deployments <component>-<i>-mnp and a Ray Service "
    "(reconcilers/multinodevllm/ray.go:42-64, multinodeprober_reconciler.go:59-160)",
}


def model_config_refusal(isvc: Obj, body: dict[str, Any], universe: Universe) -> Diagnostic | None:
    """The error of OME's first reconcile step, the model ConfigMap (``controller.go:194-198``), if it fails.

    It looks the model up by ``spec.model.kind``, unlike every later step; no ``spec.model``, no step.
    """
    ref = body["spec"].get("model")
    if not isinstance(ref, dict) or not ref.get("name"):
        return None
    model, _, error = modelconfig.entry(ref, isvc.namespace, universe)
    if model is not None:
        return None
    hint = ""
    if ref.get("kind") not in (ome.BASE_MODEL, finetuned.KIND) and str(error).startswith("failed to get base model"):
        hint = " (set spec.model.kind: BaseModel for a namespaced BaseModel)"
    return isvc.diag(ERROR, f"{error}{hint}", "spec", "model", code=codes.MODEL_CONFIG_ERROR)


def _model_config(ctx: Context, universe: Universe) -> dict[str, Any] | None:
    """The ConfigMap step looks the model up by ``spec.model.kind``, unlike every later step."""
    ref = ctx.body["spec"].get("model") or {}
    model, weight, _ = modelconfig.entry(ref, ctx.namespace, universe)
    if model is None:
        refusal = model_config_refusal(ctx.isvc, ctx.body, universe)
        ctx.problems.extend([] if refusal is None else [refusal])
        return None
    name, spec, weight_spec = model.name, model.spec, None if weight is None else weight.spec
    text = ctx.once("models.json", model, weight, lambda: modelconfig.models_json(name, spec, weight_spec))
    return modelconfig.model_config(ctx.name, ctx.namespace, text)


def _autoscaler(
    ctx: Context,
    name: str,
    labels: dict[str, str],
    base_labels: dict[str, str],
    annotations: dict[str, str],
    merged: dict[str, Any],
) -> list[dict[str, Any]]:
    klass = companions.autoscaler_class(annotations)
    if klass == "hpa":
        return [companions.hpa(name, ctx.namespace, labels, annotations, merged)]
    if klass == "keda":
        keda = ctx.body["spec"].get("kedaConfig")
        return [
            companions.scaled_object(
                name, ctx.namespace, base_labels, annotations, merged, keda if isinstance(keda, dict) else {}
            )
        ]
    if klass == "external":
        return []
    own = (ctx.body.get("metadata") or {}).get("annotations") or {}
    message = (
        f"[{klass}] is not a supported autoscaler class type"
        if own.get(ome.AUTOSCALER_CLASS) == klass
        else f"unknown autoscaler class type: {klass}"
    )
    ctx.locate(f"{klass}", ERROR, message, codes.AUTOSCALER_CLASS_CODE)
    return []


def _raw(ctx: Context, component: str, merged: dict[str, Any]) -> list[dict[str, Any]]:
    """Deployment, Service, HPA or ScaledObject, PDB; the router's RBAC objects come first."""
    name = f"{ctx.name}-{component}"
    pod = component_pod(ctx, component, merged)
    if pod is None:
        return []
    base_labels, annotations = labels_and_annotations(ctx, component, merged)
    problem = exposure.component_host_problem(ctx, component, {"annotations": annotations, "labels": base_labels})
    if problem is not None:
        ctx.problems.append(ctx.isvc.diag(ERROR, problem, "spec", component, code=codes.INGRESS_ERROR))
        return []
    objects: list[dict[str, Any]] = []
    if component == "router":
        objects.extend(companions.router_rbac(name, ctx.namespace, base_labels))
        pod["serviceAccountName"] = name
        if len(merged.get("config") or {}) > 1:
            message = (
                f"router config becomes env vars {', '.join(sorted(merged['config']))}; OME appends them in Go map "
                "order, which varies between reconciles, and omerender sorts them"
            )
            ctx.problems.append(ctx.isvc.diag(INFO, message, "spec", "router", code=codes.ROUTER_CONFIG_ORDER))
    deployment = build_deployment(ctx, component, merged, pod)
    labels = deployment["metadata"]["labels"]
    companions.pod_labels_from_annotations(labels, annotations)
    deployment["spec"]["template"]["metadata"]["labels"] = dict(labels)
    objects.append(deployment)
    objects.append(companions.component_service(name, ctx.namespace, labels, annotations, pod))
    objects.extend(_autoscaler(ctx, name, labels, base_labels, annotations, merged))
    budget = companions.pdb(name, ctx.namespace, labels, annotations, merged)
    if "minAvailable" in budget["spec"] and "maxUnavailable" in budget["spec"]:
        ctx.locate(
            "minAvailable",
            WARNING,
            f"{component} sets both minAvailable and maxUnavailable; OME copies both into PodDisruptionBudget {name}, "
            "which Kubernetes rejects (only one may be set)",
            codes.PDB_BOTH_BOUNDS,
        )
    objects.append(budget)
    return objects


def _resolve_accelerators(ctx: Context, universe: Universe) -> bool:
    """Each engine/decoder's AcceleratorClass into ``ctx.accelerators``; False after OME's error."""
    classes = accelerators.cluster_classes(universe)
    named = bool((ctx.body["spec"].get("runtime") or {}).get("name"))
    for component in ("engine", "decoder"):
        if ctx.body["spec"].get(component) is None:
            continue
        outcome = accelerators.resolve(ctx.body, ctx.runtime_spec, ctx.model.spec, named, component, classes)
        if outcome.error is not None:
            ctx.problems.append(ctx.isvc.diag(ERROR, outcome.error, "spec", code=codes.ACCELERATOR_CLASS_ERROR))
            return False
        if outcome.crash is not None:
            ctx.problems.append(ctx.isvc.diag(ERROR, outcome.crash, *outcome.where, code=codes.OME_PANIC))
            return False
        if outcome.undecided is not None:
            ctx.problems.append(
                ctx.isvc.diag(ERROR, outcome.undecided, *outcome.where, code=codes.ACCELERATOR_POLICY_NOT_EMULATED)
            )
            return False
        found = outcome.found
        if found is not None:
            ctx.accelerators[component] = found
        message = f"{component} runs on AcceleratorClass {found.name}" if found is not None else ""
        if outcome.how:
            message = (
                f"{message} ({outcome.how})"
                if message
                else f"{component} runs without an AcceleratorClass: {outcome.how}"
            )
        if message:
            ctx.problems.append(ctx.isvc.diag(INFO, message, "spec", component, code=codes.ACCELERATOR_CLASS))
    return True


def render_all(ctx: Context, universe: Universe) -> list[dict[str, Any]]:
    """All objects for ``ctx``'s InferenceService; problems go to ``ctx.problems``."""
    config_map = _model_config(ctx, universe)  # controller.go:194-198, before any other step
    if config_map is None:
        return []
    findings = accelerators.accelerator_findings(ctx.isvc, ctx.body, ctx.runtime_name, ctx.runtime_spec, ctx.model.name)
    ctx.problems.extend(findings)
    if has_errors(findings) or not _resolve_accelerators(ctx, universe):
        return []
    ctx.finetuned, refused = finetuned.resolve(ctx.body, universe)
    if refused is not None:
        ctx.problems.append(ctx.isvc.diag(ERROR, refused, "spec", "model", code=codes.FINE_TUNED_WEIGHT_ERROR))
        return []
    if ctx.finetuned is not None:
        message = (
            f"fine-tuned serving of {ctx.finetuned.name}: OME's pod webhook adds the fine-tuned-adapter init container "
            "to each Pod at creation (pkg/webhook/admission/pod/fine_tuned_adapter_injector.go:113-134); it is not in "
            "the Deployment OME creates, so it is not rendered"
        )
        ctx.problems.append(ctx.isvc.diag(INFO, message, "spec", "model", code=codes.FINE_TUNED_ADAPTER))
        if ctx.finetuned.strategy is None:
            message = (
                f"FineTunedWeight {ctx.finetuned.name} has no hyperParameters.strategy: OME's ProcessBaseAnnotations "
                "then "
                "returns no annotations, so the engine's objects carry none (not even the InferenceService's)"
            )
            ctx.problems.append(ctx.isvc.diag(WARNING, message, "spec", "model", code=codes.FINE_TUNED_NO_STRATEGY))
    merged = {c: merge_component(ctx, c) for c in ome.COMPONENTS}
    chosen, error = modes.component_modes(merged)
    if error:
        ctx.problems.append(ctx.isvc.diag(ERROR, error, "spec", code=codes.DEPLOYMENT_MODE_ERROR))
        return []
    objects: list[dict[str, Any]] = [config_map]
    for component in ome.COMPONENTS:
        spec, mode = merged[component], chosen.get(component)
        if spec is None or mode is None:
            continue
        ctx.problems.append(
            ctx.isvc.diag(INFO, f"{component} deployment mode: {mode}", "spec", component, code=codes.DEPLOYMENT_MODE)
        )
        if mode == modes.RAW:
            objects.extend(_raw(ctx, component, spec))
        elif mode == modes.MULTI_NODE and component != "router":
            objects.extend(render_multinode(ctx, component, spec))
        elif mode == modes.SERVERLESS and component != "decoder":
            objects.extend(knative_service(ctx, component, spec))
        elif mode in NOT_RENDERED:
            ctx.problems.append(
                ctx.isvc.diag(
                    ERROR,
                    f"{component} component uses deployment mode {mode}, for which OME creates {NOT_RENDERED[mode]}; "
                    "omerender renders RawDeployment, MultiNode and Serverless components only",
                    "spec",
                    component,
                    code=codes.UNSUPPORTED_DEPLOYMENT_MODE,
                )
            )
        else:
            ctx.problems.append(
                ctx.isvc.diag(
                    ERROR,
                    f"invalid deployment mode for {component}",
                    "spec",
                    component,
                    code=codes.DEPLOYMENT_MODE_ERROR,
                )
            )
    objects.extend(exposure.exposure(ctx, chosen, objects))
    return objects
