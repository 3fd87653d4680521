"""The serving facts of OME's catalogue models, read from the config.json files OME's model agent parses in its tests.

Used by ``ome_model_metadata.py``. OME's ``pkg/hfutil/modelconfig`` (commit 17b77eda) loads a config.json by its
``model_type`` (``LoadModelConfig``, ``interface.go:706``) into one struct per architecture; the agent records what
those structs return (``pkg/modelagent/config_parser.go:284-370``). This module computes the same, per
architecture, from the 69 files of ``pkg/hfutil/modelconfig/testdata`` (vendored as ``../shared/ome/modelconfig``),
with no weights beside them, so that the parameter count is OME's config-only count (the ``FindAndParseSafetensors``
call fails first, as in OME's tests):

- heads and KV heads: the fields the architecture's struct reads, at the top level, in ``text_config``
  (``mllama.go:29-30``, ``llama4.go:38-39``, ``qwen3_vl.go:41-42``) or DBRX's ``n_heads`` and
  ``attn_config.kv_n_heads`` (``dbrx.go:19,29``); a struct without a KV-heads field gives none;
- context length: ``GetContextLength`` (``max_position_embeddings``; Baichuan's ``model_max_length`` first,
  ``baichuan.go:79-84``; DBRX's ``max_seq_len``, ``dbrx.go:124-126``; Qwen's and Qwen3's ``seq_length`` first,
  ``qwen.go:99-106``, ``qwen3.go:94-100``, ``qwen3_moe.go:97-102``; ``text_config``'s for Mllama, Llama 4 and
  Qwen3-VL, ``mllama.go:167-169``, ``llama4.go:226-228``, ``qwen3_vl.go:141-143``);
- ``torch_dtype``: ``GetTorchDtype`` (Llama 4's float8 checkpoints report ``float8``, ``llama4.go:234-244``);
- quantization method: ``GetQuantizationType`` (``quantization_config.quant_method`` where the struct reads it;
  Llama 4's ``format``, ``llama4.go:208-213``; the others return none whatever the file says);
- parameter count: ``GetParameterCount``'s fallback (``ARCHITECTURES`` cites each), formatted as
  ``FormatParamCount`` formats it (``interface.go:170-209``), which the agent writes (``config_parser.go:286,361``).

OME's config-only count is its own estimate: a table of sizes it knows, else a rough formula. A count is shipped only
when it lies within 10% of the model's published total (``PUBLISHED``: the model cards' or papers' counts, each with
the page it was read at); the others, and those of a model whose total was not found, are listed as left out, since
no check may read a count that is not the model's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Config = dict[str, Any]
CONFIG = "config"  # the file is that repository's own config.json: every fact
ARCHITECTURE = "architecture"  # a model of the same architecture and dimensions: heads, KV heads, parameter count
TOLERANCE = 0.10


def _get(config: Config, *keys: str) -> Any:
    value: Any = config
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _int(config: Config, *keys: str) -> int:
    value = _get(config, *keys)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def estimate_model_params(hidden: int, layers: int, intermediate: int, vocab: int) -> int:
    """``estimateModelParams`` (``phi3_v.go:111-124``)."""
    return (
        hidden * vocab
        + layers * (3 * hidden * hidden + hidden)
        + layers * (hidden * intermediate * 2 + hidden + intermediate)
        + layers * 2 * hidden
        + hidden * vocab
    )


def _table(dims: tuple[str, str], known: dict[tuple[int, int], int], fallback: Callable[[Config], int]) -> Any:
    """A ``GetParameterCount`` that returns a known size for (hidden, layers), else ``fallback``."""

    def count(config: Config) -> int:
        found = known.get((_int(config, *dims[0].split(".")), _int(config, *dims[1].split("."))))
        return found if found is not None else fallback(config)

    return count


def _standard(config: Config) -> int:
    return estimate_model_params(
        _int(config, "hidden_size"),
        _int(config, "num_hidden_layers"),
        _int(config, "intermediate_size"),
        _int(config, "vocab_size"),
    )


def _llama_estimate(config: Config) -> int:
    """``estimateParamsFromArchitecture`` (``llama.go:141-165``), rounded down to a billion."""
    hidden, layers, inter = (_int(config, k) for k in ("hidden_size", "num_hidden_layers", "intermediate_size"))
    inter = inter or hidden * 8 // 3
    total = hidden * 32000 + layers * (3 * hidden * hidden + hidden)
    total += layers * (hidden * inter * 2 + hidden + inter) + layers * 2 * hidden
    return total // 1_000_000_000 * 1_000_000_000


def _text_params(hidden: int, layers: int, inter: int) -> int:
    """``estimateTextParams`` and ``estimateVisionParams`` (``mllama.go:132-140``)."""
    return hidden * hidden * 4 * layers + hidden * inter * 2 * layers


def _mllama(config: Config) -> int:
    """``MLlamaConfig.GetParameterCount`` (``mllama.go:103-129``)."""
    layers, hidden = _int(config, "text_config", "num_hidden_layers"), _int(config, "text_config", "hidden_size")
    if (layers, hidden) == (40, 4096):
        return 11_000_000_000
    if (layers, hidden) == (100, 8192):
        return 90_000_000_000
    text = _text_params(hidden, layers, _int(config, "text_config", "intermediate_size"))
    vision = _text_params(
        _int(config, "vision_config", "hidden_size"),
        _int(config, "vision_config", "num_hidden_layers"),
        _int(config, "vision_config", "intermediate_size"),
    )
    return text + vision


def _llama4(config: Config) -> int | None:
    """``Llama4Config.GetParameterCount`` (``llama4.go:164-202``) for the two sizes it knows; None otherwise (the
    MoE and dense estimates are not needed for the vendored files)."""
    if (_int(config, "text_config", "num_hidden_layers"), _int(config, "text_config", "hidden_size")) == (48, 5120):
        experts = _int(config, "text_config", "num_local_experts")
        return {128: 402_000_000_000, 16: 17_000_000_000}.get(experts)
    return None


def _qwen2_vl(config: Config) -> int:
    """``Qwen2VLConfig.GetParameterCount`` (``qwen2_vl.go:102-132``)."""
    known = {(1536, 28): 2_000_000_000, (3584, 28): 7_000_000_000, (8192, 80): 72_000_000_000}
    found = known.get((_int(config, "hidden_size"), _int(config, "num_hidden_layers")))
    if found is not None:
        return found
    depth, embed = _int(config, "vision_config", "depth"), _int(config, "vision_config", "embed_dim")
    return _standard(config) + (embed * embed * depth * 4 if depth > 0 else 0)


def _qwen3_vl(config: Config) -> int:
    """``Qwen3VLConfig.GetParameterCount`` (``qwen3_vl.go:112-138``) with ``estimateQwen3VLMoEParams`` and
    ``estimateQwen3VLVisionParams`` (``:169-210``)."""
    hidden, layers = _int(config, "text_config", "hidden_size"), _int(config, "text_config", "num_hidden_layers")
    vocab, experts = _int(config, "text_config", "vocab_size"), _int(config, "text_config", "num_experts")
    if experts > 0:
        moe = _int(config, "text_config", "moe_intermediate_size")
        language = hidden * vocab
        language += layers * (4 * hidden * hidden + experts * 3 * hidden * moe + hidden * experts + 2 * hidden)
        language += hidden * vocab
    else:
        language = estimate_model_params(hidden, layers, _int(config, "text_config", "intermediate_size"), vocab)
    v = {k: _int(config, "vision_config", k) for k in ("hidden_size", "depth", "patch_size", "in_channels")}
    vision = 0
    if v["hidden_size"] > 0 and v["depth"] > 0:
        size = v["hidden_size"]
        vision = v["patch_size"] ** 2 * v["in_channels"] * size
        vision += _int(config, "vision_config", "num_position_embeddings") * size
        inter = _int(config, "vision_config", "intermediate_size")
        vision += v["depth"] * (4 * size * size + 2 * size * inter + 2 * size)
        vision += size * _int(config, "vision_config", "out_hidden_size")
    return language + vision


def _bert(config: Config) -> int:
    """``BertConfig.GetParameterCount`` (``bert.go:62-100``)."""
    hidden, layers = _int(config, "hidden_size"), _int(config, "num_hidden_layers")
    if (hidden, layers) == (768, 12):
        return 110_000_000
    if (hidden, layers) == (1024, 24):
        return 340_000_000
    vocab = _int(config, "vocab_size") or 30522
    embeddings = (vocab + _int(config, "max_position_embeddings") + _int(config, "type_vocab_size")) * hidden
    per_layer = 4 * hidden * hidden + 2 * hidden * _int(config, "intermediate_size") + 2 * hidden
    return embeddings + layers * per_layer + hidden * hidden


def _dbrx(config: Config) -> int | None:
    """``DBRXConfig.GetParameterCount`` (``dbrx.go:77-119``) for the size it knows."""
    return 132_000_000_000 if (_int(config, "n_layers"), _int(config, "d_model")) == (48, 6144) else None


def _constant(value: int) -> Callable[[Config], int]:
    return lambda config: value


def _gpt_oss(config: Config) -> int | None:
    """``GptOssConfig.GetParameterCount`` (``gpt_oss.go:130-152``) for the sizes it knows."""
    key = (_int(config, "hidden_size"), _int(config, "num_hidden_layers"), _int(config, "num_local_experts"))
    return {(2880, 24, 32): 20_000_000_000, (2880, 36, 128): 120_000_000_000}.get(key)


def _mistral(config: Config) -> int:
    """``MistralConfig.GetParameterCount`` (``mistral.go:87-105``): 7B for its one known shape, else 0."""
    known = config.get("model_type") == "mistral" and _int(config, "hidden_size") == 4096
    return 7_000_000_000 if known and _int(config, "num_hidden_layers") == 32 else 0


def _phimoe(config: Config) -> int:
    """``PhiMoEConfig.GetParameterCount`` (``phimoe.go:88-107``): 16B for its one known shape, else 0."""
    key = (_int(config, "hidden_size"), _int(config, "num_hidden_layers"), _int(config, "num_local_experts"))
    return 16_000_000_000 if key == (4096, 32, 16) else 0


HIDDEN_LAYERS = ("hidden_size", "num_hidden_layers")


@dataclass(frozen=True)
class Architecture:
    """How OME's struct for one ``model_type`` reads a config.json (file: the Go file of that struct)."""

    file: str
    count: Callable[[Config], int | None]
    heads: tuple[str, ...] | None = ("num_attention_heads",)
    kv_heads: tuple[str, ...] | None = ("num_key_value_heads",)
    context: tuple[tuple[str, ...], ...] = (("max_position_embeddings",),)  # the first positive one
    quant: tuple[str, ...] | None = ("quantization_config", "quant_method")  # None: the struct returns ""


TEXT = ("text_config",)
ARCHITECTURES: dict[str, Architecture] = {
    "baichuan": Architecture(
        "baichuan.go",
        _table(HIDDEN_LAYERS, {(4096, 32): 7_000_000_000, (5120, 40): 13_000_000_000}, _standard),
        kv_heads=None,
        context=(("model_max_length",), ("max_position_embeddings",)),
        quant=None,
    ),
    "bert": Architecture("bert.go", _bert, kv_heads=None, quant=None),
    "cohere": Architecture(
        "command_r.go",
        lambda c: (
            {(40, 8192): 35_000_000_000}.get((_int(c, "num_hidden_layers"), _int(c, "hidden_size")))
            or (104_000_000_000 if _int(c, "num_hidden_layers") >= 64 and _int(c, "hidden_size") >= 12288 else None)
            or _standard(c)
        ),
        quant=None,
    ),
    "dbrx": Architecture(
        "dbrx.go",
        _dbrx,
        heads=("n_heads",),
        kv_heads=("attn_config", "kv_n_heads"),
        context=(("max_seq_len",),),
        quant=None,
    ),
    "deepseek_v3": Architecture("deepseek_v3.go", _constant(685_000_000_000)),
    "kimi_k2": Architecture("kimi_k2.go", _constant(1_500_000_000_000)),
    "mistral": Architecture("mistral.go", _mistral, quant=None),
    "mixtral": Architecture("mixtral.go", _constant(46_700_000_000), quant=None),
    "exaone": Architecture(
        "exaone.go",
        _table(("hidden_size", "num_layers"), {(4096, 32): 7_800_000_000, (2560, 42): 2_800_000_000}, _standard),
        quant=None,
    ),
    **{
        kind: Architecture(
            "gemma.go",
            _table(
                HIDDEN_LAYERS,
                {(2048, 18): 2_000_000_000, (2304, 26): 2_600_000_000, (3072, 28): 7_000_000_000},
                _table(HIDDEN_LAYERS, {(3584, 42): 9_000_000_000}, _standard),
            ),
            quant=None,
        )
        for kind in ("gemma", "gemma2", "gemma3_text")
    },
    "gpt_oss": Architecture("gpt_oss.go", _gpt_oss),
    "qwen2": Architecture(
        "qwen2.go",
        _table(
            HIDDEN_LAYERS,
            {(3584, 28): 7_000_000_000, (8192, 40): 34_000_000_000, (7680, 64): 72_000_000_000},
            _standard,
        ),
    ),
    **{
        kind: Architecture(
            "internlm.go",
            _table(
                HIDDEN_LAYERS,
                {(4096, 32): 7_000_000_000, (6144, 48): 20_000_000_000, (2048, 24): 1_800_000_000},
                _standard,
            ),
            quant=None,
        )
        for kind in ("internlm", "internlm2")
    },
    "llama": Architecture(
        "llama.go",
        _table(
            HIDDEN_LAYERS,
            {
                (8192, 80): 70_000_000_000,
                (8192, 82): 70_000_000_000,
                (16384, 126): 405_000_000_000,
                (3072, 28): 3_000_000_000,
                (2048, 16): 1_000_000_000,
            },
            _llama_estimate,
        ),
    ),
    "mllama": Architecture(
        "mllama.go",
        _mllama,
        heads=(*TEXT, "num_attention_heads"),
        kv_heads=(*TEXT, "num_key_value_heads"),
        context=((*TEXT, "max_position_embeddings"),),
        quant=None,
    ),
    "llama4": Architecture(
        "llama4.go",
        _llama4,
        heads=(*TEXT, "num_attention_heads"),
        kv_heads=(*TEXT, "num_key_value_heads"),
        context=((*TEXT, "max_position_embeddings"),),
        quant=("quantization_config", "format"),
    ),
    **{
        kind: Architecture(
            "minicpm.go",
            _table(
                HIDDEN_LAYERS,
                {(2560, 62): 4_000_000_000, (2304, 40): 2_400_000_000, (1536, 52): 1_200_000_000},
                _standard,
            ),
            quant=None,
        )
        for kind in ("minicpm", "minicpm3")
    },
    "phi3_v": Architecture("phi3_v.go", _table(HIDDEN_LAYERS, {(3072, 32): 14_000_000_000}, _standard), quant=None),
    "phimoe": Architecture("phimoe.go", _phimoe, quant=None),
    **{kind: Architecture("qwen2_vl.go", _qwen2_vl) for kind in ("qwen2_vl", "qwen2_5_vl")},
    "qwen3_moe": Architecture(
        "qwen3_moe.go",
        _table(HIDDEN_LAYERS, {(2048, 48): 30_000_000_000, (4096, 94): 235_000_000_000}, _standard),
        context=(("seq_length",), ("max_position_embeddings",)),
    ),
    "qwen3": Architecture(
        "qwen3.go",
        _table(HIDDEN_LAYERS, {(2560, 36): 4_000_000_000, (4096, 36): 8_000_000_000}, _standard),
        context=(("seq_length",), ("max_position_embeddings",)),
    ),
    **{
        kind: Architecture(
            "qwen3_vl.go",
            _qwen3_vl,
            heads=(*TEXT, "num_attention_heads"),
            kv_heads=(*TEXT, "num_key_value_heads"),
            context=((*TEXT, "max_position_embeddings"),),
        )
        for kind in ("qwen3_vl", "qwen3_vl_moe")
    },
    "qwen": Architecture(
        "qwen.go",
        _table(
            HIDDEN_LAYERS,
            {(4096, 32): 7_000_000_000, (5120, 40): 14_000_000_000, (8192, 80): 72_000_000_000},
            _standard,
        ),
        kv_heads=None,
        context=(("seq_length",), ("max_position_embeddings",)),
        quant=None,
    ),
}


def torch_dtype(config: Config) -> str:
    """``GetTorchDtype``: the file's ``torch_dtype``; ``float8`` for a Llama 4 checkpoint whose first config group
    holds 8-bit float weights (``llama4.go:234-244``)."""
    quant = config.get("quantization_config")
    if config.get("model_type") == "llama4" and isinstance(quant, dict) and quant.get("format") == "float-quantized":
        weights = _get(quant, "config_groups", "group_0", "weights") or {}
        if weights.get("num_bits") == 8 and weights.get("type") == "float":
            return "float8"
    value = config.get("torch_dtype")
    return value if isinstance(value, str) else ""


def format_param_count(count: int) -> str:
    """``FormatParamCount`` (``interface.go:170-209``)."""
    for scale, suffix in ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K")):
        if count >= scale:
            value = count / scale
            if value == float(int(value)):
                return f"{int(value)}{suffix}"
            if value * 100 == float(int(value * 100)):
                return f"{value:.1f}{suffix}"
            return f"{value:.2f}{suffix}"
    return str(count)


@dataclass(frozen=True)
class Read:
    """What OME's modelconfig reads from one file (0 or "" where it reads nothing)."""

    heads: int
    kv_heads: int
    context: int
    dtype: str
    quant: str
    count: int | None  # None: a path of OME's estimate this module does not port (not needed for the corpus)


def read(config: Config) -> Read | None:
    """OME's reading of ``config``, or None for a ``model_type`` this module does not port."""
    arch = ARCHITECTURES.get(str(config.get("model_type")))
    if arch is None:
        return None
    heads = _int(config, *arch.heads) if arch.heads else 0
    kv_heads = _int(config, *arch.kv_heads) if arch.kv_heads else 0
    context = next((v for keys in arch.context if (v := _int(config, *keys)) > 0), 0)
    quant = _get(config, *arch.quant) if arch.quant else ""
    quant = quant if isinstance(quant, str) else ""
    return Read(heads, kv_heads, context, torch_dtype(config), quant, arch.count(config))


# config.json file -> the catalogue models it is for, each with the scope of the facts it gives them, and why.
MAPPING: dict[str, tuple[tuple[tuple[str, str], ...], str]] = {
    "baichuan2_7b.json": ((("baichuan2-7b-chat", ARCHITECTURE),), "Baichuan2 7B; base or chat not stated"),
    "bge_large.json": (
        (("bge-large-en-v1-5", ARCHITECTURE),),
        "BAAI bge-large-en (its _name_or_path), the BERT-large architecture of v1.5",
    ),
    "command_r_35b.json": ((("c4ai-command-r-v01", ARCHITECTURE),), "Command R 35B; the file's release not stated"),
    "dbrx_132b.json": ((("dbrx-instruct", ARCHITECTURE),), "DBRX 132B; base or instruct not stated"),
    "deepseek_v3.json": (
        tuple((m, ARCHITECTURE) for m in ("deepseek-r1", "deepseek-r1-zero", "deepseek-v3", "deepseek-v3-0324")),
        "DeepSeek-V3 architecture, which R1 and V3-0324 share; a bf16 copy (no quantization_config, the released "
        "checkpoints are FP8), so no dtype",
    ),
    "e5_mistral_7b.json": ((("e5-mistral-7b-instruct", CONFIG),), "MistralModel, e5-mistral-7b-instruct's own"),
    "exaone_7.8b.json": (
        (("exaone-3-5-7-8b-instruct", ARCHITECTURE),),
        "EXAONE 3.5 7.8B (32768 positions, rope_theta 1e6); base or instruct not stated",
    ),
    "gemma3_text.json": ((("gemma-3-1b-it", ARCHITECTURE),), "Gemma 3 1B (1152 hidden, 26 layers)"),
    "gemma_2_2b.json": ((("gemma-2-2b", CONFIG),), "Gemma 2 2B base (eos 1)"),
    "gemma_2_2b_it.json": ((("gemma-2-2b-it", CONFIG),), "Gemma 2 2B it (eos [1, 107])"),
    "gemma_2_9b.json": ((("gemma-2-9b", CONFIG), ("gemma-2-9b-it", ARCHITECTURE)), "Gemma 2 9B base (eos 1)"),
    "gemma_7b.json": ((("gemma-7b", ARCHITECTURE),), "Gemma 7B; base or it not stated"),
    "gpt_oss_120b.json": ((("gpt-oss-120b", CONFIG),), "gpt-oss-120b"),
    "gpt_oss_20b.json": ((("gpt-oss-20b", CONFIG),), "gpt-oss-20b"),
    "gte_qwen2_7b.json": ((("gte-qwen2-7b-instruct", CONFIG),), "gte-Qwen2-7B-instruct (float32)"),
    "internlm2_7b.json": ((("internlm2-7b", ARCHITECTURE),), "InternLM2 7B; base or chat not stated"),
    "internlm2_reward.json": ((("internlm2-7b-reward", CONFIG),), "InternLM2ForRewardModel, internlm2-7b-reward"),
    "kimi_k2_instruct.json": ((("kimi-k2-instruct", CONFIG),), "Kimi-K2-Instruct"),
    "llama3.json": ((("llama-3-70b-instruct", ARCHITECTURE),), "Meta-Llama-3-70B (eos 128001: the base)"),
    "llama3_1.json": (
        (
            ("deepseek-r1-distill-llama-70b", ARCHITECTURE),
            ("llama-3-1-70b-instruct", CONFIG),
            ("llama-3-3-70b-instruct", ARCHITECTURE),
            ("llama-3-3-70b-instruct-fp8-dynamic", ARCHITECTURE),
        ),
        "Llama 3.1 70B Instruct (eos list); Llama 3.3 70B and the R1 distill share its architecture",
    ),
    "llama3_1_405b.json": (
        (("llama-3-1-405b-instruct-fp8", CONFIG),),
        "meta-llama/Meta-Llama-3.1-405B-Instruct-FP8 (its _name_or_path)",
    ),
    "llama3_2_11b_vision.json": (
        (("llama-3-2-11b-vision-instruct", CONFIG), ("unsloth-llama-3-2-11b-vision-instruct", ARCHITECTURE)),
        "Llama 3.2 11B Vision Instruct (eos list)",
    ),
    "llama3_2_1b.json": ((("llama-3-2-1b-instruct", CONFIG),), "Llama 3.2 1B Instruct (eos list)"),
    "llama3_2_3b.json": ((("llama-3-2-3b-instruct", CONFIG),), "Llama 3.2 3B Instruct (eos list)"),
    "llama3_2_90b_vision.json": (
        (("llama-3-2-90b-vision-instruct", CONFIG), ("llama-3-2-90b-vision-instruct-fp8", ARCHITECTURE)),
        "Llama 3.2 90B Vision Instruct (eos list)",
    ),
    "llama4.json": (
        (("llama-4-maverick-17b-128e-instruct", ARCHITECTURE), ("llama-4-maverick-17b-128e-instruct-fp8", CONFIG)),
        "Llama 4 Maverick (128 experts) FP8 (compressed-tensors float8)",
    ),
    "llama4_scout_17b_16e.json": (
        (("llama-4-scout-17b-16e-instruct", ARCHITECTURE),),
        "Llama 4 Scout (16 experts); base or instruct not stated",
    ),
    "minicpm3_4b.json": ((("minicpm3-4b", CONFIG),), "openbmb/MiniCPM3-4B (its _name_or_path)"),
    "mistral_7b_instruct.json": (
        (("mistral-7b-instruct-v0-2", ARCHITECTURE),),
        "a dequantized copy of Mistral-7B-Instruct-v0.2 (its _name_or_path)",
    ),
    "mixtral.json": (
        (("mixtral-8x7b-instruct-v0-1", ARCHITECTURE), ("mixtral-8x7b-v0-1", ARCHITECTURE)),
        "Mixtral 8x7B; base or instruct not stated",
    ),
    "phi3_v.json": ((("phi-3-vision-128k-instruct", CONFIG),), "Phi-3-vision-128k-instruct (its _name_or_path)"),
    "phimoe.json": ((("phi-3-5-moe-instruct", CONFIG),), "Phi-3.5-MoE-instruct (its _name_or_path)"),
    "qwen2.5_1.5b.json": ((("qwen2-5-1-5b", CONFIG),), "Qwen2.5 1.5B base (eos 151643)"),
    "qwen2.5_14b.json": (
        (("qwen2-5-14b", CONFIG), ("qwen2-5-14b-instruct", ARCHITECTURE)),
        "Qwen2.5 14B base (eos 151643)",
    ),
    "qwen2.5_3b.json": (
        (("qwen2-5-3b", CONFIG), ("qwen2-5-3b-instruct", ARCHITECTURE)),
        "Qwen2.5 3B base (eos 151643)",
    ),
    "qwen2.5_7b.json": ((("qwen2-5-7b", CONFIG),), "Qwen2.5 7B base (eos 151643)"),
    "qwen2.5_vl_7b.json": ((("qwen2-5-vl-7b-instruct", CONFIG),), "Qwen2.5-VL-7B-Instruct"),
    "qwen2_7b.json": ((("qwen2-7b-instruct", ARCHITECTURE),), "Qwen2 7B base (eos 151643)"),
    "qwen2_vl_7b.json": ((("qwen2-vl-7b-instruct", CONFIG),), "Qwen2-VL-7B-Instruct (eos 151645)"),
    "qwen3_30b.json": ((("qwen3-30b-a3b", ARCHITECTURE),), "Qwen3 30B-A3B (2048 hidden, 48 layers, MoE)"),
    "qwen3_4b.json": ((("qwen3-4b", CONFIG),), "Qwen3-4B (eos 151645)"),
    "qwen3_8b_fp8.json": ((("qwen3-8b", ARCHITECTURE),), "Qwen3-8B-FP8, the architecture of Qwen3-8B"),
    "qwen3_vl_235b.json": (
        (("qwen3-vl-235b-a22b-instruct", ARCHITECTURE),),
        "Qwen3-VL 235B-A22B; instruct or thinking not stated",
    ),
    "qwen_7b.json": ((("qwen-7b-chat", ARCHITECTURE),), "Qwen 7B; base or chat not stated"),
    "smollm_1.7b.json": ((("smollm-1-7b", ARCHITECTURE),), "SmolLM 1.7B (a training checkpoint's config)"),
}

# Files mapped to no catalogue model, and why.
UNMAPPED: dict[str, str] = {
    "chatglm3_6b.json": "ChatGLM3 6B; the catalogue has chatglm2-6b",
    "clip_vision_model.json": "a CLIP ViT-H vision encoder (zero123plus); clip-vit-large-patch14-336 is ViT-L",
    "config_sentence_transformers.json": "not a model config",
    "deepseek_vl2_tiny.json": "DeepSeek-VL2-Tiny; the catalogue has deepseek-vl2",
    "gemma3.json": "Gemma 3 27B, which no runtime serves (gemma-3-27b-it)",
    "glm4_9b.json": "THUDM/glm-4-9b (ChatGLMModel); the catalogue's glm-4-9b-chat is the -hf conversion",
    "janus_1.3b.json": "Janus 1.3B; the catalogue has janus-pro-7b",
    "llava_1.5_7b_hf.json": "llava-hf/llava-1.5-7b-hf; the catalogue has liuhaotian/llava-v1.5-7b",
    "llava_v1.5_7b.json": "liuhaotian/llava-v1.5-7b, from which OME's LLaVA struct reads no heads, context or count",
    "mistral.json": "Mistral 7B v0.1, which no runtime serves (mistral-7b-v0-1)",
    "phi3.json": "Phi-3-mini-128k-instruct, which no runtime serves",
    "phi3small.json": "Phi-3-small-8k-instruct, which no runtime serves",
    "qwen2.5_0.5b.json": "Qwen2.5 0.5B, which no runtime serves",
    "qwen2.5_32b.json": "Qwen2.5 32B base, which no runtime serves (qwen2-5-32b); the instruct sibling is not certain",
    "qwen2.5_72b.json": "Qwen2.5 72B base, which no runtime serves (qwen2-5-72b); the instruct sibling is not certain",
    "qwen2_vl_2b.json": "Qwen2-VL-2B-Instruct, which no runtime serves",
    "qwen3_5_27b.json": "Qwen3.5 27B, not in the catalogue",
    "qwen3_5_35b_a3b.json": "Qwen3.5 35B-A3B, not in the catalogue",
    "qwen3_embedding_8b.json": "Qwen3-Embedding-8B, which no runtime serves",
    "qwen3_vl_2b_instruct.json": "Qwen3-VL-2B-Instruct, not in the catalogue",
    "qwen3_vl_30b_a3b_instruct.json": "Qwen3-VL-30B-A3B-Instruct, not in the catalogue",
    "skywork_reward_llama.json": "Skywork-Reward-Llama-3.1-8B-v0.2, which no runtime serves",
    "stablelm_3b.json": "StableLM 3B; the catalogue has stablelm-2-12b-chat and stablelm-tuned-alpha-7b",
    "xverse_7b.json": "XVERSE 7B; the catalogue has xverse-moe-a36b",
}

# Published total parameter counts of the mapped models, against which OME's config-only estimate is checked: by
# config file, each with the page it was read at (a model card, its paper or a page quoting them; a card read through
# a copy of its huggingface.co page is cited at huggingface.co). A size given only in a model's name or card headline
# ("7B") is taken as published. A file without an entry has no count verified: its count is left out.
PUBLISHED: dict[str, int] = {
    "baichuan2_7b.json": 7_000_000_000,  # https://arxiv.org/abs/2309.10305 ("7 billion and 13 billion parameters")
    "bge_large.json": 335_000_000,  # http://bge-model.com/bge/bge_v1_v1.5.html (bge-large-en-v1.5: 335M)
    "command_r_35b.json": 35_000_000_000,  # https://huggingface.co/CohereForAI/c4ai-command-r-v01 (35 billion)
    "dbrx_132b.json": 132_000_000_000,  # https://docs.api.nvidia.com/nim/reference/databricks-dbrx-instruct (132B)
    "deepseek_v3.json": 685_000_000_000,  # https://huggingface.co/deepseek-ai/DeepSeek-V3 (685B with the MTP module)
    "e5_mistral_7b.json": 7_110_000_000,  # https://www.runlocalai.co/models/e5-mistral-7b-instruct (7.11B)
    "exaone_7.8b.json": 7_800_000_000,  # https://arxiv.org/abs/2412.04862 (EXAONE 3.5 7.8B)
    "gemma3_text.json": 1_000_000_000,  # https://huggingface.co/blog/gemma3 (1 billion)
    # https://jaeminson.github.io/docs/Language%20Model/Foundation%20Model/gemma2 (the Gemma 2 report's 2.6B and 9B)
    "gemma_2_2b.json": 2_600_000_000,
    "gemma_2_2b_it.json": 2_600_000_000,
    "gemma_2_9b.json": 9_000_000_000,
    "gpt_oss_120b.json": 116_800_000_000,  # https://lephongphu.site/?p=726 (the gpt-oss model card: 116.8B total)
    "gpt_oss_20b.json": 20_900_000_000,  # https://lephongphu.site/?p=726 (the gpt-oss model card: 20.9B total)
    "gte_qwen2_7b.json": 7_000_000_000,  # https://gr.tbb.rip/models/Alibaba-NLP/gte-Qwen2-7B-instruct (7B)
    "internlm2_7b.json": 7_000_000_000,  # https://huggingface.co/internlm/internlm2-7b-reward (InternLM2 7B)
    "internlm2_reward.json": 7_000_000_000,  # https://huggingface.co/internlm/internlm2-7b-reward (7B)
    # https://thereflex.nl/posts/new-kimi-ai-coding-with-a-multimodal-long-context-brain (the card's table: 1T total)
    "kimi_k2_instruct.json": 1_000_000_000_000,
    "llama3.json": 70_000_000_000,  # https://www.modelcards.net/documents/26 (Llama 3: 8B and 70B)
    "llama3_1.json": 70_000_000_000,  # https://huggingface.co/meta-llama/Llama-3.1-70B (8B, 70B and 405B)
    "llama3_1_405b.json": 405_000_000_000,  # https://huggingface.co/meta-llama/Llama-3.1-405B (405B)
    "llama3_2_11b_vision.json": 10_600_000_000,  # https://aiwiki.ai/wiki/llama_3_2_vision (card: 11B, 10.6B actual)
    "llama3_2_1b.json": 1_230_000_000,  # https://huggingface.co/meta-llama/Llama-3.2-1B (1B (1.23B))
    "llama3_2_3b.json": 3_210_000_000,  # https://huggingface.co/meta-llama/Llama-3.2-1B (3B (3.21B))
    "llama3_2_90b_vision.json": 88_800_000_000,  # https://aiwiki.ai/wiki/llama_3_2_vision (card: 90B, 88.8B actual)
    # https://www.ibm.com/new/announcements/Meta-llama-4-maverick-and-llama-4-scout-now-available-in-watsonx-ai
    "llama4.json": 400_000_000_000,  # Maverick: 400B total (the same page for Scout)
    "llama4_scout_17b_16e.json": 109_000_000_000,  # Scout: 109B total
    "minicpm3_4b.json": 4_000_000_000,  # https://huggingface.co/openbmb/MiniCPM3-4B (4B)
    "mistral_7b_instruct.json": 7_300_000_000,  # https://lmstudio.ai/models/mistral (Mistral 7B: 7.3B)
    "mixtral.json": 46_700_000_000,  # https://ajkdrag.in/2-Zettels/56B-or-47B-in-Mixtral-8x7B-MoE (46.7B)
    "phimoe.json": 41_900_000_000,  # https://gigagpu.com/phi-3-5-vs-phi-3-improvements/ (Phi-3.5-MoE: 41.9B)
    "qwen2.5_1.5b.json": 1_540_000_000,  # https://apxml.com/models/qwen2-5-1-5b (card: 1.54B)
    "qwen2.5_3b.json": 3_090_000_000,  # https://fitmygpu.com/models/qwen-2.5-3b (card: 3.09B total)
    "qwen2.5_7b.json": 7_610_000_000,  # http://www.mynw.cn/news/702567.html (card: 7.61B)
    "qwen2_7b.json": 7_000_000_000,  # https://huggingface.co/Qwen/Qwen2-7B (the 7B Qwen2 base model)
    "qwen2_vl_7b.json": 8_300_000_000,  # https://docs.cognisoc.com/unillm/models/vision-language/qwen2-vl/ (8.3B)
    "qwen3_30b.json": 30_500_000_000,  # https://apxml.com/models/qwen3-30b-a3b (30.5B total)
    "qwen3_4b.json": 4_000_000_000,  # https://apxml.com/models/qwen3-4b (4.0B)
    "qwen3_8b_fp8.json": 8_200_000_000,  # https://apxml.com/models/qwen3-8b (8.2B)
    "qwen3_vl_235b.json": 235_000_000_000,  # https://docs.kanaries.net/es/articles/qwen3-vl (about 235B, A22B)
    "qwen_7b.json": 7_000_000_000,  # https://huggingface.co/Qwen/Qwen-7B-Chat (the 7B-parameter Qwen)
    "smollm_1.7b.json": 1_700_000_000,  # https://huggingface.co/blog/smollm (1.7B)
}
# Mapped files whose published total was not found (their counts are left out): gemma_7b.json (Gemma 7B's total
# beyond its name), phi3_v.json (Phi-3-vision-128k), qwen2.5_14b.json and qwen2.5_vl_7b.json.


@dataclass(frozen=True)
class Facts:
    """The overlay's ``modelConfiguration`` for each model, and the notes on what was left out."""

    by_model: dict[str, dict[str, Any]]
    left_out: list[str]


def facts(folder: Path, served: set[str]) -> Facts:
    """The facts of each catalogue model in ``served`` that a config.json in ``folder`` is for."""
    by_model: dict[str, dict[str, Any]] = {}
    left_out: list[str] = []
    for path in sorted(folder.glob("*.json")):
        if path.name not in MAPPING:
            left_out.append(f"{path.name}: {UNMAPPED.get(path.name, 'not mapped')}")
            continue
        config = json.loads(path.read_text(encoding="utf-8"))
        found = read(config)
        if found is None:
            left_out.append(f"{path.name}: model_type {config.get('model_type')} not ported")
            continue
        count = found.count
        published = PUBLISHED.get(path.name)
        if count and published is None:
            left_out.append(f"{path.name}: parameter count left out, no published total verified")
            count = None
        elif count and published is not None and abs(count - published) > TOLERANCE * published:
            shown, real = format_param_count(count), f"{published / 1e9:g}B"
            left_out.append(f"{path.name}: parameter count left out, OME's config-only {shown} vs published {real}")
            count = None
        models, _ = MAPPING[path.name]
        for model, scope in models:
            if model not in served:
                left_out.append(f"{path.name}: {model} is served by no runtime")
                continue
            entry: dict[str, Any] = {}
            if found.heads:
                entry["num_attention_heads"] = found.heads
            if found.kv_heads:
                entry["num_key_value_heads"] = found.kv_heads
            if count:
                entry["parameter_count"] = format_param_count(count)
            if scope == CONFIG:
                if found.context:
                    entry["context_length"] = found.context
                if found.dtype:
                    entry["torch_dtype"] = found.dtype
                if found.quant:
                    entry["quant_method"] = found.quant
            by_model[model] = entry
    return Facts(by_model, left_out)
