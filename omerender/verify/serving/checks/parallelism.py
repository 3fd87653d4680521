"""``gpu-parallelism``: the GPUs an engine starts ranks on are the GPUs its pod gets, and a group is the nodes the
engine waits for.

SGLang (``server_args.py``; ``layers/dp_attention.py``) starts tp x pp ranks, times dp unless
``--enable-dp-attention`` (which then splits tp into dp attention groups, so tp must be a multiple of dp), spread
over ``--nnodes`` nodes: tp x pp (x dp) / nnodes per pod. vLLM (``arg_utils.py``) starts tp x pp x dp, or
``--data-parallel-size-local`` x tp x pp on one node; in a LeaderWorkerSet without that it spreads ranks by Ray or
over nodes in ways not read here, so that case is skipped. Fewer GPUs than ranks: the engine exits at start (CUDA's
invalid device ordinal) and the pod crash-loops (vllm#596, dynamo#4934); more: GPUs allocated and idle
(kserve#6044). ``--nnodes`` other than the LeaderWorkerSet's size (1 for a Deployment) leaves the ranks waiting for
nodes that never join (kserve#4946). Leader and worker of a group that start different parallelism or images are a
warning, and so is a pod asking for more GPUs than one node holds (8, unless its AcceleratorClass gives more).
"""

from __future__ import annotations

from collections.abc import Iterator

from omerender import codes
from omerender.diagnostics import ERROR, WARNING
from omerender.verify.provenance import Place, get
from omerender.verify.serving.engines import Engine
from omerender.verify.serving.finding import Check, Finding
from omerender.verify.serving.launch import Launch
from omerender.verify.serving.view import GPU, LEADER, WORKER, Pod, ServingView

NODE_GPUS = 8
COMPARED = ("tp", "pp", "dp", "dp_attention", "nnodes", "disaggregation_mode")
SHOWN = {"tp": "--tp-size", "pp": "--pp-size", "dp": "--dp-size", "nnodes": "--nnodes"}
SHOWN_VLLM = {"tp": "--tensor-parallel-size", "pp": "--pipeline-parallel-size", "dp": "--data-parallel-size"}


def _rank(view: ServingView, place: Place | None) -> int:
    sources = view.ctx.sources
    return next((i for i, s in enumerate(sources) if place is not None and s is place.source), len(sources))


def first(view: ServingView, *places: Place | None) -> Place | None:
    """Of the places that set the values behind a finding, the one of the most specific source (the
    InferenceService, then the chain's leaf): its value is the one that changed last."""
    found = [p for p in places if p is not None]
    return min(found, key=lambda p: _rank(view, p)) if found else None


def _size_place(view: ServingView, pod: Pod) -> Place | None:
    """Where the group's worker size is set."""
    for source in view.ctx.sources:
        base = ("spec", pod.component) if source.kind == "InferenceService" else ("spec", f"{pod.component}Config")
        if get(source.body, (*base, "worker", "size")) is not None:
            return Place(source, (*base, "worker", "size"))
    return None


def _ranks(pod: Pod, launch: Launch) -> tuple[int, str] | None:
    """GPU ranks per pod the engine starts, and how that number comes about; None when not known."""
    tp, pp, dp = launch.number("tp"), launch.number("pp"), launch.number("dp")
    if tp is None or pp is None or dp is None or min(tp, pp, dp) < 1:
        return None
    if launch.engine is Engine.SGLANG:
        attention = launch.flag("dp_attention")
        nnodes = launch.number("nnodes")
        if attention is None or nnodes is None or nnodes < 1:
            return None
        world = tp * pp * (1 if attention else dp)
        how = f"--tp-size {tp} x --pp-size {pp}" + ("" if attention else f" x --dp-size {dp}")
        if world % nnodes:
            return None  # reported by _sglang_rules
        per_pod = world // nnodes
        return per_pod, (f"{how} = {world} ranks over --nnodes {nnodes}" if nnodes > 1 else how)
    if launch.engine is Engine.VLLM:
        if launch.given("distributed_backend") and launch.text("distributed_backend") != "mp":
            return None
        local = launch.number("dp_local") if launch.given("dp_local") else None
        if launch.given("dp_local") and local is None:
            return None
        if local is None and pod.in_group:
            return None  # multi-node vLLM (Ray, or data parallel over nodes): not read here
        count = local if local is not None else dp
        name = "--data-parallel-size-local" if local is not None else "--data-parallel-size"
        return tp * pp * count, f"--tensor-parallel-size {tp} x --pipeline-parallel-size {pp} x {name} {count}"
    return None


def _sglang_rules(view: ServingView, pod: Pod, launch: Launch) -> Iterator[Finding]:
    tp, dp, pp, nnodes = launch.number("tp"), launch.number("dp"), launch.number("pp"), launch.number("nnodes")
    if launch.flag("dp_attention") and tp is not None and dp is not None and dp > 0 and tp % dp:
        yield Finding(
            codes.GPU_PARALLELISM,
            ERROR,
            f"{pod.where} of runtime {view.runtime}: SGLang with --enable-dp-attention splits --tp-size {tp} into "
            f"--dp-size {dp} attention groups, which does not divide it; the server refuses to start and the pod "
            "crash-loops; make --tp-size a multiple of --dp-size",
            first(view, pod.option_place("tp"), pod.option_place("dp")) or pod.option_place("dp_attention"),
            pod.component,
        )
    if tp is None or pp is None or dp is None or nnodes is None or nnodes < 1 or launch.flag("dp_attention") is None:
        return
    world = tp * pp * (1 if launch.flag("dp_attention") else dp)
    if world % nnodes:
        yield Finding(
            codes.GPU_PARALLELISM,
            ERROR,
            f"{pod.where} of runtime {view.runtime}: SGLang spreads {world} GPU ranks over --nnodes {nnodes}, which "
            f"does not divide them; the ranks of each node do not add up and the group never starts; make the ranks "
            "a multiple of --nnodes",
            first(view, pod.option_place("nnodes"), pod.option_place("tp")),
            pod.component,
        )


def _nodes(view: ServingView, pod: Pod, launch: Launch) -> Iterator[Finding]:
    if launch.engine is not Engine.SGLANG:
        return
    nnodes = launch.number("nnodes")
    if nnodes is None:
        return
    size = pod.group_size
    if size is None and nnodes > 1:
        yield Finding(
            codes.GPU_PARALLELISM,
            ERROR,
            f"{pod.where} of runtime {view.runtime}: --nnodes {nnodes} in a Deployment, whose pods start alone; the "
            f"server waits for {nnodes - 1} more node(s) that never join, so it never serves; run it as a "
            f"LeaderWorkerSet (leader and worker with worker.size {nnodes - 1}) or use --nnodes 1",
            pod.option_place("nnodes"),
            pod.component,
        )
    elif size is not None and nnodes != size:
        place = pod.option_place("nnodes") if launch.given("nnodes") else None
        yield Finding(
            codes.GPU_PARALLELISM,
            ERROR,
            f"{pod.where} of runtime {view.runtime}: --nnodes {nnodes}"
            f"{'' if launch.given('nnodes') else ' (the default)'} in a LeaderWorkerSet group of {size} pods; "
            + (
                f"the ranks wait for {nnodes - size} node(s) the group does not have, so the group hangs"
                if nnodes > size
                else f"{size - nnodes} pod(s) of the group run node ranks the server does not expect, so the group "
                "never starts"
            )
            + "; set --nnodes $(LWS_GROUP_SIZE), or match worker.size to it",
            first(view, place, _size_place(view, pod)) or place,
            pod.component,
        )


def _gpus(view: ServingView, pod: Pod, launch: Launch) -> Iterator[Finding]:
    found = _ranks(pod, launch)
    gpus = pod.gpus
    if found is None or gpus is None or gpus < 1:
        return
    need, how = found
    if need == gpus:
        return
    options = [pod.option_place(n) for n in ("tp", "pp", "dp", "dp_local", "nnodes") if launch.given(n)]
    place = first(view, *options, pod.setter("resources", "limits", GPU), pod.setter("resources", "requests", GPU))
    if need > gpus:
        message = (
            f"{pod.where} of runtime {view.runtime}: {launch.engine} starts {need} GPU rank(s) in this pod ({how}) but "
            f"its {GPU} limit is {gpus}; the ranks beyond {gpus} find no GPU, the engine exits at start and the pod "
            f"crash-loops; request {need} GPUs or lower the parallelism"
        )
        yield Finding(codes.GPU_PARALLELISM, ERROR, message, place, pod.component)
    else:
        message = (
            f"{pod.where} of runtime {view.runtime}: {launch.engine} starts {need} GPU rank(s) in this pod ({how}) but "
            f"its {GPU} limit is {gpus}; {gpus - need} GPU(s) are allocated and stay idle; request {need} GPUs or "
            "raise the parallelism"
        )
        yield Finding(codes.GPU_PARALLELISM, WARNING, message, place, pod.component)


def _node_gpus(pod: Pod) -> int:
    """GPUs one node holds: 8, or more when the pod's AcceleratorClass gives its pods more."""
    resolved = pod.accelerator
    most = NODE_GPUS
    for item in (resolved.spec.get("resources") or []) if resolved is not None else []:
        if isinstance(item, dict) and item.get("name") == GPU and str(item.get("quantity", "")).isdigit():
            most = max(most, int(str(item["quantity"])))
    return most


def _capacity(view: ServingView, pod: Pod) -> Iterator[Finding]:
    gpus = pod.gpus
    if gpus is None or gpus <= NODE_GPUS:
        return
    most = _node_gpus(pod)
    if gpus <= most:
        return
    yield Finding(
        codes.GPU_PARALLELISM,
        WARNING,
        f"{pod.where} of runtime {view.runtime}: the pod asks for {gpus} {GPU} and a node of the usual GPU classes "
        f"holds {most}; no node can take it and it stays Pending; split it over a LeaderWorkerSet group (--nnodes) or "
        f"name an AcceleratorClass whose nodes hold {gpus}",
        pod.setter("resources", "limits", GPU) or pod.setter("resources", "requests", GPU),
        pod.component,
    )


def _same(view: ServingView, leader: Pod, worker: Pod) -> Iterator[Finding]:
    ours, theirs = leader.launch, worker.launch
    if ours is None or theirs is None:
        return
    if ours.engine is not theirs.engine:
        differ = [f"{ours.engine} against {theirs.engine}"]
    else:
        differ = []
        for name in COMPARED:
            if name not in ours.values and name not in theirs.values:
                continue
            a, b = ours.value(name), theirs.value(name)
            if a is not None and b is not None and a != b:
                shown = (SHOWN_VLLM if ours.engine is Engine.VLLM else SHOWN).get(name, "--" + name.replace("_", "-"))
                differ.append(f"{shown} {_shown(a)} against {_shown(b)}")
    image_a, image_b = (leader.container or {}).get("image"), (worker.container or {}).get("image")
    if image_a and image_b and image_a != image_b:
        differ.append(f"image {image_a} against {image_b}")
    if not differ:
        return
    place = worker.option_place(next((n for n in COMPARED if n in theirs.values), "tp")) or worker.setter("image")
    yield Finding(
        codes.GPU_PARALLELISM,
        WARNING,
        f"{leader.component} of runtime {view.runtime}: the leader and the worker of a group start differently "
        f"({'; '.join(differ)}, leader first); the ranks disagree on the group and the engine hangs or fails at "
        "start; give both the same image and parallelism",
        place,
        leader.component,
    )


def _shown(value: object) -> str:
    return "on" if value is True else "off" if value is False else str(value)


def run(view: ServingView) -> Iterator[Finding]:
    for component in ("engine", "decoder"):
        for pod in view.of(component):
            launch = pod.launch
            yield from _capacity(view, pod)
            if launch is None or launch.engine is Engine.ROUTER:
                continue
            if launch.engine is Engine.SGLANG:
                yield from _sglang_rules(view, pod, launch)
            yield from _nodes(view, pod, launch)
            yield from _gpus(view, pod, launch)
        for leader in view.of(component, LEADER):
            for worker in view.of(component, WORKER):
                if worker.workload is leader.workload:
                    yield from _same(view, leader, worker)


CHECK = Check((codes.GPU_PARALLELISM,), run)
