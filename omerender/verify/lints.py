"""Runtime lints: OME behaviours reported rather than hidden, found on the runtimes alone.

Each finding is a located Diagnostic. Sources: ome-selection §1.4 (one-sided ``modelSizeRange``
panics), §7 (templates), §2.5 of ome-rendering (AcceleratorClass).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from omerender import codes
from omerender.diagnostics import ERROR, INFO, WARNING, Diagnostic
from omerender.load.obj import Obj
from omerender.names import clip
from omerender.ome import CONFIG_FIELD
from omerender.render.placeholders import scan
from omerender.resolve.index import Universe, runtime_key
from omerender.resolve.inherit import Chain, parent_name

CONFIGS = tuple(CONFIG_FIELD.values())
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
                    f"{clip(where)} holds {clip(fatal[0].action)!r}, which is not a placeholder OME can fill: OME runs "
                    "this container "
                    f"through Go's html/template, so every InferenceService using runtime {runtime.name} fails with "
                    '"failed to replace placeholders in container"; move the text into a ConfigMap-backed env or file'
                )
                out.append(runtime.diag(WARNING, message, *path, code=codes.RUNTIME_TEMPLATE))
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
            WARNING if auto_selecting else INFO, message, "spec", "modelSizeRange", code=codes.SIZE_RANGE_ONE_SIDED
        )
    message = (
        f"modelSizeRange sets no {missing[0]}: OME's matcher dereferences both bounds, so the controller crashes "
        f"(nil-pointer panic) when it checks a model with modelParameterSize against runtime {runtime.name}; set both"
    )
    return runtime.diag(ERROR, message, "spec", "modelSizeRange", code=codes.SIZE_RANGE_ONE_SIDED)


def runtime_lints(universe: Universe, chains: dict[str, Chain]) -> list[Diagnostic]:
    """Per-runtime findings, reported whether or not an InferenceService uses the runtime."""
    out: list[Diagnostic] = []
    auto_selecting = _auto_selecting(universe)
    for runtime in universe.all_runtimes():
        found = size_range_finding(runtime, chains.get(runtime_key(runtime)), auto_selecting)
        if found is not None:
            out.append(found)
        out.extend(template_findings(runtime))
    return out
