"""gpu-memory-fit's readings of a launch (verify/serving/checks/memory.py): the fraction and the shards."""

from __future__ import annotations

from fractions import Fraction

import pytest

from omerender.verify.serving.checks import memory
from omerender.verify.serving.engines import Engine
from omerender.verify.serving.launch import Launch


def test_the_fraction_is_0_9_unless_given() -> None:
    assert memory._fraction(Launch(Engine.SGLANG)) == Fraction(9, 10)
    assert memory._fraction(Launch(Engine.VLLM)) == Fraction(9, 10)
    assert memory._fraction(Launch(Engine.SGLANG, {"mem_fraction": "0.85"})) == Fraction(85, 100)


@pytest.mark.parametrize("given", [None, "", "high", "0", "1.5", "nan", "1e400", "9" * 30])
def test_a_fraction_given_but_unknown_or_not_a_share_skips_the_check(given: str | None) -> None:
    assert memory._fraction(Launch(Engine.VLLM, {"mem_fraction": given})) is None


def test_the_shards_are_tp_x_pp_and_dp_only_with_vllm_expert_parallel() -> None:
    sglang = Launch(Engine.SGLANG, {"tp": "4", "pp": "2", "dp": "2"})
    assert memory._shards(sglang) == (8, "--tp-size 4 x --pp-size 2")
    plain = Launch(Engine.VLLM, {"tp": "2", "dp": "4"})
    assert memory._shards(plain) == (2, "--tensor-parallel-size 2")
    expert = Launch(Engine.VLLM, {"tp": "2", "dp": "4", "expert_parallel": True})
    assert memory._shards(expert) == (8, "--tensor-parallel-size 2 x --data-parallel-size 4 (--enable-expert-parallel)")


def test_unknown_parallelism_skips_the_check() -> None:
    assert memory._shards(Launch(Engine.SGLANG, {"tp": None})) is None
    assert memory._shards(Launch(Engine.SGLANG, {"tp": "0"})) is None
    assert memory._shards(Launch(Engine.VLLM, {"tp": "2", "dp": None, "expert_parallel": True})) is None


def _read(engine: Engine, *args: str) -> Launch:
    from omerender.verify.serving.launch import Token

    launch = Launch(engine)
    for at, arg in enumerate(args):
        name, _, value = arg.partition("=")
        key = {"--mem-frac": "mem_fraction", "--gpu_memory_utilization": "mem_fraction", "--tp": "tp", "-tp": "tp"}
        launch.values[key[name]] = value
        launch.tokens[key[name]] = Token(arg, "args", at, arg)
    return launch


def test_options_are_named_as_the_runtime_wrote_them() -> None:
    sglang = _read(Engine.SGLANG, "--mem-frac=0.8", "--tp=2")
    assert sglang.spelling("mem_fraction", "--mem-fraction-static") == "--mem-frac"
    assert memory._shards(sglang) == (2, "--tp 2")
    vllm = _read(Engine.VLLM, "--gpu_memory_utilization=0.8", "-tp=4")
    assert vllm.spelling("mem_fraction", "--gpu-memory-utilization") == "--gpu_memory_utilization"
    assert memory._shards(vllm) == (4, "-tp 4")
    assert Launch(Engine.SGLANG).spelling("mem_fraction", "--mem-fraction-static") == "--mem-fraction-static"
