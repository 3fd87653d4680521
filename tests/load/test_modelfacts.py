"""model_facts(): a model's serving facts, its own spec first, the --model-metadata overlay where it lacks them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from stage_objects import API, objects

from omerender.load.metadata import apply_overlay
from omerender.load.modelfacts import model_facts, parse_parameter_count
from omerender.load.obj import Obj


def model(spec: dict[str, Any], name: str = "m") -> Obj:
    return objects({"apiVersion": API, "kind": "ClusterBaseModel", "metadata": {"name": name}, "spec": spec})[0]


def overlaid(tmp_path: Path, overlay: str, spec: dict[str, Any]) -> tuple[Obj, list[Any], Path]:
    path = tmp_path / "meta.yaml"
    path.write_text(overlay, encoding="utf-8")
    made = model(spec)
    return made, apply_overlay(str(path), [made]), path


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("7B", 7_000_000_000),
        ("7.24B", 7_240_000_000),
        ("596.05M", 596_050_000),
        ("1.5T", 1_500_000_000_000),
        ("340", 340),
        ("1K", 1_000),
        (70_553_706_496, 70_553_706_496),
    ],
)
def test_parameter_counts_as_ome_formats_them(text: Any, count: int) -> None:
    assert parse_parameter_count(text) == count


@pytest.mark.parametrize("text", ["0", "0B", "-7B", "7 B", "seven", "7b", True, 0, -3, 7.5, "", "1e9"])
def test_what_is_no_parameter_count(text: Any) -> None:
    assert parse_parameter_count(text) is None


def test_a_models_own_facts_with_where_they_are_written() -> None:
    made = model(
        {
            "modelConfiguration": {
                "num_attention_heads": 40,
                "num_key_value_heads": 8,
                "parameter_count": "402B",
                "context_length": 1048576,
                "torch_dtype": "bfloat16",
            },
            "quantization": "fp8",
        }
    )
    facts = model_facts(made)
    assert facts.attention_heads is not None and facts.attention_heads.value == 40
    assert facts.kv_heads is not None and facts.kv_heads.value == 8
    assert facts.parameter_count is not None and facts.parameter_count.value == 402_000_000_000
    assert facts.context_length is not None and facts.context_length.value == 1048576
    assert facts.bytes_per_parameter is not None
    assert (facts.bytes_per_parameter.value, facts.bytes_per_parameter.basis) == (1.0, "quantization fp8")
    assert facts.attention_heads.keys == ("spec", "modelConfiguration", "num_attention_heads")
    assert not facts.attention_heads.overlay
    path, line, _ = facts.attention_heads.located(made)
    assert path == made.path and line > 0
    assert facts.problems == ()


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ({"quantization": "int4", "modelConfiguration": {"torch_dtype": "bfloat16"}}, (0.5, "quantization int4")),
        ({"quantization": "fbgemm_fp8"}, (1.0, "quantization fbgemm_fp8")),
        ({"quantization": "awq"}, None),  # a value OME does not define: not sized
        (
            {"modelConfiguration": {"quant_method": "fbgemm_fp8", "torch_dtype": "bfloat16"}},
            (1.0, "quant_method fbgemm_fp8"),
        ),
        ({"modelConfiguration": {"quant_method": "gptq_int4"}}, (0.5, "quant_method gptq_int4")),
        ({"modelConfiguration": {"quant_method": "mxfp4", "torch_dtype": "bfloat16"}}, None),
        (
            {"modelConfiguration": {"quant_method": "float-quantized", "torch_dtype": "float8"}},
            (1.0, "torch_dtype float8"),
        ),
        ({"modelConfiguration": {"torch_dtype": "bfloat16"}}, (2.0, "torch_dtype bfloat16")),
        ({"modelConfiguration": {"torch_dtype": "Float32"}}, (4.0, "torch_dtype Float32")),
        ({"modelConfiguration": {"torch_dtype": "complex64"}}, None),  # OME would assume 4 bytes: unknown here
        ({}, None),
    ],
)
def test_bytes_per_parameter_come_from_the_quantization_before_the_dtype(spec: dict[str, Any], expected: Any) -> None:
    found = model_facts(model(spec)).bytes_per_parameter
    assert (found.value, found.basis) == expected if found is not None else expected is None


def test_context_length_falls_back_to_max_tokens() -> None:
    facts = model_facts(model({"maxTokens": 8192}))
    assert facts.context_length is not None and facts.context_length.keys == ("spec", "maxTokens")
    assert facts.context_length.value == 8192


def test_unreadable_own_values_are_no_facts_and_say_why() -> None:
    made = model({"modelConfiguration": {"num_attention_heads": "forty", "parameter_count": "lots"}})
    facts = model_facts(made)
    assert facts.attention_heads is None and facts.parameter_count is None
    assert [d.message for d in facts.problems] == [
        "ClusterBaseModel m: spec.modelConfiguration.num_attention_heads is 'forty', not a positive integer; "
        "the serving checks do not use it",
        "ClusterBaseModel m: spec.modelConfiguration.parameter_count is 'lots', not a parameter count such as 7B or "
        "7.24B; the serving checks do not use it",
    ]
    assert all(d.severity == "warning" and d.line > 0 for d in facts.problems)


def test_the_overlay_fills_what_the_model_lacks_and_says_where(tmp_path: Path) -> None:
    overlay = (
        "models:\n"
        "  m:\n"
        "    modelParameterSize: 40B\n"
        "    modelConfiguration:\n"
        "      num_attention_heads: 64\n"
        "      num_key_value_heads: 8\n"
        "      parameter_count: 290B\n"
        "      torch_dtype: bfloat16\n"
    )
    made, problems, path = overlaid(tmp_path, overlay, {"modelConfiguration": {"num_attention_heads": 40}})
    facts = model_facts(made)
    assert facts.attention_heads is not None and not facts.attention_heads.overlay  # the model's own wins
    assert facts.attention_heads.value == 40
    assert facts.kv_heads is not None and facts.kv_heads.overlay
    assert facts.kv_heads.located(made) == (str(path), 6, 28)
    assert facts.parameter_count is not None and facts.parameter_count.value == 290_000_000_000
    assert facts.parameter_count.located(made) == (str(path), 7, 24)
    assert facts.bytes_per_parameter is not None and facts.bytes_per_parameter.value == 2.0
    assert [d.message for d in problems] == [
        "ClusterBaseModel m sets modelConfiguration.num_attention_heads itself (40); the overlay's 64 is not used"
    ]
    assert (problems[0].line, problems[0].col) == (5, 28)


def test_the_overlays_matching_size_is_never_a_fact_but_the_models_own_is(tmp_path: Path) -> None:
    made, _, _ = overlaid(tmp_path, "models:\n  m:\n    modelParameterSize: 40B\n", {})
    assert made.body["spec"]["modelParameterSize"] == "40B"  # matching reads it as before
    assert model_facts(made).parameter_count is None
    own = model_facts(model({"modelParameterSize": "7.24B"})).parameter_count
    assert own is not None and (own.value, own.keys) == (7_240_000_000, ("spec", "modelParameterSize"))


def test_a_non_mapping_model_configuration_keeps_the_overlays_facts_out(tmp_path: Path) -> None:
    made, problems, _ = overlaid(
        tmp_path, "models:\n  m:\n    modelConfiguration: {num_attention_heads: 64}\n", {"modelConfiguration": "x"}
    )
    assert model_facts(made).attention_heads is None
    assert [d.message for d in problems] == [
        "ClusterBaseModel m sets modelConfiguration to a non-mapping; the overlay's facts are not used"
    ]


@pytest.mark.parametrize(
    ("entry", "message", "at"),
    [
        ("modelConfiguration: [1]", "m: modelConfiguration must be a mapping of facts", "[1]"),
        (
            "modelConfiguration: {heads: 4}",
            "m: modelConfiguration.heads is not a fact omerender reads (allowed: num_attention_heads, "
            "num_key_value_heads, parameter_count, context_length, torch_dtype, quant_method)",
            "4}",
        ),
        (
            "modelConfiguration: {num_key_value_heads: 0}",
            "m: modelConfiguration.num_key_value_heads must be a positive integer",
            "0}",
        ),
        (
            'modelConfiguration: {context_length: "4096"}',
            "m: modelConfiguration.context_length must be a positive integer",
            '"4096"',
        ),
        (
            "modelConfiguration: {parameter_count: 7 billion}",
            "m: modelConfiguration.parameter_count must be a positive integer or a count such as 7B, 7.24B, 596.05M "
            "or 1.5T",
            "7 billion",
        ),
        ("modelConfiguration: {torch_dtype: 16}", "m: modelConfiguration.torch_dtype must be a non-empty string", "16"),
    ],
)
def test_overlay_facts_are_checked_at_their_value(tmp_path: Path, entry: str, message: str, at: str) -> None:
    made, problems, path = overlaid(tmp_path, f"models:\n  m:\n    {entry}\n", {})
    column = len("    ") + entry.index(at) + 1
    assert [(d.path, d.line, d.col, d.severity, d.message) for d in problems] == [
        (str(path), 3, column, "error", message)
    ]
    assert model_facts(made) == model_facts(model({}))  # nothing invalid is applied
