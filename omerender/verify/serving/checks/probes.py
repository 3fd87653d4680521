"""``probe-target``: a probe reaches the server: its port (a number, or a name among the container's ports) is the
port the server listens on (``--port``, else the engine's default: SGLang and its router 30000, vLLM 8000), the
server listens on more than the loopback address, and an HTTP probe's path is one the program serves.

Paths are flagged only when known wrong: a path that only another program serves (``engines.WRONG_PATHS``: the
router's ``/liveness`` and ``/readiness`` on an engine, SGLang's paths on vLLM). A probe on the wrong port or path
never succeeds: a startup probe keeps restarting the container until its threshold, a readiness probe keeps the
pod out of its Service, a liveness probe restarts a working server (kube-linter's ``liveness-port``, OME #34 and
#113). SGLang in ``--grpc-mode`` serves gRPC on its port, so its HTTP probes are not read; a server under a root
path (``--fastapi-root-path``, ``--root-path``) has its paths unchecked.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from omerender import codes
from omerender.diagnostics import ERROR
from omerender.verify.provenance import Place
from omerender.verify.serving.engines import SERVED_BY, WRONG_PATHS, Engine
from omerender.verify.serving.finding import Check, Finding
from omerender.verify.serving.launch import Launch
from omerender.verify.serving.view import Pod, ServingView

PROBES = ("startupProbe", "readinessProbe", "livenessProbe")
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
WHAT_FAILS = {
    "startupProbe": "the kubelet restarts the container when the startup probe's threshold runs out, so it never "
    "starts",
    "readinessProbe": "the pod never becomes Ready and its Service never sends it a request",
    "livenessProbe": "the kubelet restarts the working container again and again",
}


def _port(container: dict[str, Any], given: Any) -> int | None:
    """A probe's port as a number: a number, or the containerPort of the container's port of that name."""
    if isinstance(given, int) and not isinstance(given, bool):
        return given
    if isinstance(given, str):
        if given.isdigit():
            return int(given)
        for port in container.get("ports") or []:
            if isinstance(port, dict) and port.get("name") == given and isinstance(port.get("containerPort"), int):
                return int(port["containerPort"])
    return None


def _probe_place(pod: Pod, probe: str, *sub: str) -> Place | None:
    return pod.setter(probe, *sub) or pod.setter(probe)


def _added_by_ome(pod: Pod, probe: str) -> bool:
    """OME's Deployment gives ome-container a TCP readiness probe on its first port when it has none
    (reconcilers/deployment/deployment_reconciler.go, setDefaultPodSpec)."""
    return probe == "readinessProbe" and pod.setter(probe) is None


def _port_findings(view: ServingView, pod: Pod, launch: Launch, container: dict[str, Any]) -> Iterator[Finding]:
    listens = launch.number("port")
    if listens is None:
        return
    for probe in PROBES:
        spec = container.get(probe)
        if not isinstance(spec, dict):
            continue
        for handler in ("httpGet", "tcpSocket", "grpc"):
            target = spec.get(handler)
            if not isinstance(target, dict) or target.get("host"):
                continue
            if handler == "httpGet" and _grpc(launch):
                continue
            given = target.get("port")
            port = _port(container, given)
            default = "" if launch.given("port") else f" (the {launch.engine} default)"
            if port is None and isinstance(given, str):
                message = (
                    f"{pod.where} of runtime {view.runtime}: {probe} uses port name {given!r}, which no port of "
                    f"container {pod.container_name} has; the kubelet cannot resolve it and the probe always "
                    f"fails: {WHAT_FAILS[probe]}; use port {listens}, where {launch.engine} listens{default}"
                )
                yield Finding(codes.PROBE_TARGET, ERROR, message, _probe_place(pod, probe, handler, "port"),
                              pod.component)  # fmt: skip
            elif port is not None and port != listens:
                ome = " (OME adds it: the first containerPort)" if _added_by_ome(pod, probe) else ""
                message = (
                    f"{pod.where} of runtime {view.runtime}: {probe} {handler} targets port {port}{ome} but "
                    f"{launch.engine} listens on {listens}{default}; the probe never connects: {WHAT_FAILS[probe]}; "
                    f"probe port {listens} or start the server with --port {port}"
                )
                place = _probe_place(pod, probe, handler, "port") if not ome else pod.setter("ports")
                yield Finding(codes.PROBE_TARGET, ERROR, message, place or pod.option_place("port"), pod.component)


def _host_findings(view: ServingView, pod: Pod, launch: Launch, container: dict[str, Any]) -> Iterator[Finding]:
    host = launch.text("host")
    probes = [
        p
        for p in PROBES
        if isinstance(container.get(p), dict) and not _probed_in_pod(container[p]) and not _added_by_ome(pod, p)
    ]  # the probes written in the inputs (OME's default TCP probe is checked for its port only)
    if host is None or host not in LOOPBACK or not probes:
        return
    default = "" if launch.given("host") else f" (the {launch.engine} default)"
    yield Finding(
        codes.PROBE_TARGET,
        ERROR,
        f"{pod.where} of runtime {view.runtime}: {launch.engine} listens on {host}{default}, the loopback address, "
        f"so the kubelet's {', '.join(probes)} and every other pod cannot reach it: {WHAT_FAILS[probes[0]]}; "
        "start it with --host 0.0.0.0",
        pod.option_place("host") or pod.setter("command") or pod.setter("args"),
        pod.component,
    )


def _grpc(launch: Launch) -> bool:
    """SGLang in --grpc-mode (or perhaps: unknown) serves gRPC on its port, not HTTP."""
    return launch.engine is Engine.SGLANG and launch.flag("grpc_mode") is not False


def _probed_in_pod(probe: dict[str, Any]) -> bool:
    """An exec probe runs inside the container, where the loopback address works."""
    return "exec" in probe or any(isinstance(probe.get(h), dict) and probe[h].get("host") for h in ("httpGet",))


def _path_findings(view: ServingView, pod: Pod, launch: Launch, container: dict[str, Any]) -> Iterator[Finding]:
    wrong = WRONG_PATHS.get(launch.engine)
    if not wrong or _grpc(launch) or launch.text("root_path") != "":
        return
    for probe in PROBES:
        target = (container.get(probe) or {}).get("httpGet") if isinstance(container.get(probe), dict) else None
        if not isinstance(target, dict) or not isinstance(target.get("path"), str):
            continue
        path = target["path"].split("?", 1)[0].rstrip("/") or "/"
        if path in wrong:
            message = (
                f"{pod.where} of runtime {view.runtime}: {probe} asks for {path}, which {SERVED_BY[path]} serves and "
                f"{launch.engine} does not (404): {WHAT_FAILS[probe]}; probe /health"
            )
            yield Finding(codes.PROBE_TARGET, ERROR, message, _probe_place(pod, probe, "httpGet", "path"),
                          pod.component)  # fmt: skip


def run(view: ServingView) -> Iterator[Finding]:
    for pod in view.pods:
        launch, container = pod.launch, pod.container
        if launch is None or container is None or not any(p in container for p in PROBES):
            continue
        yield from _port_findings(view, pod, launch, container)
        yield from _host_findings(view, pod, launch, container)
        if launch.engine is not Engine.ROUTER:
            yield from _path_findings(view, pod, launch, container)


CHECK = Check((codes.PROBE_TARGET,), run)
