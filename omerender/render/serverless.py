"""A Serverless component: the Knative ``serving.knative.dev/v1`` Service OME's controller creates.

Mirrors ``createKnativeService``
(``pkg/controller/v1beta1/inferenceservice/reconcilers/knative/ksvc_reconciler.go:60-175``) and
``ReconcileKnativeDeployment`` (``reconcilers/common/deployment_reconciler.go:96-115``) at OME 17b77eda. A
Serverless component gets only this object: no Deployment, component Service, autoscaler or PodDisruptionBudget,
and none of the pod defaults the raw Deployment path adds. Offline the component has no rolled-out revision yet,
so all traffic goes to the latest revision (canary splitting needs one).
"""

from __future__ import annotations

from typing import Any

from omerender.render import companions
from omerender.render.context import Context, labels_and_annotations
from omerender.render.pod_template import component_pod

KNATIVE_API = "serving.knative.dev/v1"
MIN_SCALE = "autoscaling.knative.dev/min-scale"
MAX_SCALE = "autoscaling.knative.dev/max-scale"
CLASS = "autoscaling.knative.dev/class"
KPA = "kpa.autoscaling.knative.dev"
TARGET = "autoscaling.knative.dev/target"
METRIC = "autoscaling.knative.dev/metric"
MANAGED_KSVC_ANNOTATIONS = ("serving.knative.dev/rollout-duration", "serving.knative.openshift.io/enablePassthrough")
TAG_ROUTING = "ome.io/enable-tag-routing"
KNATIVE_SERVICE_PORT = 80  # the port of the Service Knative creates for the route (used by the external Service)


def _number(value: Any) -> str:
    """``fmt.Sprint`` of an int (or a float scale target, printed the Go way)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def knative_service(ctx: Context, component: str, merged: dict[str, Any]) -> list[dict[str, Any]]:
    """The router's RBAC objects (for a router) and the Knative Service, or nothing after an error."""
    name = f"{ctx.name}-{component}"
    pod = component_pod(ctx, component, merged)
    if pod is None:
        return []
    labels, annotations = labels_and_annotations(ctx, component, merged)
    objects: list[dict[str, Any]] = []
    if component == "router":
        objects.extend(companions.router_rbac(name, ctx.namespace, labels))
        pod["serviceAccountName"] = name
    minimum = merged.get("minReplicas")
    annotations[MIN_SCALE] = _number(1 if minimum is None else minimum)
    if merged.get("maxReplicas"):
        annotations[MAX_SCALE] = _number(merged["maxReplicas"])
    annotations.setdefault(CLASS, KPA)
    if merged.get("scaleTarget") is not None:
        annotations[TARGET] = _number(merged["scaleTarget"])
    if merged.get("scaleMetric") is not None:
        annotations[METRIC] = str(merged["scaleMetric"])
    moved = {key: annotations.pop(key) for key in MANAGED_KSVC_ANNOTATIONS if key in annotations}
    latest: dict[str, Any] = {"latestRevision": True, "percent": 100}
    if annotations.get(TAG_ROUTING) == "true":
        latest["tag"] = "latest"
    template_labels = {k: v for k, v in labels.items() if k != companions.VISIBILITY_LABEL}
    companions.pod_labels_from_annotations(labels, annotations)  # after the template's copy, as OME does
    revision: dict[str, Any] = {}
    if merged.get("timeoutSeconds") is not None:
        revision["timeoutSeconds"] = merged["timeoutSeconds"]
        revision["responseStartTimeoutSeconds"] = merged["timeoutSeconds"]
    if merged.get("containerConcurrency") is not None:
        revision["containerConcurrency"] = merged["containerConcurrency"]
    revision.update(pod)
    metadata: dict[str, Any] = {"name": name, "namespace": ctx.namespace, "labels": labels}
    if moved:
        metadata["annotations"] = moved
    objects.append(
        {
            "apiVersion": KNATIVE_API,
            "kind": "Service",
            "metadata": metadata,
            "spec": {
                "template": {"metadata": {"labels": template_labels, "annotations": annotations}, "spec": revision},
                "traffic": [latest],
            },
        }
    )
    return objects
