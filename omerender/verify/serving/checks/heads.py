"""``tp-heads``: the attention tensor parallelism an engine starts splits the model's attention heads evenly.

Both engines shard attention by heads. vLLM refuses a tensor-parallel size that does not divide the model's
attention heads before it loads anything (``ModelConfig.verify_with_parallel_config``, ``vllm/config/model.py``:
"Total number of attention heads (H) must be divisible by tensor parallel size (T)"). Both engines' attention layers
then assert that the size divides the heads, and divides the KV heads when there are at least as many, else is a
multiple of them (each KV head replicated): sglang 0.5.5 ``srt/models/llama.py:129-139``,
``srt/models/llama4.py:217-228``, and ``QKVParallelLinear`` (``srt/layers/linear.py:816-822``, whose ``divide``
asserts "X is not divisible by Y", ``srt/distributed/utils.py:21-30``); vLLM's ``QKVParallelLinear``
(``vllm/model_executor/layers/linear.py``) the same. SGLang's attention size is ``--tp-size``, or
``--tp-size / --dp-size`` with ``--enable-dp-attention`` (``compute_dp_attention_world_info``,
``srt/layers/dp_attention.py:227-235``). vLLM's data parallelism replicates the model, so its attention size is
``--tensor-parallel-size``. Either way the engine stops at start and the pod crash-loops.

The heads are the model's facts (``load.modelfacts``): its ``spec.modelConfiguration`` or the ``--model-metadata``
overlay; without them the check says nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from omerender import codes
from omerender.diagnostics import ERROR
from omerender.load.modelfacts import ModelFacts, model_facts
from omerender.verify.provenance import Place
from omerender.verify.serving.checks.parallelism import first
from omerender.verify.serving.engines import Engine
from omerender.verify.serving.finding import Check, Finding
from omerender.verify.serving.launch import Launch
from omerender.verify.serving.view import Pod, ServingView

MOST_SHOWN = 8  # sizes suggested in a message
LARGEST = 1024  # the largest size suggested (heads come from user data: the search is bounded)


def attention_size(launch: Launch) -> tuple[int, str] | None:
    """The tensor-parallel size attention is split over, and how the message shows it; None when not known."""
    tp = launch.number("tp")
    if tp is None or tp < 1:
        return None
    if launch.engine is Engine.VLLM:
        return tp, f"--tensor-parallel-size {tp}"
    if launch.engine is not Engine.SGLANG:
        return None
    attention = launch.flag("dp_attention")
    if attention is None:
        return None
    if not attention:
        return tp, f"--tp-size {tp}"
    dp = launch.number("dp")
    if dp is None or dp < 1 or tp % dp:
        return None  # a --dp-size that does not divide --tp-size is gpu-parallelism's finding
    return tp // dp, f"--tp-size {tp} / --dp-size {dp} (--enable-dp-attention)"


def fits(size: int, heads: int, kv_heads: int | None) -> bool:
    """Whether ``size`` splits ``heads`` evenly and ``kv_heads`` evenly or into whole replicas."""
    if heads % size:
        return False
    if kv_heads is None:
        return True
    return kv_heads % size == 0 if kv_heads >= size else size % kv_heads == 0


def _sizes(heads: int, kv_heads: int | None) -> str:
    """The attention sizes that fit, the first few of those up to ``LARGEST``."""
    found = [size for size in range(1, min(heads, LARGEST) + 1) if fits(size, heads, kv_heads)]
    shown = ", ".join(str(size) for size in found[:MOST_SHOWN])
    return shown + (", ..." if len(found) > MOST_SHOWN else "")


def _problem(size: int, heads: int, kv_heads: int | None) -> str | None:
    """What the engine asserts, or None when ``size`` fits."""
    if heads % size:
        return f"{heads} attention heads, which {size} does not divide"
    if kv_heads is None or fits(size, heads, kv_heads):
        return None
    return f"{kv_heads} KV heads, which {size} neither divides nor is a multiple of"


def _finding(view: ServingView, pod: Pod, launch: Launch, facts: ModelFacts) -> Finding | None:
    found = attention_size(launch)
    if found is None or facts.attention_heads is None:
        return None
    size, how = found
    heads = facts.attention_heads.value
    kv_heads = facts.kv_heads.value if facts.kv_heads is not None else None
    problem = _problem(size, heads, kv_heads)
    if problem is None:
        return None
    if launch.engine is Engine.VLLM and heads % size:
        stops = f"ValueError: Total number of attention heads ({heads}) must be divisible by tensor parallel size"
        stops = f"vLLM refuses it at start ({stops} ({size}))"
    else:
        stops = f"{launch.engine} exits on an AssertionError while building the attention layers"
    kv = f" and {kv_heads} KV heads" if kv_heads is not None else ""
    place: Place | None = first(view, pod.option_place("tp"), pod.option_place("dp") if "/" in how else None)
    return Finding(
        codes.TP_HEADS,
        ERROR,
        f"{pod.where} of runtime {view.runtime}: {how} splits attention over {size} GPUs, but model "
        f"{view.model.name} has {problem}; {stops} and the pod crash-loops; use an attention size that fits "
        f"{heads} heads{kv} ({_sizes(heads, kv_heads)}) and match the GPUs to it",
        place,
        pod.component,
    )


def run(view: ServingView) -> Iterator[Finding]:
    facts: ModelFacts | None = None
    seen: set[tuple[str, int, tuple[object, ...]]] = set()
    for component in ("engine", "decoder"):
        for pod in view.of(component):
            launch = pod.launch
            if launch is None or launch.engine is Engine.ROUTER:
                continue
            size = attention_size(launch)
            if size is None or size[0] == 1:
                continue
            if facts is None:  # a model's facts are the same for every InferenceService serving it
                facts = view.ctx.once("model-facts", view.model, None, functools.partial(model_facts, view.model))
            found = _finding(view, pod, launch, facts)
            if found is None:
                continue
            key = (component, size[0], (id(found.place.source), found.place.keys) if found.place else ())
            if key not in seen:  # a group's leader and worker with the same arguments: once
                seen.add(key)
                yield found


CHECK = Check((codes.TP_HEADS,), run)
