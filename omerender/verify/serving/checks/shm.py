"""``shm-missing``: a multi-GPU or multi-node engine has shared memory for NCCL.

A container's ``/dev/shm`` is 64 MiB unless the pod shares the host's IPC namespace (``hostIPC``) or mounts a
volume there (an ``emptyDir``, usually ``medium: Memory``, or the host's ``/dev/shm``). NCCL's shared-memory
transport and the engines' own IPC need more as soon as a pod uses more than one GPU or joins a group: the engine
fails with "unhandled system error" or a bus error under load (nccl#525, vllm#1710; vLLM's production stack mounts
20 GiB when tensor parallelism is set; OME fixed three runtimes by hand, #195, #257, #259). A warning: a small
model may run without it.
"""

from __future__ import annotations

from collections.abc import Iterator

from omerender import codes
from omerender.diagnostics import WARNING
from omerender.verify.serving.finding import Check, Finding
from omerender.verify.serving.view import Pod, ServingView

SHM = "/dev/shm"  # noqa: S108 - the path a pod mounts, not a file omerender writes


def _has_shm(pod: Pod) -> bool:
    if pod.spec.get("hostIPC") is True:
        return True
    volumes = {str(v.get("name")): v for v in pod.spec.get("volumes") or [] if isinstance(v, dict)}
    for mount in (pod.container or {}).get("volumeMounts") or []:
        if not isinstance(mount, dict) or str(mount.get("mountPath", "")).rstrip("/") != SHM:
            continue
        volume = volumes.get(str(mount.get("name")))
        if volume is not None and (volume.get("emptyDir") is not None or volume.get("hostPath") is not None):
            return True
    return False


def run(view: ServingView) -> Iterator[Finding]:
    for component in ("engine", "decoder"):
        for pod in view.of(component):
            gpus = pod.gpus or 0
            if (gpus <= 1 and not pod.in_group) or pod.container is None or _has_shm(pod):
                continue
            why = "uses more than one GPU" if gpus > 1 else "is part of a LeaderWorkerSet group"
            part = "" if pod.role == "pod" else f"{pod.role}'s "
            yield Finding(
                codes.SHM_MISSING,
                WARNING,
                f"{pod.where} of runtime {view.runtime}: the pod {why} but has neither hostIPC nor a volume at "
                f"{SHM}, "
                f"so the container gets 64 MiB of shared memory; NCCL and the engine's workers fail with a bus error "
                f"or 'unhandled system error' under load; add a volume with emptyDir: {{medium: Memory}} to the "
                f"{part}volumes and mount it at {SHM}",
                pod.part_place(),
                component,
            )


CHECK = Check((codes.SHM_MISSING,), run)
