"""``gpu-memory-fit``: the model's weights, split over the GPUs that shard them, fit the memory the engine may use.

The weights take parameter count x bytes per parameter (``load.modelfacts``: from the quantization, not
``torch_dtype`` alone). SGLang and vLLM shard them over tp x pp GPUs (vLLM with ``--enable-expert-parallel`` also
over its data-parallel ranks: the experts, most of an MoE model, are spread over dp x tp; counting every weight
as spread is generous). Each GPU may use ``--mem-fraction-static`` (SGLang) or ``--gpu-memory-utilization``
(vLLM, default 0.9) of its memory for weights and KV cache; 0.9 when SGLang's is not given (it picks one near that
from the GPU's memory, ``server_args.py``). Weights above that do not load: CUDA out of memory at start, and the pod
crash-loops (vllm#5711: Llama 3 70B in bf16 on one 80 GB GPU).

The GPUs a pod may land on (``gpus.landing``): its AcceleratorClass's ``memoryGB``, a node selector or affinity on a
known product or instance type, else the ``gpu-memory`` setting. When the pod names GPUs and none holds its share,
or the setting's does not: an error. When it names none: an error when no GPU of the table holds it, a warning when
an 80 GiB one does not. Skipped when the model's size, the parallelism or the fraction is not known, or when the pod
names a GPU the table does not know. The message names each option as the runtime wrote it (``--mem-frac``,
``--tp``), the long name when it is not given.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

from omerender import codes
from omerender.diagnostics import ERROR, WARNING
from omerender.load.modelfacts import ModelFacts, model_facts
from omerender.verify.provenance import Place, get
from omerender.verify.serving import gpus
from omerender.verify.serving.checks.parallelism import first
from omerender.verify.serving.engines import Engine
from omerender.verify.serving.finding import Check, Finding
from omerender.verify.serving.launch import Launch
from omerender.verify.serving.view import GPU, Pod, ServingView

GIB = 2**30
DEFAULT_FRACTION = Fraction(9, 10)
COMMON_GIB = 80  # the GPU a runtime that names none is assumed to get at least
FRACTION_OPTION = {Engine.SGLANG: "--mem-fraction-static", Engine.VLLM: "--gpu-memory-utilization"}
SHOWN = {Engine.SGLANG: ("--tp-size", "--pp-size"), Engine.VLLM: ("--tensor-parallel-size", "--pipeline-parallel-size")}


def _facts(view: ServingView) -> ModelFacts:
    model = view.model
    return view.ctx.once("model-facts", model, None, lambda: model_facts(model))


def _fraction(launch: Launch) -> Fraction | None:
    """The share of each GPU's memory the engine may use; None when given but not known or not a share."""
    if not launch.given("mem_fraction"):
        return DEFAULT_FRACTION
    text = launch.text("mem_fraction")
    if text is None or len(text) > 20:
        return None
    try:
        found = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        return None
    return found if 0 < found <= 1 else None


def _shards(launch: Launch) -> tuple[int, str] | None:
    """The GPUs the weights are split over, and how that number comes about."""
    tp, pp = launch.number("tp"), launch.number("pp")
    if tp is None or pp is None or tp < 1 or pp < 1:
        return None
    tp_name, pp_name = (launch.spelling(n, shown) for n, shown in zip(("tp", "pp"), SHOWN[launch.engine], strict=True))
    how = f"{tp_name} {tp}" + (f" x {pp_name} {pp}" if pp > 1 else "")
    if launch.engine is Engine.VLLM and launch.flag("expert_parallel"):
        dp = launch.number("dp")
        if dp is None or dp < 1:
            return None
        dp_name = launch.spelling("dp", "--data-parallel-size")
        return tp * pp * dp, how + (f" x {dp_name} {dp} (--enable-expert-parallel)" if dp > 1 else "")
    return tp * pp, how


def _gib(value: Fraction | float) -> str:
    return f"{float(value):.1f}"


def _place(view: ServingView, pod: Pod, launch: Launch, landing: gpus.Landing) -> Place | None:
    """The most specific source of the values that decide (the parallelism and the fraction, then what names the
    GPUs), else the GPU limit."""
    options = [pod.option_place(n) for n in ("tp", "pp", "dp", "mem_fraction") if launch.given(n)]
    if landing.keys:
        options.append(pod.pod_setter(*landing.keys))
    elif landing.choices and get(view.ctx.isvc.body, ("spec", "acceleratorSelector")) is not None:
        options.append(Place(view.ctx.isvc, ("spec", "acceleratorSelector")))
    found = first(view, *options)
    if found is not None:
        return found
    return pod.setter("resources", "limits", GPU) or pod.setter("resources", "requests", GPU) or pod.part_place()


def _check(view: ServingView, pod: Pod, launch: Launch, facts: ModelFacts) -> Iterator[Finding]:
    count, size = facts.parameter_count, facts.bytes_per_parameter
    shards, fraction = _shards(launch), _fraction(launch)
    if count is None or size is None or shards is None or fraction is None:
        return
    weights = Fraction(count.value) * Fraction(size.value)
    share = weights / shards[0] / GIB  # GiB of weights on each GPU
    landing = gpus.landing(pod.spec, _accelerator(pod))
    if landing.unknown:
        return
    setting = view.gpu_memory
    if landing.choices:
        room = {what: fraction * Fraction(gb) for what, gb in landing.choices}
        if any(share <= usable for usable in room.values()):
            return
        names = ", ".join(f"{what} ({gb:g} GiB)" for what, gb in landing.choices)
        if len(room) > 1:
            against = f"any of the GPUs its {landing.via} allows: {names}"
        else:
            against = names if landing.via.startswith("AcceleratorClass") else f"{names} (its {landing.via})"
        severity = ERROR
        usable = max(room.values())
    elif setting is not None:
        usable = fraction * Fraction(setting)
        if share <= usable:
            return
        severity, against = ERROR, f"the {setting:g} GiB per GPU of the gpu-memory setting"
    elif share > fraction * gpus.LARGEST:
        severity, usable = ERROR, fraction * gpus.LARGEST
        against = f"any GPU omerender knows (the largest, B200, has {gpus.LARGEST} GiB); the pod names none"
    elif share > fraction * COMMON_GIB:
        severity, usable = WARNING, fraction * COMMON_GIB
        against = (
            f"an {COMMON_GIB} GiB GPU (A100 or H100), and the pod names no GPU (AcceleratorClass, node selector "
            "or affinity on a GPU product or instance type, or the gpu-memory setting)"
        )
    else:
        return
    option = launch.spelling("mem_fraction", FRACTION_OPTION[launch.engine])  # as the runtime wrote it
    given = launch.given("mem_fraction")
    how = f"{option} {float(fraction):g}" if given else f"{float(fraction):g} of its memory: {option} is not given"
    message = (
        f"{pod.where} of runtime {view.runtime}: model {view.model.name}'s weights ({_shown_count(count.value)} "
        f"parameters x {size.value:g} byte(s), {size.basis or 'its dtype'}) come to {_gib(weights / GIB)} GiB, "
        f"{_gib(share)} GiB on each of the {shards[0]} GPU(s) of {shards[1]}, more than the {_gib(usable)} GiB "
        f"({how}) it may use on {against}; loading the weights fails with CUDA out of "
        "memory and the pod crash-loops; raise the parallelism (and the GPUs), serve a quantized checkpoint, or "
        "place the pod on GPUs with more memory"
    )
    # the fraction decides when the default would have held the share
    by_fraction = given and share <= usable / fraction * DEFAULT_FRACTION
    place = pod.option_place("mem_fraction") if by_fraction else None
    yield Finding(codes.GPU_MEMORY_FIT, severity, message, place or _place(view, pod, launch, landing), pod.component)


def _accelerator(pod: Pod) -> tuple[str, dict[str, object]] | None:
    resolved = pod.accelerator
    return None if resolved is None else (resolved.name, resolved.spec)


def _shown_count(count: int) -> str:
    for unit, scale in (("T", 10**12), ("B", 10**9), ("M", 10**6)):
        if count >= scale:
            return f"{count / scale:.4g}{unit}"
    return str(count)


def run(view: ServingView) -> Iterator[Finding]:
    facts = _facts(view)
    if facts.parameter_count is None or facts.bytes_per_parameter is None:
        return  # the size is not known: nothing to check (most models of a tree, at the cost of one lookup)
    for component in ("engine", "decoder"):
        for pod in view.serving(component):
            launch = pod.launch
            if launch is not None and launch.engine is not Engine.ROUTER:
                yield from _check(view, pod, launch, facts)


CHECK = Check((codes.GPU_MEMORY_FIT,), run)
