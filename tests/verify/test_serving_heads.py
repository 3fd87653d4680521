"""tp-heads' rule: the attention size an engine starts, and whether it splits a model's heads and KV heads."""

from __future__ import annotations

import pytest

from omerender.verify.serving.checks.heads import attention_size, fits
from omerender.verify.serving.launch import read

SGLANG = ["python3", "-m", "sglang.launch_server"]
VLLM = ["vllm", "serve", "/models/m"]


def _size(command: list[str]) -> int | None:
    found = read({"command": command, "image": "img"}, {})
    assert found is not None
    size = attention_size(found)
    return None if size is None else size[0]


@pytest.mark.parametrize(
    ("command", "size"),
    [
        ([*SGLANG], 1),
        ([*SGLANG, "--tp", "8"], 8),
        ([*SGLANG, "--tp", "8", "--dp", "2"], 8),  # dp replicas each start the whole tp
        ([*SGLANG, "--tp", "8", "--dp", "2", "--enable-dp-attention"], 4),
        ([*SGLANG, "--tp", "8", "--dp", "3", "--enable-dp-attention"], None),  # gpu-parallelism's finding
        ([*SGLANG, "--tp", "$(UNKNOWN)"], None),
        ([*VLLM, "-tp", "4", "-dp", "2"], 4),  # vLLM's data parallelism replicates the model
    ],
)
def test_the_attention_size_each_engine_starts(command: list[str], size: int | None) -> None:
    assert _size(command) == size


@pytest.mark.parametrize(
    ("size", "heads", "kv_heads", "ok"),
    [
        (16, 40, 8, False),  # srt-llama-4-maverick: 40 heads over 16
        (8, 40, 8, True),
        (40, 40, 8, True),  # 40 is a multiple of 8: each KV head replicated 5 times
        (8, 48, 12, False),  # 8 divides 48 but neither divides 12 nor is a multiple of it
        (4, 48, 12, True),
        (16, 128, 128, True),  # DeepSeek: MLA's 128 heads
        (3, 40, None, False),
        (4, 40, None, True),  # KV heads unknown: the heads alone
        (12, 48, 6, True),  # more GPUs than KV heads, a multiple of them
    ],
)
def test_fits_the_rule_both_engines_assert(size: int, heads: int, kv_heads: int | None, ok: bool) -> None:
    assert fits(size, heads, kv_heads) is ok
