"""Rendered pod specs the Kubernetes API server would reject, caught at render time.

The spec warns that a merged chain can produce what Kubernetes rejects only when the controller
creates the workload: a request raised above an inherited limit, and a volume, env var or probe
that ends up with two kinds of source or handler. Duplicate or invalid names (containers,
volumes, ports, objects) fail the same way. (A mount of a volume the pod lacks is
``verify.serving.checks.volumes``'s.) Each finding is an error located where the
offending value was written, naming the source (runtime or InferenceService) of each side; an
``$(VAR)`` no env entry defines is a warning, as Kubernetes leaves it unexpanded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from omerender import codes
from omerender.diagnostics import ERROR, WARNING, Diagnostic, field_path
from omerender.load.obj import Obj
from omerender.names import LABEL_RULE, SUBDOMAIN_RULE, is_dns_label, is_dns_subdomain
from omerender.ome import CONFIG_FIELD
from omerender.render import quantity
from omerender.render.context import Context
from omerender.verify.provenance import Blame, Place, get, sides

CONTAINER_LISTS = ("containers", "initContainers")
PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
PROBE_HANDLERS = ("exec", "httpGet", "tcpSocket", "grpc")
LIFECYCLE_HANDLERS = ("exec", "httpGet", "tcpSocket", "sleep")
ENV_SOURCES = ("configMapKeyRef", "secretKeyRef", "fieldRef", "resourceFieldRef", "fileKeyRef")
OVERCOMMITTABLE = ("cpu", "memory", "ephemeral-storage")
PORT_RULE = (
    "must be no more than 15 characters, contain only lower case alphanumeric characters or '-', contain at least one "
    "letter, and not start, end or have two '-' in a row"
)
PORT_NAME = re.compile(r"^(?=.{1,15}$)(?=.*[a-z])[a-z0-9]+(-[a-z0-9]+)*$")
ENV_REF = re.compile(r"\$\$|\$\(([A-Z_][A-Z0-9_]*)\)")  # lower-case $(cmd) in a script is shell, not an env var
REJECTS = "Kubernetes rejects the pod"
# Kubernetes' env var name rule since RelaxedEnvironmentVariableValidation (on by default from 1.32, GA in 1.34):
# not empty, printable ASCII only, no '='. Older releases asked for a C identifier with '-' and '.'; both refuse a
# name holding a line break or a control character, which is what could break a log line or a table.
ENV_NAME = re.compile(r"^[ -<>-~]+$")
ENV_NAME_RULE = "a valid environment variable name must consist only of printable ASCII characters other than '='"


def pod_specs(obj: dict[str, Any]) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """(path, pod spec) of every pod template in a rendered workload."""
    spec = obj.get("spec")
    if not isinstance(spec, dict) or ("template" not in spec and "leaderWorkerTemplate" not in spec):
        return []
    paths = (
        ("spec", "template", "spec"),
        ("spec", "leaderWorkerTemplate", "leaderTemplate", "spec"),
        ("spec", "leaderWorkerTemplate", "workerTemplate", "spec"),
    )
    return [(path, pod) for path in paths if isinstance(pod := get(obj, path), dict)]


def _port_where(path: tuple[Any, ...], index: int) -> str:
    """Where a port is, for a message (most ports have nothing wrong, so it is not written ahead)."""
    return f"{field_path(path)}.ports[{index}]"


# What the LeaderWorkerSet controller adds to every container of its pods (LWS's API constants LwsLeaderAddress,
# LwsGroupSize, LwsWorkerIndex in leaderworkerset_types.go): a $(VAR) naming one is defined there.
LWS_INJECTED = frozenset({"LWS_LEADER_ADDRESS", "LWS_GROUP_SIZE", "LWS_WORKER_INDEX"})


class PodCheck:
    def __init__(
        self, blame: Blame, path: tuple[Any, ...], pod: dict[str, Any], injected: frozenset[str] = frozenset()
    ) -> None:
        self.blame, self.path, self.pod = blame, path, pod
        self.injected = injected  # env vars the workload's controller adds to every container
        self.found: list[Diagnostic] = []
        self._places: dict[str, list[Place]] = {}
        self.host_ports: set[tuple[Any, Any, Any]] = set()

    def places(self, container: str) -> list[Place]:
        """Where the sources write ``container``; looked up only once something is wrong."""
        if container not in self._places:
            self._places[container] = self.blame.container_places(container)
        return self._places[container]

    def error(self, place: Place | None, message: str, code: str) -> None:
        self.found.append(self.blame.at(place, ERROR, message, code))

    def containers(self) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
        for field in CONTAINER_LISTS:
            for i, c in enumerate(self.pod.get(field) or []):
                if isinstance(c, dict):
                    yield (*self.path, field, i), c

    def run(self) -> list[Diagnostic]:
        self.names()
        self.volumes()
        for path, container in self.containers():
            name = str(container.get("name", ""))
            self.resources(path, name, container)
            self.env(path, name, container)
            self.handlers(path, name, container)
            self.ports(path, name, container)
        return self.found

    def names(self) -> None:
        seen: set[str] = set()
        for path, container in self.containers():
            name = str(container.get("name", ""))
            if name in seen:
                places = self.places(name)
                self.error(
                    places[0] if places else None,
                    f'container "{name}" is defined twice in the pod ({sides(places)}); {REJECTS} '
                    f'({field_path(path)}.name: Duplicate value: "{name}")',
                    codes.DUPLICATE_CONTAINER,
                )
            seen.add(name)
            if name and not is_dns_label(name):
                places = self.places(name)
                self.error(
                    places[0] if places else None,
                    f'container name "{name}" set by {sides(places)} is not valid; {REJECTS} ({field_path(path)}.name: '
                    f'Invalid value: "{name}": {LABEL_RULE})',
                    codes.INVALID_NAME,
                )

    def volumes(self) -> None:
        seen: set[str] = set()
        for i, volume in enumerate(self.pod.get("volumes") or []):
            if not isinstance(volume, dict):
                continue
            name = str(volume.get("name", ""))
            kinds = [k for k in volume if k != "name" and volume[k] is not None]
            valid = bool(name) and is_dns_label(name)
            if name not in seen and valid and len(kinds) <= 1:
                seen.add(name)
                continue
            path = field_path((*self.path, "volumes", i))
            places = self.blame.volume_places(name)
            first = places[0] if places else None
            if name in seen:
                self.error(
                    first,
                    f'volume "{name}" is defined twice in the pod ({sides(places)}, or OME\'s model volume); {REJECTS} '
                    f'({path}.name: Duplicate value: "{name}")',
                    codes.DUPLICATE_VOLUME,
                )
            seen.add(name)
            if name and not valid:
                self.error(
                    first,
                    f'volume name "{name}" set by {sides(places)} is not valid; {REJECTS} ({path}.name: Invalid value: '
                    f'"{name}": {LABEL_RULE})',
                    codes.INVALID_NAME,
                )
            if len(kinds) > 1:
                self.two_kinds(
                    f'volume "{name}"',
                    kinds,
                    places,
                    f"{path}: may not specify more than 1 volume type",
                    "change it in the parent, or give the child's volume a new name and mount that",
                )

    def two_kinds(self, what: str, kinds: list[str], places: list[Place], rejection: str, advice: str) -> None:
        parts, winner = [], None
        for kind in kinds:
            setters = Blame.setters(places, (kind,))
            parts.append(f"{kind} (from {sides(setters[:1])})")
            if setters and (winner is None or self.blame.rank(setters[0].source) < self.blame.rank(winner.source)):
                winner = setters[0]
        listed = ", ".join(parts[:-1]) + " and " + parts[-1]
        message = f"{what} has both {listed} after merging; {REJECTS} ({rejection}); {advice}"
        self.error(winner, message, codes.MERGED_TWO_KINDS)

    def resources(self, path: tuple[Any, ...], name: str, container: dict[str, Any]) -> None:
        requests = get(container, ("resources", "requests")) or {}
        limits = get(container, ("resources", "limits")) or {}
        if not isinstance(requests, dict) or not isinstance(limits, dict):
            return
        for key in sorted(set(requests) & set(limits)):
            if requests[key] == limits[key]:
                continue
            try:
                request, limit = quantity.parse(requests[key]), quantity.parse(limits[key])
            except (ValueError, TypeError, ArithmeticError):
                continue
            exact = key not in OVERCOMMITTABLE and not key.startswith("requests.")
            if (request == limit) if exact else (request <= limit):
                continue
            req_by = Blame.setters(self.places(name), ("resources", "requests", key))
            lim_by = Blame.setters(self.places(name), ("resources", "limits", key))
            relation = "different from" if exact else "above"
            rule = (
                f"must be equal to {key} limit of {limits[key]}"
                if exact
                else f"must be less than or equal to {key} limit of {limits[key]}"
            )
            message = (
                f"container {name}: requests.{key} {requests[key]} (set by {sides(req_by[:1])}) is {relation} "
                f"limits.{key} {limits[key]} (set by {sides(lim_by[:1])}); requests and limits merge by key, so set "
                "both; "
                f'{REJECTS} ({field_path(path)}.resources.requests: Invalid value: "{requests[key]}": {rule})'
            )
            self.error(req_by[0] if req_by else None, message, codes.REQUEST_ABOVE_LIMIT)

    def env(self, path: tuple[Any, ...], name: str, container: dict[str, Any]) -> None:
        env = [e for e in container.get("env") or [] if isinstance(e, dict)]
        for i, item in enumerate(env):
            var = str(item.get("name", ""))
            if not ENV_NAME.match(var):
                places = self.blame.item_places(name, "env", var)
                shown = json.dumps(var)
                self.error(
                    places[0] if places else None,
                    f"env var name {shown} of container {name} is not valid; {REJECTS} "
                    f"({field_path(path)}.env[{i}].name: Invalid value: {shown}: {ENV_NAME_RULE})",
                    codes.INVALID_NAME,
                )
            raw = item.get("valueFrom")
            value_from: dict[str, Any] = raw if isinstance(raw, dict) else {}
            kinds = (["value"] if item.get("value") not in (None, "") else []) + (["valueFrom"] if value_from else [])
            inner = [k for k in ENV_SOURCES if value_from.get(k) is not None]
            if len(kinds) > 1 or len(inner) > 1:
                places = self.blame.item_places(name, "env", var)
                where = f"{field_path(path)}.env[{i}].valueFrom"
                if len(kinds) > 1:
                    self.two_kinds(
                        f"env var {var} of container {name}",
                        kinds,
                        places,
                        f'{where}: Invalid value: "": may not be specified when `value` is not empty',
                        "change it in the parent, or give the child's env var a new name",
                    )
                else:
                    sub = [Place(p.source, (*p.keys, "valueFrom")) for p in places]
                    self.two_kinds(
                        f"env var {var} of container {name}",
                        inner,
                        sub,
                        f"{where}: may not have more than one field specified at a time",
                        "change it in the parent, or give the child's env var a new name",
                    )
        if container.get("envFrom"):
            return  # names may come from a ConfigMap or Secret omerender cannot see
        self.references(name, container, env)

    def references(self, name: str, container: dict[str, Any], env: list[dict[str, Any]]) -> None:
        """``$(VAR)`` that Kubernetes leaves as text. Linear: each env entry is known from its index on,
        and each distinct reference is located (a walk of the sources) once."""
        first: dict[str, int] = {}
        for index, item in enumerate(env):
            first.setdefault(str(item.get("name")), index)
        texts: list[tuple[str, int]] = []  # (text, how many env entries precede it)
        for field in ("command", "args"):
            texts += [(t, len(env)) for t in container.get(field) or [] if isinstance(t, str)]
        texts += [(item["value"], i) for i, item in enumerate(env) if isinstance(item.get("value"), str)]
        reported: set[tuple[str, bool]] = set()
        for text, before in texts:
            if "$(" not in text:
                continue
            for m in ENV_REF.finditer(text):
                var = m.group(1)
                if var is None or first.get(var, len(env)) < before or (var in self.injected and var not in first):
                    continue
                late = var in first
                if (var, late) in reported:
                    continue
                reported.add((var, late))
                if late:
                    message = (
                        f"container {name}: $({var}) refers to env var {var}, which env defines only after this entry; "
                        f"Kubernetes expands only earlier entries and leaves the text $({var}) as it is"
                    )
                else:
                    message = (
                        f"container {name}: $({var}) refers to an env var no env entry defines; Kubernetes leaves the "
                        f"text $({var}) as it is"
                    )
                self.found.append(self.blame.text_at(f"$({var})", WARNING, message, codes.UNDEFINED_ENV_REF))

    def handlers(self, path: tuple[Any, ...], name: str, container: dict[str, Any]) -> None:
        checks = [(p, get(container, (p,)), PROBE_HANDLERS, "handler type") for p in PROBES]
        checks += [
            (f"lifecycle.{h}", get(container, ("lifecycle", h)), LIFECYCLE_HANDLERS, "handler type")
            for h in ("postStart", "preStop")
        ]
        for field, probe, handlers, noun in checks:
            if not isinstance(probe, dict):
                continue
            kinds = [h for h in handlers if probe.get(h) is not None]
            if len(kinds) > 1:
                sub = tuple(field.split("."))
                here = [Place(p.source, p.keys + sub) for p in self.places(name)]
                rejection = f"{field_path(path)}.{field}.{kinds[1]}: Forbidden: may not specify more than 1 {noun}"
                self.two_kinds(
                    f"{field} of container {name}",
                    kinds,
                    here,
                    rejection,
                    "a child cannot remove its parent's check, so change it in the parent",
                )

    def port_place(self, container: str, port: dict[str, Any]) -> list[Place]:
        return self.blame.item_places(container, "ports", port.get("containerPort"))

    def ports(self, path: tuple[Any, ...], name: str, container: dict[str, Any]) -> None:
        names: dict[str, dict[str, Any]] = {}
        keys: set[tuple[Any, Any]] = set()
        for i, port in enumerate(container.get("ports") or []):
            if not isinstance(port, dict):
                continue
            label = port.get("name")
            if isinstance(label, str) and label in names:
                mine, theirs = self.port_place(name, port), self.port_place(name, names[label])
                both = sorted(mine[:1] + theirs[:1], key=lambda p: self.blame.rank(p.source))
                message = (
                    f'container {name}: port name "{label}" is used by containerPort '
                    f"{names[label].get('containerPort')} "
                    f"(set by {sides(theirs[:1])}) and containerPort {port.get('containerPort')} (set by "
                    f"{sides(mine[:1])}); "
                    f'{REJECTS} ({_port_where(path, i)}.name: Duplicate value: "{label}")'
                )
                self.error(both[0] if both else None, message, codes.DUPLICATE_PORT)
            elif isinstance(label, str) and label:
                names[label] = port
                if not PORT_NAME.match(label):
                    found = self.port_place(name, port)
                    self.error(
                        found[0] if found else None,
                        f'container {name}: port name "{label}" set by {sides(found)} is not valid; {REJECTS} '
                        f'({_port_where(path, i)}.name: Invalid value: "{label}": {PORT_RULE})',
                        codes.INVALID_NAME,
                    )
            key = (port.get("containerPort"), port.get("protocol", "TCP"))
            if key in keys:
                found = self.port_place(name, port)
                message = (
                    f"container {name}: containerPort {key[0]}/{key[1]} is listed twice ({sides(found)}); Kubernetes "
                    f'accepts the pod with the warning "{_port_where(path, i)}: duplicate port definition", and '
                    "server-side apply rejects it"
                )
                self.found.append(self.blame.at(found[0] if found else None, WARNING, message, codes.DUPLICATE_PORT))
            keys.add(key)
            host = (port.get("hostPort"), key[1], port.get("hostIP", ""))
            if isinstance(host[0], int) and host[0] > 0:
                if host in self.host_ports:
                    found = self.port_place(name, port)
                    self.error(
                        found[0] if found else None,
                        f"container {name}: hostPort {host[0]}/{host[1]} is used twice in the pod ({sides(found)}); "
                        f'{REJECTS} ({_port_where(path, i)}.hostPort: Duplicate value: "{host[0]}/{host[1]}")',
                        codes.DUPLICATE_PORT,
                    )
                self.host_ports.add(host)


def object_name(isvc: Obj, obj: dict[str, Any]) -> list[Diagnostic]:
    name = str(get(obj, ("metadata", "name")) or "")
    if not name or is_dns_subdomain(name):
        return []
    message = (
        f'{obj.get("kind")} name "{name}" made from InferenceService {isvc.name} is not valid; Kubernetes rejects it '
        f'(metadata.name: Invalid value: "{name}": {SUBDOMAIN_RULE})'
    )
    return [isvc.diag(ERROR, message, "metadata", "name", code=codes.INVALID_NAME)]


def runner_name(ctx: Context, component: str) -> str:
    """The name of the component's main container: the InferenceService's runner name, else the runtime's."""
    for value in (
        get(ctx.body, ("spec", component, "runner", "name")),
        get(ctx.runtime_spec, (CONFIG_FIELD.get(component, ""), "runner", "name")),
    ):
        if isinstance(value, str) and value:
            return value
    return ""


def pod_rejections(ctx: Context, objects: list[dict[str, Any]]) -> list[Diagnostic]:
    """Rejections in one InferenceService's rendered objects, blamed on ``ctx.sources``."""
    found: list[Diagnostic] = []
    for obj in objects:
        found += object_name(ctx.isvc, obj)
        pods = pod_specs(obj)
        if not pods:
            continue
        labels = get(obj, ("metadata", "labels")) or {}
        component = str(labels.get("component", "engine")) if isinstance(labels, dict) else "engine"
        blame = Blame(ctx.sources, component, runner_name(ctx, component))
        injected = LWS_INJECTED if obj.get("kind") == "LeaderWorkerSet" else frozenset()
        for path, pod in pods:
            found += PodCheck(blame, path, pod, injected).run()
    return found
