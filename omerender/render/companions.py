"""The objects the OME controller creates beside a component's workload (ome-rendering §4, §5.4).

Component Service, HorizontalPodAutoscaler or KEDA ScaledObject, PodDisruptionBudget, the external
Service and the router's ServiceAccount, Role and RoleBinding, as
``reconcilers/{service,hpa,keda,pdb,external_service,rbac}`` build them at OME commit
17b77eda. ownerReferences are left out: the InferenceService's UID is unknown offline.
"""

from __future__ import annotations

import re
from typing import Any

from omerender.admission.predictor import controller_predictor_used
from omerender.names import truncate_name
from omerender.ome import AUTOSCALER_CLASS

TARGET_UTILIZATION = "ome.io/targetUtilizationPercentage"
SERVICE_TYPE = "ome.io/service-type"
LOAD_BALANCER_IP = "ome.io/load-balancer-ip"
VISIBILITY_LABEL = "networking.knative.dev/visibility"
SERVICE_TYPES = ("LoadBalancer", "NodePort", "ClusterIP")
POD_ONLY_PREFIXES = (
    "k8s.grafana.com/",
    "loki.grafana.com/",
    "prometheus.io/",
    "networking.gke.io/",
    "rdma.ome.io/",
    "ome.io/inject-model-init",
    "ome.io/inject-fine-tuned-adapter",
    "ome.io/inject-serving-sidecar",
)
EXTERNAL_ANNOTATION_PREFIXES = ("service.beta.kubernetes.io/", "cloud.google.com/", "service.kubernetes.io/")
KEDA_DEFAULT_SERVER = "http://prometheus-operated.monitoring.svc.cluster.local:9090"
KEDA_DEFAULT_QUERY = """sum(
            avg_over_time(vllm:avg_generation_throughput_toks_per_s{ome_io_inferenceservice="%s"}[5m]) < bool 10
        )
        *
        sum(
            rate(vllm:request_success_total{ome_io_inferenceservice="%s"}[1m]) > bool 0.50
        )"""
DEFAULT_PORT = 8080
_GO_INT = re.compile(r"[+-]?[0-9]+")


def meta(
    name: str, namespace: str, labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None
) -> dict[str, Any]:
    """ObjectMeta as Go marshals it: empty label and annotation maps are omitted."""
    out: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        out["labels"] = dict(labels)
    if annotations:
        out["annotations"] = dict(annotations)
    return out


def pod_labels_from_annotations(labels: dict[str, str], annotations: dict[str, str]) -> None:
    """``SetPodLabelsFromAnnotations``: Volcano and Kueue queue labels derived from annotations."""
    if "ome.io/volcano-queue" in annotations:
        labels["volcano.sh/queue-name"] = annotations["ome.io/volcano-queue"]
    elif "ome.io/dedicated-ai-cluster" in annotations:
        dac = annotations["ome.io/dedicated-ai-cluster"]
        if "kueue-enabled" in annotations:
            labels["kueue.x-k8s.io/queue-name"] = dac
            labels["kueue.x-k8s.io/priority-class"] = "kueue-scheduling-high-priority"
        else:
            labels["volcano.sh/queue-name"] = dac
            labels["ray.io/priority-class-name"] = "volcano-scheduling-high-priority"
    if "volcano" in annotations:
        labels["ray.io/scheduler-name"] = "volcano"


def service_annotations(annotations: dict[str, str]) -> dict[str, str]:
    """``FilterPodOnlyAnnotations``: what a component Service keeps of the component annotations."""
    return {k: v for k, v in annotations.items() if not k.startswith(POD_ONLY_PREFIXES)}


def _service_ports(pod: dict[str, Any]) -> list[dict[str, Any]]:
    containers = pod.get("containers") or []
    if not containers:
        return []
    first = containers[0]
    ports = [p for p in first.get("ports") or [] if isinstance(p, dict)]
    if not ports:
        default: dict[str, Any] = {"port": DEFAULT_PORT, "targetPort": DEFAULT_PORT, "protocol": "TCP"}
        if first.get("name"):
            default["name"] = first["name"]
        return [default]
    out = []
    for port in ports:
        number = port.get("containerPort", 0)
        item: dict[str, Any] = {"port": number, "targetPort": number, "protocol": port.get("protocol") or "TCP"}
        if port.get("name"):
            item["name"] = port["name"]
        out.append(item)
    return out


def component_service(
    name: str,
    namespace: str,
    labels: dict[str, str],
    annotations: dict[str, str],
    pod: dict[str, Any],
    selector: dict[str, str] | None = None,
) -> dict[str, Any]:
    """``buildService``: ports from the pod's first container, ``app`` selector unless one is given."""
    kept = service_annotations(annotations)
    spec: dict[str, Any] = {"type": "ClusterIP", "selector": selector or {"app": truncate_name(name, 63)}}
    wanted = kept.get(SERVICE_TYPE)
    if wanted in SERVICE_TYPES:
        spec["type"] = wanted
    ports = _service_ports(pod)
    if ports:
        spec["ports"] = ports
    if spec["type"] == "LoadBalancer" and kept.get(LOAD_BALANCER_IP):
        spec["loadBalancerIP"] = kept[LOAD_BALANCER_IP]
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": meta(truncate_name(name, 63), namespace, labels, kept),
        "spec": spec,
    }


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def autoscaler_class(annotations: dict[str, str]) -> str:
    return str(annotations.get(AUTOSCALER_CLASS, "hpa"))


def hpa(
    name: str, namespace: str, labels: dict[str, str], annotations: dict[str, str], ext: dict[str, Any]
) -> dict[str, Any]:
    """``createHPA``: min at least 1, max at least min, one Resource metric."""
    low = _int(ext.get("minReplicas"), 1)
    low = low if ext.get("minReplicas") is not None and low >= 1 else 1
    high = max(_int(ext.get("maxReplicas"), 0), low)
    if TARGET_UTILIZATION in annotations:
        text = str(annotations[TARGET_UTILIZATION])
        utilization = int(text) if _GO_INT.fullmatch(text) else 0
    elif ext.get("scaleTarget") is not None:
        utilization = _int(ext.get("scaleTarget"), 0)
    else:
        utilization = 80
    metric = {
        "type": "Resource",
        "resource": {
            "name": str(ext.get("scaleMetric") or "cpu"),
            "target": {"type": "Utilization", "averageUtilization": utilization},
        },
    }
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": meta(name, namespace, labels, annotations),
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "minReplicas": low,
            "maxReplicas": high,
            "metrics": [metric],
            "behavior": {},
        },
    }


def go_sprintf_name(template: str, value: str) -> str:
    """``fmt.Sprintf(template, value)`` for the ``%s``/``%%`` verbs a query uses, Go's error forms included."""
    out: list[str] = []
    used = False
    i = 0
    while i < len(template):
        ch = template[i]
        if ch == "%" and i + 1 < len(template):
            verb = template[i + 1]
            if verb == "%":
                out.append("%")
            elif verb in "sv":
                out.append(value if not used else f"%!{verb}(MISSING)")
                used = True
            else:
                out.append(template[i : i + 2])
            i += 2
            continue
        out.append(ch)
        i += 1
    text = "".join(out)
    return text if used else f"{text}%!(EXTRA string={value})"


def scaled_object(
    name: str,
    namespace: str,
    labels: dict[str, str],
    annotations: dict[str, str],
    ext: dict[str, Any],
    keda: dict[str, Any],
) -> dict[str, Any]:
    """``createScaledObject``: labels as they were before ``app`` was added; one prometheus trigger."""
    low = _int(ext.get("minReplicas"), 0)
    low = low if low > 0 else 1
    high = _int(ext.get("maxReplicas"), 0)
    high = high if high > low else low

    def pick(annotation: str, field: str, default: str) -> str:
        if annotation in annotations:
            return str(annotations[annotation])
        return str(keda.get(field) or default)

    if "autoscaling.keda.sh/prometheus.query" in annotations:
        query = str(annotations["autoscaling.keda.sh/prometheus.query"])
    elif keda.get("customPromQuery"):
        query = go_sprintf_name(str(keda["customPromQuery"]), name)
    else:
        query = KEDA_DEFAULT_QUERY.replace("%s", name)
    trigger: dict[str, Any] = {
        "type": "prometheus",
        "metadata": {
            "serverAddress": pick(
                "autoscaling.keda.sh/prometheus.serverAddress", "promServerAddress", KEDA_DEFAULT_SERVER
            ),
            "metricName": str(ext.get("scaleMetric") or "tps"),
            "query": query,
            "threshold": pick("autoscaling.keda.sh/threshold", "scalingThreshold", "10"),
            "operator": pick("autoscaling.keda.sh/operator", "scalingOperator", "LessThanOrEqual"),
        },
    }
    ref = keda.get("authenticationRef")
    if isinstance(ref, dict):
        trigger["authenticationRef"] = {
            "name": str(ref.get("name", "")),
            "kind": str(ref.get("kind") or "TriggerAuthentication"),
        }
        if keda.get("authModes"):
            trigger["metadata"]["authModes"] = str(keda["authModes"])
    kept = {k: v for k, v in labels.items() if k != "k8slens-edit-resource-version"}
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": meta(f"scaledobject-{name[-50:]}", namespace, kept, annotations),
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "minReplicaCount": low,
            "maxReplicaCount": high,
            "triggers": [trigger],
        },
    }


def pdb(
    name: str, namespace: str, labels: dict[str, str], annotations: dict[str, str], ext: dict[str, Any]
) -> dict[str, Any]:
    """``createPDB``: the component's minAvailable/maxUnavailable, else ``maxUnavailable: 1``."""
    spec: dict[str, Any] = {}
    for key in ("minAvailable", "maxUnavailable"):
        if ext.get(key) is not None:
            spec[key] = ext[key]
    if not spec:
        spec["maxUnavailable"] = 1
    spec["selector"] = {"matchLabels": {"app": truncate_name(name, 63)}}
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": meta(name, namespace, labels, annotations),
        "spec": spec,
    }


def external_service(
    isvc_name: str, namespace: str, body: dict[str, Any], services: dict[str, dict[str, Any]], disabled: bool = True
) -> dict[str, Any] | None:
    """The Service named like the InferenceService, when ingress creation is ``disabled`` (the shipped default)."""
    metadata = body.get("metadata") or {}
    annotations = {str(k): str(v) for k, v in (metadata.get("annotations") or {}).items()}
    labels = metadata.get("labels") or {}
    spec = body.get("spec") or {}
    if not disabled or labels.get(VISIBILITY_LABEL) == "cluster-local":
        return None
    predictor = spec.get("predictor")
    predictor_model = isinstance(predictor, dict) and predictor.get("model") is not None
    if spec.get("router") is None and spec.get("engine") is None and not predictor_model:
        return None
    target = "router" if spec.get("router") is not None else "engine"
    selector = {"ome.io/inferenceservice": isvc_name, "component": target}
    if controller_predictor_used(spec):  # determineTargetSelector: a predictor left in place selects every component
        selector = {"ome.io/inferenceservice": isvc_name}
    port = DEFAULT_PORT
    found = services.get(truncate_name(f"{isvc_name}-{target}", 63))
    if found and (found["spec"].get("ports") or []):
        port = found["spec"]["ports"][0]["port"]
    kept = {
        k: v
        for k, v in annotations.items()
        if any(k.startswith(p) and len(k) > len(p) for p in EXTERNAL_ANNOTATION_PREFIXES)
    }
    service_type = annotations.get(SERVICE_TYPE)
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": meta(
            isvc_name, namespace, {"ome.io/inferenceservice": isvc_name, "component": "external-service"}, kept
        ),
        "spec": {
            "selector": selector,
            "ports": [{"name": "http", "port": port, "targetPort": port, "protocol": "TCP"}],
            "type": service_type if service_type in SERVICE_TYPES else "ClusterIP",
        },
    }


def router_rbac(name: str, namespace: str, labels: dict[str, str]) -> list[dict[str, Any]]:
    """``RBACReconciler``: ServiceAccount, Role (pods get/list/watch) and RoleBinding, all named ``<isvc>-router``."""
    return [
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": meta(name, namespace, labels)},
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": meta(name, namespace, labels),
            "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}],
        },
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": meta(name, namespace, labels),
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
            "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": namespace}],
        },
    ]
