"""OME behaviours that are reported rather than hidden: runtime lints, accelerator classes, selection notes.

Each finding is a located Diagnostic. Sources: ome-selection §1.4 (one-sided ``modelSizeRange``
panics), §1.8-1.10 (ranking), §7 (templates), §2.5 of ome-rendering (AcceleratorClass).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from omerender.diagnostics import ERROR, INFO, WARNING, Diagnostic
from omerender.load.reader import Obj
from omerender.render.placeholders import scan
from omerender.render.pod import CONFIG_FIELD
from omerender.resolve.index import Universe
from omerender.resolve.inherit import Chain, parent_name
from omerender.selection import matcher

CONFIGS = tuple(CONFIG_FIELD.values())
ACCELERATOR_ANNOTATION = "ome.io/accelerator-class"
MAX_LISTED_EXCLUSIONS = 10
_LINT_META = {"name": "n", "namespace": "ns", "labels": {}, "annotations": {}}


def _strings(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and "{{" in key:
                yield (*path, key), key
            yield from _strings(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, (*path, i))


def _templated_containers(spec: dict[str, Any]) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Each runner and each pod container merged into a runner: what OME's template pass reads."""
    for config_key in CONFIGS:
        config = spec.get(config_key)
        if not isinstance(config, dict):
            continue
        for part_key in (None, "leader", "worker"):
            part = config if part_key is None else config.get(part_key)
            if not isinstance(part, dict):
                continue
            base = ("spec", config_key) if part_key is None else ("spec", config_key, part_key)
            runner = part.get("runner")
            if isinstance(runner, dict):
                yield (*base, "runner"), runner
            for i, container in enumerate(part.get("containers") or []):
                if (
                    isinstance(container, dict)
                    and isinstance(runner, dict)
                    and container.get("name") == runner.get("name")
                ):
                    yield (*base, "containers", i), container


def template_findings(runtime: Obj) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for base, container in _templated_containers(runtime.spec):
        for path, text in _strings(container, base):
            _, problems = scan(text, _LINT_META)
            fatal = [p for p in problems if p.fatal]
            if fatal:
                where = ".".join(str(k) if isinstance(k, str) else f"[{k}]" for k in path[1:]).replace(".[", "[")
                message = (
                    f"{where} holds {fatal[0].action!r}, which is not a placeholder OME can fill: OME runs this container "
                    f"through Go's html/template, so every InferenceService using runtime {runtime.name} fails with "
                    '"failed to replace placeholders in container"; move the text into a ConfigMap-backed env or file'
                )
                out.append(runtime.diag(WARNING, message, *path, code="runtime-template"))
    return out


def _auto_selecting(universe: Universe) -> bool:
    """Whether some InferenceService in the input names no runtime, so OME's auto-selection runs."""
    return any(not ((isvc.spec.get("runtime") or {}).get("name")) for isvc in universe.isvcs.values())


def size_range_finding(runtime: Obj, chain: Chain | None, auto_selecting: bool = True) -> Diagnostic | None:
    """A one-sided ``modelSizeRange``: an error alone; with the other bound inherited, a hazard only
    for auto-selection (which reads each runtime's own spec), so a warning when an InferenceService
    in the input auto-selects and an informational note otherwise (the spec endorses the pattern)."""
    bounds = runtime.spec.get("modelSizeRange")
    if not isinstance(bounds, dict):
        return None
    missing = [b for b in ("min", "max") if bounds.get(b) is None]
    if len(missing) != 1:
        return None
    merged = (chain.spec or {}).get("modelSizeRange") if chain is not None and chain.ok else None
    completed = isinstance(merged, dict) and all(merged.get(b) is not None for b in ("min", "max"))
    if completed and parent_name(runtime) is not None:
        message = (
            f"modelSizeRange sets no {missing[0]} (the merged chain has both): when OME auto-selects it matches each "
            "runtime's own spec and dereferences both bounds, so auto-selection crashes the controller (nil-pointer "
            "panic) for any model with modelParameterSize whose format this runtime supports"
        )
        return runtime.diag(
            WARNING if auto_selecting else INFO, message, "spec", "modelSizeRange", code="size-range-one-sided"
        )
    message = (
        f"modelSizeRange sets no {missing[0]}: OME's matcher dereferences both bounds, so the controller crashes "
        f"(nil-pointer panic) when it checks a model with modelParameterSize against runtime {runtime.name}; set both"
    )
    return runtime.diag(ERROR, message, "spec", "modelSizeRange", code="size-range-one-sided")


def runtime_lints(universe: Universe, chains: dict[int, Chain]) -> list[Diagnostic]:
    """Per-runtime findings, reported whether or not an InferenceService uses the runtime."""
    out: list[Diagnostic] = []
    auto_selecting = _auto_selecting(universe)
    for runtime in universe.all_runtimes():
        found = size_range_finding(runtime, chains.get(id(runtime)), auto_selecting)
        if found is not None:
            out.append(found)
        out.extend(template_findings(runtime))
    return out


def required_classes(body: dict[str, Any]) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The union of accelerator classes an InferenceService requires, and where each is written."""
    classes: list[str] = []
    where: list[tuple[Any, ...]] = []
    annotations = (body.get("metadata") or {}).get("annotations") or {}
    if annotations.get(ACCELERATOR_ANNOTATION):
        classes.append(str(annotations[ACCELERATOR_ANNOTATION]))
        where.append(("metadata", "annotations", ACCELERATOR_ANNOTATION))
    spec = body.get("spec") or {}
    for keys in (("acceleratorSelector",), ("engine", "acceleratorOverride"), ("decoder", "acceleratorOverride")):
        part: Any = spec
        for key in keys:
            part = part.get(key) if isinstance(part, dict) else None
        if isinstance(part, dict) and part.get("acceleratorClass"):
            classes.append(str(part["acceleratorClass"]))
            where.append(("spec", *keys, "acceleratorClass"))
    return classes, where


def accelerator_findings(
    isvc: Obj, body: dict[str, Any], runtime_name: str, runtime_spec: dict[str, Any], model_name: str
) -> list[Diagnostic]:
    classes, where = required_classes(body)
    selector = (body.get("spec") or {}).get("acceleratorSelector")
    policy = selector.get("policy") if isinstance(selector, dict) else None
    if not classes and not policy:
        return []
    keys = where[0] if where else ("spec", "acceleratorSelector", "policy")
    named = bool(((body.get("spec") or {}).get("runtime") or {}).get("name"))
    wanted = ", ".join(classes) if classes else f"policy {policy}"
    out: list[Diagnostic] = []
    if classes and not matcher.accelerator_compatible(runtime_spec, classes):
        if named:
            message = (
                f"Runtime {runtime_name} does not support model {model_name}: runtime {runtime_name} does not support "
                f"model : {matcher.ACCELERATOR_REASON}"
            )
            out.append(isvc.diag(ERROR, message, *keys, code="RuntimeValidationError"))
        else:
            message = (
                f"OME's auto-selection excludes every runtime whose acceleratorRequirements.acceleratorClasses lacks "
                f"{wanted} ({matcher.ACCELERATOR_REASON}), so it would not select {runtime_name}"
            )
            out.append(isvc.diag(ERROR, message, *keys, code="RuntimeSelectionError"))
    return out


def selection_notes(isvc: Obj, selection: matcher.Selection) -> list[Diagnostic]:
    """Runner-ups and compatible-but-skipped runtimes, as informational notes (shown with ``-v``)."""
    out: list[Diagnostic] = []
    width = len(str(len(selection.ranked)))
    for place, ranked in enumerate(selection.ranked[1:], start=2):
        scope = "ServingRuntime" if ranked.namespaced else "ClusterServingRuntime"
        distance = "" if ranked.size_distance is None else f", size distance {ranked.size_distance:g}"
        out.append(
            isvc.diag(
                INFO,
                f"runner-up #{place:0{width}d}: {scope} {ranked.name} (score {ranked.score:g}{distance})",
                "spec",
                code="runtime-runner-up",
            )
        )
    for name, reason in selection.skipped:
        out.append(
            isvc.diag(INFO, f"{name} is compatible but not considered: {reason}", "spec", code="runtime-skipped")
        )
    if len(selection.excluded) <= MAX_LISTED_EXCLUSIONS:
        for name, reason in selection.excluded:
            out.append(isvc.diag(INFO, f"{name} is excluded: {reason}", "spec", code="runtime-excluded"))
    else:
        out.append(
            isvc.diag(
                INFO,
                f"{len(selection.excluded)} runtimes are excluded as incompatible",
                "spec",
                code="runtime-excluded",
            )
        )
    return out
