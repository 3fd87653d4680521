"""``volume-mount-undefined``: every ``volumeMounts[].name`` is a volume of the same pod template.

The API server validates a pod template's mounts against its own volumes (``volumeMounts[i].name: Not found``), so
a Deployment or the StatefulSet a LeaderWorkerSet makes for its leaders or workers is refused and no pod starts.
LeaderWorkerSet leader and worker templates are separate pods: OME builds the leader pod from ``leader`` alone and
the worker pod from ``worker`` alone (``components/engine.go:269-347``). An API-server rejection, like the others in
``verify``: always an error, whatever ``serving-checks`` says, and no annotation or exemption silences it.
"""

from __future__ import annotations

from collections.abc import Iterator

from omerender import codes
from omerender.diagnostics import ERROR, field_path
from omerender.verify.serving.finding import Check, Finding
from omerender.verify.serving.view import LEADER, WORKER, Pod, ServingView


def _volumes(pod: Pod) -> set[str]:
    return {str(v.get("name")) for v in pod.spec.get("volumes") or [] if isinstance(v, dict)}


def _elsewhere(view: ServingView, pod: Pod, volume: str) -> str:
    """Advice when the other pod of the same LeaderWorkerSet defines the volume."""
    if pod.role not in (LEADER, WORKER):
        return f'define a volume "{volume}" in the pod, or remove the mount'
    other = WORKER if pod.role == LEADER else LEADER
    twin = next((p for p in view.of(pod.component, other) if p.workload is pod.workload), None)
    if twin is None or volume not in _volumes(twin):
        return f'define a volume "{volume}" in the {pod.role} pod, or remove the mount'
    return (
        f"the {other} pod defines it, but OME builds each pod of a group from its own part alone "
        f"(components/engine.go:269-347): add the volume to the {pod.role}'s volumes as well"
    )


def run(view: ServingView) -> Iterator[Finding]:
    for pod in view.pods:
        volumes = _volumes(pod)
        for field in ("containers", "initContainers"):
            for ci, container in enumerate(pod.spec.get(field) or []):
                if not isinstance(container, dict):
                    continue
                reported: set[str] = set()  # each volume once per container
                for mi, mount in enumerate(container.get("volumeMounts") or []):
                    name = mount.get("name") if isinstance(mount, dict) else None
                    if not isinstance(name, str) or not name or name in volumes or name in reported:
                        continue
                    reported.add(name)
                    where = field_path((*pod.path, field, ci, "volumeMounts", mi, "name"))
                    message = (
                        f"{pod.where} pod of runtime {view.runtime}: container {container.get('name')} mounts volume "
                        f'"{name}", which the pod does not define; the API server rejects the '
                        f'{_workload(pod)} ({where}: Not found: "{name}"), so no pod starts; '
                        f"{_elsewhere(view, pod, name)}"
                    )
                    place = pod.item_place(str(container.get("name", "")), "volumeMounts", "mountPath",
                                           mount.get("mountPath"))  # fmt: skip
                    yield Finding(codes.VOLUME_MOUNT_UNDEFINED, ERROR, message, place, pod.component)


def _workload(pod: Pod) -> str:
    if pod.role in (LEADER, WORKER):
        return f"StatefulSet LeaderWorkerSet makes for the {pod.role} pods"
    return str(pod.workload.get("kind", "workload"))


CHECK = Check((codes.VOLUME_MOUNT_UNDEFINED,), run, always=True)
