"""The Deployment OME's raw reconciler builds around a component's pod (``reconcilers/deployment``, OME 17b77eda)."""

from __future__ import annotations

from typing import Any

from omerender.names import truncate_name
from omerender.render.context import Context, labels_and_annotations


def _container_defaults(container: dict[str, Any]) -> None:
    container.setdefault("terminationMessagePath", "/dev/termination-log")
    container.setdefault("terminationMessagePolicy", "File")
    container.setdefault("imagePullPolicy", "IfNotPresent")
    if container.get("name") == "ome-container" and not container.get("readinessProbe"):
        ports = container.get("ports") or []
        port = ports[0].get("containerPort", 8080) if ports else 8080
        container["readinessProbe"] = {
            "tcpSocket": {"port": port},
            "timeoutSeconds": 1,
            "periodSeconds": 10,
            "successThreshold": 1,
            "failureThreshold": 3,
        }


def deployment(ctx: Context, component: str, merged: dict[str, Any], pod: dict[str, Any]) -> dict[str, Any]:
    name = f"{ctx.name}-{component}"
    labels, annotations = labels_and_annotations(ctx, component, merged)
    app = truncate_name(name, 63)
    labels["app"] = app
    pod.setdefault("dnsPolicy", "ClusterFirst")
    pod.setdefault("restartPolicy", "Always")
    pod.setdefault("terminationGracePeriodSeconds", 30)
    pod.setdefault("securityContext", {})
    pod.setdefault("schedulerName", "default-scheduler")
    for container in pod["containers"]:
        _container_defaults(container)
    strategy = merged.get("deploymentStrategy")
    if (
        not isinstance(strategy, dict)
        or not strategy
        or (strategy.get("type", "RollingUpdate") == "RollingUpdate" and not strategy.get("rollingUpdate"))
    ):
        strategy = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": ctx.namespace, "labels": labels, "annotations": annotations},
        "spec": {
            "selector": {"matchLabels": {"app": app}},
            "strategy": strategy,
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600,
            "template": {
                "metadata": {
                    "name": name,
                    "namespace": ctx.namespace,
                    "labels": dict(labels),
                    "annotations": dict(annotations),
                },
                "spec": pod,
            },
        },
    }
