"""MultiNode components: the LeaderWorkerSet and the head Service the OME controller creates.

Mirrors ``components/engine.go`` and ``decoder.go`` (leader pod from ``leader``, worker pod from
``worker``), ``reconcilers/lws/lws_reconciler.go`` (``createLWS``) and
``reconcilers/multinode/multinode_reconciler.go`` at OME commit 17b77eda (ome-rendering §3.8).
"""

from __future__ import annotations

from typing import Any

from omerender import codes
from omerender.data import copy
from omerender.diagnostics import ERROR
from omerender.render.companions import component_service, pod_labels_from_annotations
from omerender.render.context import Context, labels_and_annotations
from omerender.render.pod import build_pod

LWS_API = "leaderworkerset.x-k8s.io/v1"
HEAD_LABEL = "ray.io/node-type"
WORKER_DROPPED_ANNOTATIONS = ("prometheus.io/path", "prometheus.io/port", "prometheus.io/scrape")


def lws_name(component_name: str) -> str:
    """``constants.LWSName``: ``lws-`` plus the last 50 characters of the component name."""
    return "lws-" + component_name[-50:]


def _worker_size(merged: dict[str, Any]) -> int:
    worker = merged.get("worker")
    size = worker.get("size") if isinstance(worker, dict) else None
    return size if isinstance(size, int) and not isinstance(size, bool) else 0


def leader_view(merged: dict[str, Any]) -> dict[str, Any]:
    """The leader's pod spec and runner, or the component's own when it has no leader."""
    leader = merged.get("leader")
    if isinstance(leader, dict):
        view: dict[str, Any] = copy(leader)
    else:
        view = {k: copy(v) for k, v in merged.items() if k not in ("leader", "worker")}
    view["worker"] = {"size": _worker_size(merged)}
    return view


def worker_view(merged: dict[str, Any]) -> dict[str, Any]:
    worker = merged.get("worker") or {}
    view = {k: copy(v) for k, v in worker.items() if k != "size"}
    view["worker"] = {"size": _worker_size(merged)}
    return view


def _pod_defaults(pod: dict[str, Any]) -> dict[str, Any]:
    """``lws.setDefaultPodSpec``: the Deployment's pod defaults without the default readiness probe."""
    pod.setdefault("dnsPolicy", "ClusterFirst")
    pod.setdefault("restartPolicy", "Always")
    pod.setdefault("terminationGracePeriodSeconds", 30)
    pod.setdefault("securityContext", {})
    pod.setdefault("schedulerName", "default-scheduler")
    for container in pod.get("containers") or []:
        container.setdefault("terminationMessagePath", "/dev/termination-log")
        container.setdefault("terminationMessagePolicy", "File")
        container.setdefault("imagePullPolicy", "IfNotPresent")
        if container.get("args") == []:
            del container["args"]
    return pod


def render_multinode(ctx: Context, component: str, merged: dict[str, Any]) -> list[dict[str, Any]]:
    """The LeaderWorkerSet and the Service selecting its leader pods, or nothing after an error."""
    name = f"{ctx.name}-{component}"
    if merged.get("worker") is None:
        ctx.problems.append(
            ctx.isvc.diag(
                ERROR,
                f"{component} runs in MultiNode mode (it has a leader) but has no worker: OME's LeaderWorkerSet "
                "builder dereferences the missing worker pod spec and the controller crashes (nil-pointer panic); "
                f"add {component}.worker with a size",
                "spec",
                component,
                code=codes.OME_PANIC,
            )
        )
        return []
    head = build_pod(ctx, component, leader_view(merged))
    worker = build_pod(ctx, component, worker_view(merged), worker=True)
    if head is None or worker is None:
        return []
    labels, annotations = labels_and_annotations(ctx, component, merged)
    head_labels = {**labels, "app": name, HEAD_LABEL: "head"}  # GetRawServiceLabel: the name as is, never truncated
    pod_labels_from_annotations(head_labels, annotations)
    worker_labels = dict(labels)
    pod_labels_from_annotations(worker_labels, annotations)
    worker_annotations = {k: v for k, v in annotations.items() if k not in WORKER_DROPPED_ANNOTATIONS}
    replicas = merged.get("minReplicas")
    lws = {
        "apiVersion": LWS_API,
        "kind": "LeaderWorkerSet",
        "metadata": {
            "name": lws_name(name),
            "namespace": ctx.namespace,
            "labels": dict(labels),
            "annotations": dict(annotations),
        },
        "spec": {
            "replicas": replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else 1,
            "startupPolicy": "LeaderCreated",
            "networkConfig": {"subdomainPolicy": "Shared"},
            "rolloutStrategy": {
                "type": "RollingUpdate",
                "rollingUpdateConfiguration": {"maxUnavailable": 1, "maxSurge": 1},
            },
            "leaderWorkerTemplate": {
                "size": _worker_size(merged) + 1,
                "restartPolicy": "RecreateGroupOnPodRestart",
                "leaderTemplate": {
                    "metadata": {
                        "name": name,
                        "namespace": ctx.namespace,
                        "labels": head_labels,
                        "annotations": dict(annotations),
                    },
                    "spec": _pod_defaults(head),
                },
                "workerTemplate": {
                    "metadata": {
                        "name": name,
                        "namespace": ctx.namespace,
                        "labels": worker_labels,
                        "annotations": worker_annotations,
                    },
                    "spec": _pod_defaults(worker),
                },
            },
        },
    }
    service = component_service(name, ctx.namespace, labels, annotations, head, selector={HEAD_LABEL: "head"})
    return [lws, service]
