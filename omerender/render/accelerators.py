"""AcceleratorClasses: what an InferenceService asks of them (ome-rendering §2.5), the class each engine and
decoder resolves, and what a resolved class does to their pods.

Mirrors OME 17b77eda: ``GetAcceleratorClass`` (``pkg/acceleratorclassselector/selector.go:48-87``), called per
component from ``inferenceservice/controller.go:286,320``; the effects in ``components/engine.go:269-313`` through
``components/base.go`` (``UpdateEnvVariables`` :180-189, ``MergeRuntimeArgumentsOverride`` :258-306,
``MergeEngineResources`` :323-330, ``UpdatePodSpecNodeSelector`` :193-226, ``UpdateEngineAffinity`` :348-356) and
``utils/merging.go`` (``MergeNodeSelector``, ``MergeResource``, ``MergeArgs``). The policies (FirstAvailable, and the
scored BestFit, Cheapest and MostCapable) are in ``omerender.render.accelerator_policy``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from omerender import codes
from omerender.diagnostics import ERROR, Diagnostic
from omerender.load.obj import Obj
from omerender.render import accelerator_policy
from omerender.resolve.index import Universe
from omerender.selection.matching import ACCELERATOR_REASON, accelerator_compatible, required_classes
from omerender.selection.scoring import supported_format_index

KIND = "AcceleratorClass"


@dataclass(frozen=True)
class Resolved:
    name: str
    spec: dict[str, Any]  # the AcceleratorClass spec
    model_config: dict[str, Any]  # the chosen supported format's acceleratorConfig[name], or {}


@dataclass(frozen=True)
class Outcome:
    found: Resolved | None = None  # None: the component runs without a class
    error: str | None = None  # OME's error (the reconcile stops)
    crash: str | None = None  # OME's controller would panic
    undecided: str | None = None  # omerender cannot tell which class OME picks
    how: str | None = None  # how a policy chose, or why it chose nothing
    where: tuple[str, ...] = ("spec",)  # the keys of the policy that decided


def cluster_classes(universe: Universe) -> dict[str, Obj]:
    """AcceleratorClasses in the inputs (cluster-scoped: by name; the first of a name wins)."""
    out: dict[str, Obj] = {}
    for obj in universe.others:
        if obj.kind == KIND and str(obj.body.get("apiVersion", "")).startswith("ome.io/"):
            out.setdefault(obj.name, obj)
    return out


def _selector(part: Any) -> dict[str, Any]:
    found = part.get("acceleratorOverride") if isinstance(part, dict) else None
    return found if isinstance(found, dict) else {}


def resolve(
    body: dict[str, Any],
    runtime_spec: dict[str, Any],
    model_spec: dict[str, Any],
    named_runtime: bool,
    component: str,
    classes: dict[str, Obj],
) -> Outcome:
    """``GetAcceleratorClass`` (``selector.go:48-87``) for ``component``."""
    allowed = (runtime_spec.get("acceleratorRequirements") or {}).get("acceleratorClasses")
    if not allowed:
        return Outcome()
    spec = body.get("spec") or {}
    found_selector = spec.get("acceleratorSelector")
    isvc_selector: dict[str, Any] = found_selector if isinstance(found_selector, dict) else {}
    own = _selector(spec.get(component))
    name = own.get("acceleratorClass") or isvc_selector.get("acceleratorClass")
    how = None
    if not name:
        policy = own.get("policy") or isvc_selector.get("policy")
        if not policy:
            return Outcome()
        found_constraints = isvc_selector.get("constraints")  # a nil pointer when absent
        constraints = found_constraints if isinstance(found_constraints, dict) else None
        specs = {n: o.spec for n, o in classes.items()}
        choice = accelerator_policy.select(str(policy), [str(c) for c in allowed], specs, constraints)
        where = (
            ("spec", component, "acceleratorOverride", "policy")
            if own.get("policy")
            else ("spec", "acceleratorSelector", "policy")
        )
        if choice.crash is not None or choice.undecided is not None or choice.name is None:
            return Outcome(crash=choice.crash, undecided=choice.undecided, how=choice.how or None, where=where)
        name, how = choice.name, choice.how
    name = str(name)
    if name not in classes:
        return Outcome(
            error=f"Failed to get accelerator class for {component}: "
            f"accelerator class {name} not found at cluster scope"
        )
    index = supported_format_index(runtime_spec, model_spec, named_runtime)
    formats = runtime_spec.get("supportedModelFormats") or []
    config: dict[str, Any] = {}
    if index is not None and 0 <= index < len(formats) and isinstance(formats[index], dict):
        found = (formats[index].get("acceleratorConfig") or {}).get(name)
        config = found if isinstance(found, dict) else {}
    return Outcome(Resolved(name, classes[name].spec, config), how=how)


def _arg_key(arg: str) -> str:
    arg = arg.strip()
    if not arg or not arg.startswith("-"):
        return arg
    if "=" in arg:
        return arg[: arg.index("=")]
    parts = arg.split()
    return parts[0] if parts else arg


def _normalise(args: list[str]) -> list[str]:
    out: list[str] = []
    for arg in args:
        lines = arg.split("\n") if ("\n" in arg or "\\" in arg) else [arg]
        for line in lines:
            trimmed = line.strip().rstrip("\\").strip() if len(lines) > 1 or "\\" in arg else line.strip()
            if trimmed:
                out.append(trimmed)
    return out


def _groups(args: list[str]) -> list[tuple[str, list[str]]]:
    groups, i = [], 0
    while i < len(args):
        arg, key = args[i], _arg_key(args[i])
        if key and "=" not in arg and i + 1 < len(args) and not args[i + 1].startswith("-"):
            groups.append((key, [arg, args[i + 1]]))
            i += 2
            continue
        groups.append((key or arg, [arg]))
        i += 1
    return groups


def merge_args(base: list[str], override: list[str]) -> list[str]:
    """``MergeArgs``: override by flag key, new flags appended, a multi-line single string kept multi-line."""
    if not override:
        return base
    if not base:
        return override
    multiline = "\n" in base[0] or "\\" in base[0]
    merged: dict[str, list[str]] = {}
    for key, values in _groups(_normalise(base)) + _groups(_normalise(override)):
        merged[key] = values
    flat = [v for values in merged.values() for v in values]
    if multiline:
        return ["\n".join(a + (" \\" if i < len(flat) - 1 else "") for i, a in enumerate(flat))]
    return flat


def apply_to_runner(resolved: Resolved, runner: dict[str, Any], user_set_resources: bool) -> list[str]:
    """Env, args and resources the class brings to the runner; notes about what is not emulated."""
    notes: list[str] = []
    for key in sorted(resolved.model_config.get("environmentOverride") or {}):
        value = str(resolved.model_config["environmentOverride"][key])
        env = runner.setdefault("env", [])
        found = next((e for e in env if e.get("name") == key), None)
        if found is not None:
            found.clear()
            found.update({"name": key, "value": value})
        else:
            env.append({"name": key, "value": value})
    override = [str(a) for a in resolved.model_config.get("runtimeArgsOverride") or []]
    if override:
        runner["args"] = merge_args([str(a) for a in runner.get("args") or []], override)
    if resolved.model_config.get("tensorParallelismOverride"):
        notes.append(
            "acceleratorConfig tensorParallelismOverride is not emulated: --tp-size/--pp-size are left as written"
        )
    if not user_set_resources:
        resources = runner.setdefault("resources", {})
        for item in resolved.spec.get("resources") or []:
            if isinstance(item, dict) and item.get("name"):
                quantity = item.get("quantity", "1")
                resources.setdefault("requests", {})[str(item["name"])] = quantity
                resources.setdefault("limits", {})[str(item["name"])] = quantity
    return notes


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
    if classes and not accelerator_compatible(runtime_spec, classes):
        if named:
            message = (
                f"Runtime {runtime_name} does not support model {model_name}: runtime {runtime_name} does not support "
                f"model : {ACCELERATOR_REASON}"
            )
            out.append(isvc.diag(ERROR, message, *keys, code=codes.RUNTIME_VALIDATION_ERROR))
        else:
            message = (
                f"OME's auto-selection excludes every runtime whose acceleratorRequirements.acceleratorClasses lacks "
                f"{wanted} ({ACCELERATOR_REASON}), so it would not select {runtime_name}"
            )
            out.append(isvc.diag(ERROR, message, *keys, code=codes.RUNTIME_SELECTION_ERROR))
    return out
