"""How an InferenceService is reached: the external Service, an Ingress, or what OME cannot build.

Mirrors OME 17b77eda: the ingress mode choice (``inferenceservice/controller.go:371-415``), the strategy factory
(``reconcilers/ingress/factory/reconciler_factory.go:31-43``), the early return when ingress creation is disabled
(``reconcilers/ingress/reconciler.go:60-75``) and the external Service reconciler (``controller.go:419-423``).
"""

from __future__ import annotations

from typing import Any

from omerender import codes
from omerender.diagnostics import ERROR, INFO
from omerender.render import companions, ingress, modes, serverless
from omerender.render.context import Context


def _entry_mode(ctx: Context, chosen: dict[str, str]) -> str:
    spec = ctx.body["spec"]
    for component in ("router", "decoder"):
        if spec.get(component) is not None and component in chosen:
            return chosen[component]
    return chosen.get("engine", modes.RAW)


def component_host_problem(ctx: Context, component: str, meta: dict[str, Any]) -> str | None:
    """``createRawURL`` (``reconcilers/raw/raw_kube_reconciler.go:66-80``): every RawDeployment component's host
    is generated, whether or not ingress is created, and a bad one stops the component."""
    try:
        ingress.domain_name(f"{ctx.name}-{component}", ctx.namespace, meta, ctx.ingress)
    except ingress.HostError as exc:
        return f"failed to create RawKubeReconciler for {component}: {exc}"
    return None


def exposure(ctx: Context, chosen: dict[str, str], objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The external Service, or the Ingress, for ``ctx``'s InferenceService; problems go to ``ctx.problems``."""
    annotations = (ctx.body.get("metadata") or {}).get("annotations") or {}
    config = ingress.resolve(ctx.ingress, annotations)
    services = {o["metadata"]["name"]: o for o in objects if o["kind"] == "Service" and o["apiVersion"] == "v1"}
    for knative in (o for o in objects if o["apiVersion"] == serverless.KNATIVE_API):
        # Knative's route Service of the same name, once the ksvc is ready: GetTargetServicePort reads its port
        placeholder = {"spec": {"ports": [{"port": serverless.KNATIVE_SERVICE_PORT}]}}
        services.setdefault(knative["metadata"]["name"], placeholder)
    if config.disable_creation:
        external = companions.external_service(ctx.name, ctx.namespace, ctx.body, services)
        return [] if external is None else [external]
    mode = _entry_mode(ctx, chosen)
    if mode not in (modes.RAW, modes.MULTI_NODE, modes.SERVERLESS):
        message = (
            f"fails to reconcile ingress: failed to get ingress strategy for deployment mode {mode}: "
            f"unsupported deployment mode: {mode}"
        )
        ctx.problems.append(ctx.isvc.diag(ERROR, message, "metadata", code=codes.INGRESS_ERROR))
        return []
    if mode == modes.SERVERLESS:
        message = (
            "ingress creation is enabled and the entry component is Serverless: OME's ServerlessStrategy creates an "
            "Istio VirtualService and an ExternalName Service, and deletes them again on the next reconcile "
            "(reconcilers/ingress/strategies/serverless_strategy.go:158-165, 223-229); omerender renders neither"
        )
        ctx.problems.append(ctx.isvc.diag(INFO, message, "metadata", code=codes.SERVERLESS_INGRESS))
        return []
    if config.enable_gateway_api:
        message = (
            "enableGatewayAPI: OME's HTTPRoute path cannot produce working routes: with omeIngressGateway unset "
            "(as shipped) splitting it on '/' and taking [1] panics (reconcilers/ingress/builders/"
            "httproute_builder.go:361,379); with it set, the top-level and router routes wait for the PredictorReady "
            "and RoutesReady conditions that engine/router components never set, and the engine route targets a "
            "Service named like the InferenceService, which exists only when ingress creation is disabled; "
            "omerender does not render HTTPRoutes"
        )
        ctx.problems.append(ctx.isvc.diag(ERROR, message, "metadata", code=codes.GATEWAY_API_UNSUPPORTED))
        return []
    try:
        return [ingress.kube_ingress(ctx.name, ctx.namespace, ctx.body, config)]
    except ingress.HostError as exc:
        ctx.problems.append(ctx.isvc.diag(ERROR, str(exc), "metadata", code=codes.INGRESS_ERROR))
        return []
