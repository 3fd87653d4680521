"""What the API server refuses in a rendered object that no schema says: a container without an image,
names and label values longer than 63 characters, integers outside int32.

``kubernetes-validate``'s schemas leave these to the API server's validation code (``image`` is
optional in the OpenAPI schema, lengths and ``format: int32`` are not checked by JSON Schema), so a
build that passes them would still fail at ``kubectl apply``. Each is an error naming the
InferenceService the object is rendered for and, for a container, where the container comes from.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from omerender import codes
from omerender.diagnostics import ERROR, Diagnostic
from omerender.names import clip
from omerender.render.context import Context
from omerender.verify.provenance import Blame, get, sides
from omerender.verify.rejections import pod_specs, runner_name

INT32 = (-(2**31), 2**31 - 1)
INT32_FIELDS = frozenset(
    {
        "replicas", "minReplicas", "maxReplicas", "containerPort", "hostPort", "port", "targetPort", "nodePort",
        "initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold",
        "averageUtilization", "minAvailable", "maxUnavailable", "maxSurge", "size", "defaultMode", "mode",
        "progressDeadlineSeconds", "revisionHistoryLimit", "minReadySeconds", "stabilizationWindowSeconds",
        "pollingInterval", "cooldownPeriod", "minReplicaCount", "maxReplicaCount", "weight", "priority",
    }
)  # fmt: skip
STRING_MAPS = frozenset({"labels", "annotations"})
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
DNS_1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
LABEL_VALUE_RULE = (
    "a valid label value must be 63 characters or less and must be empty or begin and end with an "
    "alphanumeric character, with '-', '_' or '.' between"
)


def _out_of_range(value: Any) -> list[tuple[tuple[Any, ...], int]]:
    """(path, number) of every int32 field of ``value`` whose integer is outside the int32 range.

    Recursive (rendered objects nest no deeper than their input, which the loader bounds) and typed by
    ``type(...) is``, as this walks every rendered object: a path is built only for a number out of range.
    Labels and annotations are string maps (a number there is a type error, not an int32 field).
    """
    found: list[tuple[tuple[Any, ...], int]] = []
    _walk(value, [], found)
    return found


def _walk(current: Any, where: list[Any], found: list[tuple[tuple[Any, ...], int]]) -> None:
    """``_out_of_range``'s walk; a module function, as a recursive closure is a cycle the paused collector keeps."""
    low, high = INT32
    items = current.items() if type(current) is dict else enumerate(current)
    for key, item in items:
        kind = type(item)
        if kind is int:
            if (item < low or item > high) and key in INT32_FIELDS and type(current) is dict:
                found.append(((*where, key), item))
        elif (kind is dict and key not in STRING_MAPS) or kind is list:
            where.append(key)
            _walk(item, where, found)
            where.pop()


def _dotted(path: tuple[Any, ...]) -> str:
    return "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path).lstrip(".")


def _object_problems(ctx: Context, obj: dict[str, Any]) -> Iterator[str]:
    kind, name = str(obj.get("kind", "")), str(get(obj, ("metadata", "name")) or "")
    if kind == "Service" and name and not (len(name) <= 63 and DNS_1035.match(name)):
        yield (
            f'Service name "{clip(name)}" ({len(name)} characters) rendered for InferenceService {ctx.isvc.name} is '
            "not a DNS-1035 label of at most 63 characters; the API server rejects it: shorten the InferenceService "
            "name"
        )
    for path, number in _out_of_range(obj):
        if not INT32[0] <= number <= INT32[1]:
            yield (
                f"{kind} {clip(name)}: {_dotted(path)} is {clip(number)}, outside the int32 range the API server "
                f"accepts ([{INT32[0]}, {INT32[1]}])"
            )


def _blame(ctx: Context, obj: dict[str, Any]) -> Blame:
    labels = get(obj, ("metadata", "labels")) or {}
    component = str(labels.get("component", "engine")) if isinstance(labels, dict) else "engine"
    return Blame(ctx.sources, component, runner_name(ctx, component))


def _images(ctx: Context, obj: dict[str, Any]) -> Iterator[Diagnostic]:
    for path, pod in pod_specs(obj):
        for field in ("containers", "initContainers"):
            for i, container in enumerate(pod.get(field) or []):
                if not isinstance(container, dict) or container.get("image"):
                    continue
                blame = _blame(ctx, obj)  # only for a container without an image, a rare find
                name = str(container.get("name", ""))
                places = blame.container_places(name)
                message = (
                    f"container {clip(name)} of {obj.get('kind')} {get(obj, ('metadata', 'name'))} "
                    f"({_dotted((*path, field, i))}) has no image: set it in {sides(places, 'or')} "
                    f"(rendered for InferenceService {ctx.isvc.name}); the API server rejects a container without one"
                )
                yield blame.at(places[0] if places else None, ERROR, message, codes.MISSING_IMAGE)


@lru_cache(maxsize=4096)
def _valid_label_value(text: str) -> bool:
    """Cached: the same few values label every object rendered for one InferenceService and its runtime."""
    return len(text) <= 63 and LABEL_VALUE.match(text) is not None


def _labels(ctx: Context, objects: list[dict[str, Any]]) -> Iterator[str]:
    """One message per invalid label value, however many rendered objects carry it."""
    bad: dict[tuple[str, str], list[str]] = {}
    for obj in objects:
        labels = get(obj, ("metadata", "labels"))
        for key, value in (labels if isinstance(labels, dict) else {}).items():
            text = str(value)
            if not _valid_label_value(text):
                bad.setdefault((str(key), text), []).append(str(obj.get("kind", "")))
    for (key, text), kinds in bad.items():
        yield (
            f'label {key}="{clip(text)}" ({len(text)} characters) on {len(kinds)} object(s) rendered for '
            f"InferenceService {clip(ctx.isvc.name)} ({', '.join(sorted(set(kinds)))}) is not valid: "
            f"{LABEL_VALUE_RULE}; "
            "the API server rejects it"
        )


def apiserver_rejections(ctx: Context, objects: list[dict[str, Any]]) -> list[Diagnostic]:
    """What the API server would refuse in one InferenceService's rendered objects."""
    found = [ctx.isvc.diag(ERROR, m, "metadata", "name", code=codes.APISERVER_REJECTS) for m in _labels(ctx, objects)]
    for obj in objects:
        found.extend(_images(ctx, obj))
        found.extend(
            ctx.isvc.diag(ERROR, message, "metadata", "name", code=codes.APISERVER_REJECTS)
            for message in _object_problems(ctx, obj)
        )
    return found
