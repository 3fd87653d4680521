"""Each runtime's pod rendered once, then specialised per InferenceService.

Most InferenceServices set only extension fields on a component (replicas, labels, annotations, ...), so
their component's pod is the runtime's own up to what the InferenceService and its model bring: the
model's ``MODEL_PATH`` env entry and mount, the placeholders of the main container, the model's volume
and the node selector. The rest (the runner laid into the pod, fallback resources, ``PARALLELISM_SIZE``,
the router's config, Go's resource quantities) is made once per runtime chain and component
(``PodTemplate``), and each InferenceService's pod is a copy of it where it changes: the pod, its
container list, its containers (shallow) and the lists the model adds to. Every other part is shared,
read only, by every pod rendered from the template, so nothing after rendering changes a rendered
object in place.

When a case is not covered (the InferenceService sets pod fields or a runner, an AcceleratorClass or a
fine-tuned weight applies, the runtime's pod already holds the runner's container, placeholders in
resources, the model path or name), ``pod.build_pod`` renders the whole pod as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from omerender.data import copy
from omerender.render import finetuned
from omerender.render.context import Context, labels_and_annotations
from omerender.render.pod import (
    EXTENSION_FIELDS,
    NOT_POD_FIELDS,
    build_pod,
    fill_main,
    go_resources,
    model_volumes_and_selector,
    runner_from_runtime,
)

MODEL_PATH = "MODEL_PATH"


@dataclass(frozen=True)
class PodTemplate:
    pod: dict[str, Any]  # read only: shared by every pod specialised from it
    main: int  # the index of the main (runner's) container
    env_at: int | None  # where MODEL_PATH goes in the main container's env; None: the runtime sets it
    holes: tuple[str, ...] | None  # the main container's fields holding placeholders; None: its keys may hold some


def component_pod(ctx: Context, component: str, merged: dict[str, Any]) -> dict[str, Any] | None:
    """``build_pod(ctx, component, merged)``, from the runtime's template where it covers the case."""
    model_path = (ctx.model.spec.get("storage") or {}).get("path")
    template = _template(ctx, component, merged, model_path)
    if template is None:
        return build_pod(ctx, component, merged)
    annotations = labels_and_annotations(ctx, component, merged)[1] if component != "router" else {}
    with_model = component != "router" and bool(model_path) and finetuned.original_model_mount_needed(annotations)
    pod = dict(template.pod)
    containers = [dict(c) for c in template.pod["containers"]]  # the workload's defaults are set on each
    pod["containers"] = containers
    if with_model:
        main = containers[template.main]
        path = str(model_path)
        if template.env_at is not None:
            env = list(main.get("env") or [])
            env.insert(template.env_at, {"name": MODEL_PATH, "value": path})
            main["env"] = env
        mount = {"name": ctx.model.name, "mountPath": path, "readOnly": True}
        main["volumeMounts"] = [*(main.get("volumeMounts") or []), mount]
    fill_main(ctx, pod, template.main, False, template.holes)
    if "volumes" in pod:
        pod["volumes"] = list(pod["volumes"])  # the model's volume is appended to it
    model_volumes_and_selector(ctx, component, merged, pod)
    return pod


def _template(ctx: Context, component: str, merged: dict[str, Any], model_path: Any) -> PodTemplate | None:
    if ctx.shared_specs.get(id(merged)) is not merged:
        return None  # the InferenceService sets pod fields or a runner of its own
    if component != "router" and ctx.finetuned is not None:
        return None
    if ctx.accelerators.get(component) is not None:
        return None
    if "{{" in str(model_path) or "{{" in ctx.model.name:
        return None  # the main container's placeholders would reach the model's env and mount
    made: PodTemplate | None = ctx.once(
        f"pod-template {component}", ctx.runtime_spec, None, lambda: _make(ctx, component, merged)
    )
    return made


def _make(ctx: Context, component: str, merged: dict[str, Any]) -> PodTemplate | None:
    """The pod ``build_pod`` renders for ``merged`` without the model's env, mount, volume and node selector
    label and without placeholders filled; None where a specialised copy could differ from ``build_pod``'s.

    It reads only the runtime's part of ``merged`` and of ``ctx`` (``_template`` checks the rest)."""
    own = copy({k: v for k, v in merged.items() if k not in EXTENSION_FIELDS})
    pod = {k: v for k, v in own.items() if k not in NOT_POD_FIELDS}
    runner = own.get("runner")
    containers = pod.get("containers", [])
    if not isinstance(runner, dict) or not isinstance(containers, list):
        return None
    env, mounts = runner.get("env", []), runner.get("volumeMounts", [])
    if not isinstance(env, list) or not isinstance(mounts, list) or not isinstance(pod.get("volumes", []), list):
        return None
    if any(not isinstance(c, dict) or c.get("name") == runner.get("name") for c in containers):
        return None  # the runner is laid over a container of the pod: the model's env merges into it
    if any(not isinstance(item, dict) for item in env):
        return None
    env_at = None if any(item.get("name") == MODEL_PATH for item in env) else len(env)
    runner_from_runtime(ctx, component, own, runner, False, {})
    if _holds_placeholder(runner.get("resources")):
        return None  # filled before Go's quantities are taken
    pod["containers"] = [*containers, runner]
    for container in [*pod["containers"], *(pod.get("initContainers") or [])]:
        if isinstance(container, dict):
            container["resources"] = go_resources(container.get("resources"))
    holes = tuple(k for k, v in runner.items() if _holds_placeholder(v))
    keyed = any(_holds_placeholder(k) for k in runner)
    return PodTemplate(pod, len(containers), env_at, None if keyed else holes)


def _holds_placeholder(value: Any) -> bool:
    if isinstance(value, str):
        return "{{" in value
    if isinstance(value, dict):
        return any(_holds_placeholder(k) or _holds_placeholder(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_placeholder(v) for v in value)
    return False
