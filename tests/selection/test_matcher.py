"""OME runtime matching, validation and auto-selection (ome-selection.md §1-2, ome-rendering.md §2)."""

from __future__ import annotations

import copy
import functools
import math
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from omerender.selection.matching import (
    NO_AUTOSELECT,
    NON_POSITIVE_SCORE,
    OMEPanic,
    accelerator_compatible,
    apply_format_defaults,
    incompatibility,
    validate_named_runtime,
)
from omerender.selection.scoring import (
    Candidate,
    Ranked,
    compare_ranked,
    format_score,
    runtime_score,
    select_runtime,
    supported_format_index,
)
from omerender.selection.versions import parse_model_size

OME = Path(__file__).resolve().parents[2] / ".." / "shared" / "ome"
DROP = object()

MODEL: dict[str, Any] = {
    "modelFormat": {"name": "safetensors", "version": "1.0.0"},
    "modelFramework": {"name": "transformers", "version": "4.45.0"},
    "modelArchitecture": "LlamaForCausalLM",
}
ENTRY: dict[str, Any] = {
    "modelFormat": {"name": "safetensors", "version": "1.0.0"},
    "modelFramework": {"name": "transformers", "version": "4.45.0"},
    "modelArchitecture": "LlamaForCausalLM",
    "autoSelect": True,
}
LABEL = "mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.45.0"
NOT_IN = f"model format '{LABEL}' not in supported formats: "


def edit(base: dict, changes: dict | None = None) -> dict:
    """Deep copy of ``base`` with dotted-path ``changes``; the value DROP deletes the key."""
    out = copy.deepcopy(base)
    for path, value in (changes or {}).items():
        *parents, leaf = path.split(".")
        node = out
        for key in parents:
            node = node.setdefault(key, {})
        if value is DROP:
            node.pop(leaf, None)
        else:
            node[leaf] = value
    return out


def rt(*entries: dict, **spec: Any) -> dict:
    return {"supportedModelFormats": list(entries), **spec}


def model(**changes: Any) -> dict:
    return edit(MODEL, {k.replace("__", "."): v for k, v in changes.items()})


def entry(**changes: Any) -> dict:
    return edit(ENTRY, {k.replace("__", "."): v for k, v in changes.items()})


# --- parseModelSize ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1T", 1e12),
        ("7B", 7e9),
        ("350M", 3.5e8),
        ("1.5B", 1.5e9),
        ("1000", 1000.0),
        ("2B", 2e9),
        ("70B", 7e10),
        ("1.5T", 1.5e12),
        ("500M", 5e8),
        ("7.11B", 7.11 * 1e9),
        ("1e3B", 1e12),
        ("-1B", -1e9),
        ("Inf", math.inf),
        ("1_000M", 1e9),
        ("7b", 0.0),
        ("1.5K", 0.0),
        (" 7B", 0.0),
        ("7 B", 0.0),
        ("", 0.0),
        ("B", 0.0),
        ("1TB", 0.0),
        ("1e400B", 0.0),
        (None, 0.0),
    ],
    ids=repr,
)
def test_parse_model_size(text: str | None, expected: float) -> None:
    assert parse_model_size(text) == expected


def test_parse_model_size_nan() -> None:
    assert math.isnan(parse_model_size("NaN"))


# --- CRD defaults --------------------------------------------------------------------------


def test_apply_format_defaults_runtime() -> None:
    spec = rt(
        entry(),
        entry(modelFormat__weight=0, modelFormat__operator="GreaterThan", modelFramework__weight=None),
        entry(modelFramework=DROP),
        "not-a-mapping",
        disabled=False,
    )
    before = copy.deepcopy(spec)
    out = apply_format_defaults(spec)
    assert spec == before
    formats = out["supportedModelFormats"]
    assert formats[0]["modelFormat"] == {"name": "safetensors", "version": "1.0.0", "operator": "Equal", "weight": 1}
    assert formats[0]["modelFramework"] == {
        "name": "transformers",
        "version": "4.45.0",
        "operator": "Equal",
        "weight": 1,
    }
    assert formats[1]["modelFormat"]["weight"] == 0
    assert formats[1]["modelFormat"]["operator"] == "GreaterThan"
    assert formats[1]["modelFramework"]["weight"] == 1
    assert "modelFramework" not in formats[2]
    assert formats[3] == "not-a-mapping"
    assert out["disabled"] is False


def test_apply_format_defaults_model() -> None:
    out = apply_format_defaults(model(modelFramework=DROP))
    assert out["modelFormat"] == {"name": "safetensors", "version": "1.0.0", "operator": "Equal", "weight": 1}
    assert "modelFramework" not in out
    assert apply_format_defaults({}) == {}


# --- compatibility (GetCompatibilityDetails) ----------------------------------------------

PIPELINE = {"className": "QwenImagePipeline", "scheduler": {"library": "diffusers", "type": "FlowMatch"}}


@pytest.mark.parametrize(
    ("model_spec", "runtime_spec", "expected"),
    [
        pytest.param(MODEL, rt(ENTRY), None, id="compatible"),
        pytest.param(MODEL, rt(ENTRY, disabled=False), None, id="disabled-false-is-fine"),
        pytest.param(MODEL, rt(entry(modelArchitecture="X"), disabled=True), "runtime is disabled", id="disabled"),
        pytest.param(
            MODEL,
            rt(entry(modelArchitecture="MistralForCausalLM")),
            NOT_IN + "architecture mismatch (model=LlamaForCausalLM, runtime=MistralForCausalLM)",
            id="architecture-mismatch",
        ),
        pytest.param(
            model(modelArchitecture=DROP),
            rt(ENTRY),
            "model format 'mt:safetensors:1.0.0:transformers:4.45.0' not in supported formats: "
            "model has no architecture but runtime requires LlamaForCausalLM",
            id="model-lacks-architecture",
        ),
        pytest.param(
            MODEL,
            rt(entry(modelArchitecture=DROP)),
            NOT_IN + "model has architecture LlamaForCausalLM but runtime has no architecture requirement",
            id="runtime-lacks-architecture",
        ),
        pytest.param(
            model(quantization="fp8"),
            rt(entry(quantization="int4")),
            "model format 'mt:safetensors:1.0.0:LlamaForCausalLM:fp8:transformers:4.45.0' not in "
            "supported formats: quantization mismatch (model=fp8, runtime=int4)",
            id="quantization-mismatch",
        ),
        pytest.param(
            MODEL,
            rt(entry(quantization="fp8")),
            NOT_IN + "model has no quantization but runtime requires fp8",
            id="model-lacks-quantization",
        ),
        pytest.param(
            model(quantization="fp8"),
            rt(ENTRY),
            "model format 'mt:safetensors:1.0.0:LlamaForCausalLM:fp8:transformers:4.45.0' not in "
            "supported formats: model has quantization fp8 but runtime has no quantization requirement",
            id="runtime-lacks-quantization",
        ),
        pytest.param(
            model(modelFormat__name="pytorch"),
            rt(ENTRY),
            "model format 'mt:pytorch:1.0.0:LlamaForCausalLM:transformers:4.45.0' not in supported formats: "
            "format name mismatch (model=pytorch, runtime=safetensors)",
            id="format-name-mismatch",
        ),
        pytest.param(
            model(modelFormat__name="SafeTensors"),
            rt(ENTRY),
            "model format 'mt:SafeTensors:1.0.0:LlamaForCausalLM:transformers:4.45.0' not in supported "
            "formats: format name mismatch (model=SafeTensors, runtime=safetensors)",
            id="format-name-case-sensitive",
        ),
        pytest.param(
            MODEL,
            rt(entry(modelFormat__version="2.0.0")),
            NOT_IN + "format version mismatch (model=1.0.0, runtime=2.0.0)",
            id="format-version-mismatch",
        ),
        pytest.param(
            model(modelFormat__version=DROP),
            rt(ENTRY),
            "model format 'mt:safetensors:LlamaForCausalLM:transformers:4.45.0' not in supported formats: "
            "model has no format version but runtime requires 1.0.0",
            id="model-lacks-format-version",
        ),
        pytest.param(
            MODEL,
            rt(entry(modelFormat__version=DROP)),
            NOT_IN + "model has format version but runtime has no version requirement",
            id="runtime-lacks-format-version",
        ),
        pytest.param(
            MODEL,
            rt(entry(modelFramework__name="diffusers")),
            NOT_IN + "framework name mismatch (model=transformers, runtime=diffusers)",
            id="framework-name-mismatch",
        ),
        pytest.param(
            MODEL,
            rt(entry(modelFramework__version="4.44.0")),
            NOT_IN + "framework version mismatch (model=4.45.0, runtime=4.44.0)",
            id="framework-version-mismatch",
        ),
        pytest.param(
            model(modelFramework__version=DROP),
            rt(ENTRY),
            "model format 'mt:safetensors:1.0.0:LlamaForCausalLM:transformers' not in supported formats: "
            "model has no framework version but runtime requires 4.45.0",
            id="model-lacks-framework-version",
        ),
        pytest.param(
            MODEL,
            rt(entry(modelFramework__version=DROP)),
            NOT_IN + "model has framework version but runtime has no version requirement",
            id="runtime-lacks-framework-version",
        ),
        pytest.param(
            model(modelFramework=DROP),
            rt(entry(modelFramework__version=DROP)),
            "model format 'mt:safetensors:1.0.0:LlamaForCausalLM' not in supported formats: "
            "model has no framework but runtime requires transformers",
            id="model-lacks-framework",
        ),
        pytest.param(
            MODEL,
            rt(entry(modelFramework=DROP)),
            NOT_IN + "model has framework transformers but runtime has no framework requirement",
            id="runtime-lacks-framework",
        ),
        pytest.param(
            MODEL,
            rt(
                entry(
                    modelFramework__version="4.45.0",
                    modelFramework__operator="GreaterThanOrEqual",
                    modelFramework__weight=1,
                )
            ),
            None,
            id="gte-equal-versions",
        ),
        pytest.param(
            MODEL,
            rt(entry(modelFramework__version="4.50.0", modelFramework__operator="GreaterThanOrEqual")),
            None,
            id="gte-runtime-newer",
        ),
        pytest.param(
            MODEL,
            rt(entry(modelFramework__version="4.33.1", modelFramework__operator="GreaterThanOrEqual")),
            NOT_IN + "framework version mismatch (model=4.45.0, runtime=4.33.1)",
            id="gte-runtime-older",
        ),
        pytest.param(MODEL, rt(entry(modelFormat=DROP)), NOT_IN + "unknown mismatch", id="entry-without-modelFormat"),
        pytest.param(MODEL, rt(entry(modelFormat=None)), NOT_IN + "unknown mismatch", id="entry-null-modelFormat"),
        pytest.param(
            model(quantization="fp8"),
            rt(entry(modelArchitecture="Qwen2ForCausalLM", modelFormat__name="gguf", modelFramework__name="vllm")),
            "model format 'mt:safetensors:1.0.0:LlamaForCausalLM:fp8:transformers:4.45.0' not in supported "
            "formats: architecture mismatch (model=LlamaForCausalLM, runtime=Qwen2ForCausalLM), model has "
            "quantization fp8 but runtime has no quantization requirement, format name mismatch "
            "(model=safetensors, runtime=gguf), framework name mismatch (model=transformers, runtime=vllm)",
            id="fragments-joined-by-comma",
        ),
        pytest.param(
            MODEL,
            rt(entry(modelArchitecture="A"), entry(modelFormat__version="2")),
            NOT_IN + "architecture mismatch (model=LlamaForCausalLM, runtime=A); "
            "format version mismatch (model=1.0.0, runtime=2)",
            id="entries-joined-by-semicolon",
        ),
        pytest.param(MODEL, rt(entry(modelArchitecture="A"), ENTRY), None, id="second-entry-matches"),
        pytest.param(MODEL, rt(), NOT_IN + "no supported formats defined", id="no-formats"),
        pytest.param(MODEL, {}, NOT_IN + "no supported formats defined", id="formats-absent"),
        pytest.param(
            model(modelParameterSize="70B"),
            rt(ENTRY, modelSizeRange={"min": "2B", "max": "4B"}),
            "model size 70B is outside supported range [2B, 4B]",
            id="size-above",
        ),
        pytest.param(
            model(modelParameterSize="500M"),
            rt(ENTRY, modelSizeRange={"min": "2B", "max": "4B"}),
            "model size 500M is outside supported range [2B, 4B]",
            id="size-below",
        ),
        pytest.param(
            model(modelParameterSize="2B"),
            rt(ENTRY, modelSizeRange={"min": "2B", "max": "4B"}),
            None,
            id="size-inclusive-min",
        ),
        pytest.param(
            model(modelParameterSize="4000M"),
            rt(ENTRY, modelSizeRange={"min": "2B", "max": "4B"}),
            None,
            id="size-inclusive-max",
        ),
        pytest.param(
            model(modelParameterSize="7b"),
            rt(ENTRY, modelSizeRange={"min": "2B", "max": "4B"}),
            "model size 7b is outside supported range [2B, 4B]",
            id="size-unparseable-is-0",
        ),
        pytest.param(
            model(modelParameterSize="1B"),
            rt(ENTRY, modelSizeRange={"min": "1.5K", "max": "2B"}),
            None,
            id="bound-unparseable-is-0",
        ),
        pytest.param(
            model(modelParameterSize="NaN"),
            rt(ENTRY, modelSizeRange={"min": "2B", "max": "4B"}),
            None,
            id="size-nan-passes",
        ),
        pytest.param(MODEL, rt(ENTRY, modelSizeRange={"min": "2B", "max": "4B"}), None, id="model-without-size"),
        pytest.param(model(modelParameterSize="70B"), rt(ENTRY), None, id="runtime-without-range"),
        pytest.param(
            model(modelParameterSize="70B"),
            rt(entry(modelArchitecture="A"), modelSizeRange={"min": "2B", "max": "4B"}),
            NOT_IN + "architecture mismatch (model=LlamaForCausalLM, runtime=A)",
            id="format-before-size",
        ),
        pytest.param(
            MODEL,
            rt(entry(modelArchitecture="A"), modelSizeRange={"min": "2B"}),
            NOT_IN + "architecture mismatch (model=LlamaForCausalLM, runtime=A)",
            id="one-sided-range-unread-when-format-fails",
        ),
        # diffusion pipelines
        pytest.param(
            MODEL,
            rt(entry(diffusionPipeline=PIPELINE)),
            NOT_IN + "diffusion pipeline required by runtime but not specified in model",
            id="pipeline-missing",
        ),
        pytest.param(
            model(diffusionPipeline={}),
            rt(entry(diffusionPipeline=PIPELINE)),
            NOT_IN + "pipeline class mismatch (model=<nil>, runtime=QwenImagePipeline)",
            id="pipeline-class-nil",
        ),
        pytest.param(
            model(diffusionPipeline={"className": "SDXL"}),
            rt(entry(diffusionPipeline=PIPELINE)),
            NOT_IN + "pipeline class mismatch (model=SDXL, runtime=QwenImagePipeline)",
            id="pipeline-class-mismatch",
        ),
        pytest.param(
            model(diffusionPipeline={"className": "QwenImagePipeline"}),
            rt(entry(diffusionPipeline=PIPELINE)),
            NOT_IN + "component scheduler required by runtime but not specified in model",
            id="pipeline-component-missing",
        ),
        pytest.param(
            model(
                diffusionPipeline={
                    "className": "QwenImagePipeline",
                    "scheduler": {"library": "transformers", "type": "Other"},
                }
            ),
            rt(entry(diffusionPipeline=PIPELINE)),
            NOT_IN + "scheduler library mismatch (model=transformers, runtime=diffusers)",
            id="pipeline-library-before-type",
        ),
        pytest.param(
            model(
                diffusionPipeline={
                    "className": "QwenImagePipeline",
                    "scheduler": {"library": "diffusers", "type": "Other"},
                }
            ),
            rt(entry(diffusionPipeline=PIPELINE)),
            NOT_IN + "scheduler type mismatch (model=Other, runtime=FlowMatch)",
            id="pipeline-type-mismatch",
        ),
        pytest.param(
            model(diffusionPipeline={"vae": {"library": "x", "type": "y"}}),
            rt(entry(diffusionPipeline={"vae": {"type": "", "library": ""}})),
            None,
            id="pipeline-empty-fields-not-compared",
        ),
        pytest.param(
            model(diffusionPipeline={"vae": {}}),
            rt(entry(diffusionPipeline={"vae": {}, "transformer": {}})),
            NOT_IN + "component transformer required by runtime but not specified in model",
            id="pipeline-components-in-fixed-order",
        ),
        pytest.param(
            model(diffusionPipeline={"vae": {}}),
            rt(entry(diffusionPipeline={"additionalComponents": {"image_processor": {"type": "P"}}})),
            NOT_IN + "diffusion pipeline missing required additional components",
            id="pipeline-additional-missing",
        ),
        pytest.param(
            model(diffusionPipeline={"additionalComponents": {"other": {}}}),
            rt(entry(diffusionPipeline={"additionalComponents": {"image_processor": {"type": "P"}}})),
            NOT_IN + "diffusion component image_processor missing in model",
            id="pipeline-additional-key-missing",
        ),
        pytest.param(
            model(diffusionPipeline={"additionalComponents": {"image_processor": {"type": "Q"}}}),
            rt(entry(diffusionPipeline={"additionalComponents": {"image_processor": {"type": "P"}}})),
            NOT_IN + "image_processor type mismatch (model=Q, runtime=P)",
            id="pipeline-additional-type",
        ),
        pytest.param(
            model(diffusionPipeline={"additionalComponents": {"image_processor": None}}),
            rt(entry(diffusionPipeline={"additionalComponents": {"image_processor": None}})),
            None,
            id="pipeline-additional-null-is-zero-value",
        ),
        pytest.param(
            model(diffusionPipeline=PIPELINE), rt(entry(diffusionPipeline=PIPELINE)), None, id="pipeline-match"
        ),
        pytest.param(model(diffusionPipeline=PIPELINE), rt(ENTRY), None, id="pipeline-only-on-model"),
        pytest.param(
            MODEL,
            rt(entry(diffusionPipeline=PIPELINE, modelArchitecture="A")),
            NOT_IN + "diffusion pipeline required by runtime but not specified in model, "
            "architecture mismatch (model=LlamaForCausalLM, runtime=A)",
            id="pipeline-first-fragment",
        ),
    ],
)
def test_incompatibility(model_spec: dict, runtime_spec: dict, expected: str | None) -> None:
    assert incompatibility(runtime_spec, model_spec) == expected


@pytest.mark.parametrize("size_range", [{"min": "2B"}, {"max": "4B"}, {}, {"min": None, "max": "4B"}])
def test_one_sided_range_is_an_ome_panic(size_range: dict) -> None:
    runtime_spec = rt(ENTRY, modelSizeRange=size_range)
    assert incompatibility(runtime_spec, MODEL) is None  # model without size: bounds never read
    with pytest.raises(OMEPanic, match="nil pointer dereference"):
        incompatibility(runtime_spec, model(modelParameterSize="3B"))
    with pytest.raises(OMEPanic):
        select_runtime([Candidate("r", False, runtime_spec)], model(modelParameterSize="3B"), "ns")


# --- named runtime (ValidateRuntime) -------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "runtime_spec", "namespaced", "model_spec", "expected"),
    [
        pytest.param("r", rt(ENTRY), False, MODEL, None, id="compatible"),
        pytest.param("r", rt(entry(autoSelect=False)), False, MODEL, None, id="autoselect-not-required"),
        pytest.param(
            "r",
            rt(ENTRY),
            False,
            model(modelFormat=DROP),
            "invalid model specification: modelFormat.name: model format name is required",
            id="model-without-format",
        ),
        pytest.param(
            "r",
            rt(ENTRY, disabled=True),
            True,
            model(modelFormat__name=""),
            "invalid model specification: modelFormat.name: model format name is required",
            id="model-checked-before-disabled",
        ),
        pytest.param(
            "r",
            rt(ENTRY),
            False,
            None,
            "invalid model specification: model: model specification is nil",
            id="model-nil",
        ),
        pytest.param(
            "my-rt",
            rt(ENTRY, disabled=True),
            True,
            MODEL,
            "namespace-scoped runtime my-rt is disabled",
            id="disabled-namespaced",
        ),
        pytest.param(
            "my-rt",
            rt(ENTRY, disabled=True),
            False,
            MODEL,
            "cluster-scoped runtime my-rt is disabled",
            id="disabled-cluster",
        ),
        pytest.param(
            "sglang-llama-3-2-3b",
            rt(ENTRY),
            False,
            model(modelFramework=DROP),
            "runtime sglang-llama-3-2-3b does not support model safetensors: model format "
            "'mt:safetensors:1.0.0:LlamaForCausalLM' not in supported formats: model has no framework but "
            "runtime requires transformers",
            id="ome-rendering-example",
        ),
        pytest.param(
            "srt-x",
            rt(ENTRY, modelSizeRange={"min": "7B", "max": "9B"}),
            False,
            model(modelParameterSize="70B"),
            "runtime srt-x does not support model safetensors: model size 70B is outside supported range [7B, 9B]",
            id="size",
        ),
    ],
)
def test_validate_named_runtime(
    name: str, runtime_spec: dict, namespaced: bool, model_spec: dict | None, expected: str | None
) -> None:
    assert validate_named_runtime(name, runtime_spec, namespaced, model_spec) == expected


@pytest.mark.parametrize(
    ("runtime_spec", "required", "expected"),
    [
        (rt(ENTRY), [], True),
        (rt(ENTRY), ["a100"], False),
        (rt(ENTRY, acceleratorRequirements={"acceleratorClasses": []}), ["a100"], False),
        (rt(ENTRY, acceleratorRequirements={"acceleratorClasses": ["a100", "h100"]}), ["a100"], True),
        (rt(ENTRY, acceleratorRequirements={"acceleratorClasses": ["a100"]}), ["a100", "h100"], False),
    ],
    ids=["none-required", "runtime-lists-none", "empty-list", "subset", "not-all"],
)
def test_accelerator_compatible(runtime_spec: dict, required: list[str], expected: bool) -> None:
    assert accelerator_compatible(runtime_spec, required) is expected


# --- scoring ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("runtime_spec", "defaults", "expected"),
    [
        pytest.param(rt(ENTRY), True, 2, id="crd-defaults-weight-1"),
        pytest.param(rt(ENTRY), False, 15, id="go-fallbacks-10-and-5"),
        pytest.param(rt(entry(priority=2)), True, 4, id="priority-multiplies"),
        pytest.param(rt(entry(modelFormat__weight=0)), True, 11, id="explicit-weight-0-beats-1"),
        pytest.param(rt(entry(modelFormat__weight=20, modelFramework__weight=15)), True, 35, id="custom-weights"),
        pytest.param(rt(entry(autoSelect=False)), True, 0, id="autoselect-false-not-scored"),
        pytest.param(rt(entry(autoSelect=DROP)), True, 2, id="autoselect-nil-scored"),
        pytest.param(rt(entry(priority=1), entry(priority=3, autoSelect=DROP)), True, 6, id="max-over-entries"),
        pytest.param(rt(entry(modelArchitecture="Other", priority=5)), True, 10, id="architecture-ignored"),
        pytest.param(rt(entry(quantization="int4", priority=5)), True, 10, id="quantization-ignored"),
        pytest.param(rt(entry(modelFormat__version=DROP)), True, 2, id="one-sided-version-scores"),
        pytest.param(rt(entry(modelFormat__version="2.0.0")), True, 0, id="version-mismatch-zero"),
        pytest.param(rt(entry(modelFramework__name="vllm")), True, 0, id="framework-name-mismatch-zero"),
        pytest.param(rt(entry(modelFormat=DROP)), True, 1, id="no-format-framework-only"),
        pytest.param(rt(entry(modelFramework=DROP)), True, 0, id="model-framework-unmatched-zero"),
        pytest.param(rt(entry(modelFormat__weight=-5)), True, 0, id="negative-floors-at-zero"),
    ],
)
def test_runtime_score(runtime_spec: dict, defaults: bool, expected: int) -> None:
    spec = apply_format_defaults(runtime_spec) if defaults else runtime_spec
    assert runtime_score(spec, MODEL) == expected


def test_format_score_without_model_framework() -> None:
    no_fw = model(modelFramework=DROP)
    assert (
        format_score(no_fw, apply_format_defaults(rt(entry(modelFramework=DROP)))["supportedModelFormats"][0], 3) == 3
    )
    assert format_score(no_fw, entry(), 1) == 0


@pytest.mark.parametrize(
    ("runtime_spec", "user_specified", "expected"),
    [
        (rt(entry(autoSelect=False), entry(priority=9)), False, 1),
        (rt(entry(autoSelect=False), entry()), True, 0),
        (rt(entry(modelFramework__weight=2, autoSelect=False), entry()), True, 0),
        (rt(entry(modelFormat__weight=3), entry(modelFormat__weight=5)), True, 1),
        (rt(entry(modelFormat__name="gguf")), True, None),
        (rt(entry(autoSelect=DROP)), False, None),
    ],
    ids=[
        "auto-only-autoselect-true",
        "named-first-best",
        "named-weight-counts",
        "named-strictly-higher",
        "no-score",
        "auto-nil-not-considered",
    ],
)
def test_supported_format_index(runtime_spec: dict, user_specified: bool, expected: int | None) -> None:
    assert supported_format_index(runtime_spec, MODEL, user_specified) == expected


# --- auto-selection ----------------------------------------------------------------------


def names(ranked: tuple[Ranked, ...]) -> list[str]:
    return [r.name for r in ranked]


SIZED = model(modelParameterSize="32B")


@pytest.mark.parametrize(
    ("candidates", "model_spec", "order", "tie"),
    [
        pytest.param(
            [Candidate("c", False, rt(entry(priority=2))), Candidate("n", True, rt(ENTRY))],
            MODEL,
            ["n", "c"],
            False,
            id="namespaced-beats-higher-score",
        ),
        pytest.param(
            [Candidate("a", False, rt(ENTRY)), Candidate("b", False, rt(entry(priority=2)))],
            MODEL,
            ["b", "a"],
            False,
            id="score-desc",
        ),
        pytest.param(
            [
                Candidate("wide", False, rt(ENTRY, modelSizeRange={"min": "28B", "max": "36B"})),
                Candidate("narrow", False, rt(ENTRY, modelSizeRange={"min": "30B", "max": "34B"})),
            ],
            SIZED,
            ["narrow", "wide"],
            False,
            id="size-distance-asc",
        ),
        pytest.param(
            [
                Candidate("a-range", False, rt(ENTRY, modelSizeRange={"min": "31B", "max": "33B"})),
                Candidate("z-none", False, rt(ENTRY)),
            ],
            SIZED,
            ["z-none", "a-range"],
            False,
            id="no-range-beats-range",
        ),
        pytest.param(
            [
                Candidate("wide", False, rt(ENTRY, modelSizeRange={"min": "28B", "max": "36B"})),
                Candidate("narrow", False, rt(ENTRY, modelSizeRange={"min": "30B", "max": "34B"})),
            ],
            MODEL,
            ["narrow", "wide"],
            True,
            id="no-model-size-name-order",
        ),
        pytest.param(
            [Candidate("b", False, rt(ENTRY)), Candidate("a", False, rt(ENTRY))],
            MODEL,
            ["a", "b"],
            True,
            id="name-asc-tie",
        ),
        pytest.param(
            [
                Candidate("b", False, rt(ENTRY, modelSizeRange={"min": "30B", "max": "34B"})),
                Candidate("a", False, rt(ENTRY, modelSizeRange={"min": "31B", "max": "35B"})),
            ],
            model(modelParameterSize="32.5B"),
            ["a", "b"],
            True,
            id="same-width-same-distance",
        ),
        pytest.param(
            [
                Candidate("b-closer", False, rt(ENTRY, modelSizeRange={"min": "0.5", "max": "2000"})),
                Candidate("a-farther", False, rt(ENTRY, modelSizeRange={"min": "0", "max": "2000"})),
            ],
            model(modelParameterSize="1000"),
            ["a-farther", "b-closer"],
            True,
            id="sub-1-difference-truncates-to-tie",
        ),
        pytest.param(
            [Candidate("n", True, rt(ENTRY)), Candidate("c", False, rt(ENTRY))],
            MODEL,
            ["n", "c"],
            True,
            id="cross-scope-tie",
        ),
        pytest.param(
            [Candidate("x", True, rt(ENTRY)), Candidate("x", False, rt(ENTRY))],
            MODEL,
            ["x", "x"],
            True,
            id="same-name-both-scopes",
        ),
    ],
)
def test_select_runtime_order(candidates: list[Candidate], model_spec: dict, order: list[str], tie: bool) -> None:
    selection = select_runtime(candidates, model_spec, "ns")
    assert names(selection.ranked) == order
    assert selection.chosen == selection.ranked[0]
    assert selection.tie is tie
    assert selection.error is None
    shuffled = list(reversed(candidates))
    assert select_runtime(shuffled, model_spec, "ns") == selection


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        pytest.param(Ranked("a", False, 4, None), Ranked("b", False, 2, None), 2, id="score-difference"),
        pytest.param(Ranked("a", False, 2, 1e9), Ranked("b", False, 2, 3.5e9), 2500000000, id="size-difference"),
        pytest.param(Ranked("a", False, 2, 1.0), Ranked("b", False, 2, 1.75), 0, id="size-below-1-truncates"),
        pytest.param(Ranked("b", False, 2, 1.0), Ranked("a", False, 2, 1.0), -1, id="equal-size-then-name"),
        pytest.param(Ranked("z", True, 2, None), Ranked("a", False, 2, None), 1, id="namespaced-before-name"),
        pytest.param(Ranked("a", False, 2, None), Ranked("z", True, 2, None), -1, id="cluster-after-namespaced"),
        pytest.param(Ranked("a", False, 2, None), Ranked("a", False, 2, None), 0, id="identical"),
        pytest.param(Ranked("a", False, 2, 0.0), Ranked("b", False, 2, 1e20), -(2**63), id="int64-overflow-amd64"),
        pytest.param(Ranked("a", False, 2, math.nan), Ranked("b", False, 2, 1.0), -(2**63), id="nan-amd64"),
    ],
)
def test_compare_ranked(a: Ranked, b: Ranked, expected: int) -> None:
    assert compare_ranked(a, b) == expected


def test_ranked_fields() -> None:
    selection = select_runtime(
        [
            Candidate("r", True, rt(entry(priority=2), modelSizeRange={"min": "30B", "max": "34B"})),
            Candidate("s", False, rt(ENTRY)),
        ],
        SIZED,
        "ns",
    )
    assert selection.ranked == (Ranked("r", True, 4, 4e9), Ranked("s", False, 2, 0.0))
    assert select_runtime([Candidate("s", False, rt(ENTRY))], MODEL, "ns").ranked == (Ranked("s", False, 2, None),)


def test_crd_defaults_change_the_winner() -> None:
    # raw Go fallbacks would score "plain" 10+5=15 over "weighted" 3+1=4; with CRD defaults plain scores 2
    weighted = rt(entry(modelFormat__weight=3, modelFramework__weight=1))
    selection = select_runtime(
        [Candidate("plain", False, rt(ENTRY)), Candidate("weighted", False, weighted)], MODEL, "ns"
    )
    assert names(selection.ranked) == ["weighted", "plain"]
    assert [r.score for r in selection.ranked] == [4, 2]


def test_autoselect_gate_and_score_from_different_entries() -> None:
    # quirk (a): entry 2 (autoSelect true) does not match, entry 1 (autoSelect nil) matches and scores
    spec = rt(entry(autoSelect=DROP), entry(modelFormat__name="gguf"))
    selection = select_runtime([Candidate("r", False, spec)], MODEL, "ns")
    assert selection.chosen == Ranked("r", False, 2, None)


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        pytest.param(rt(entry(autoSelect=False)), NO_AUTOSELECT, id="no-autoselect-true"),
        pytest.param(rt(entry(autoSelect=DROP)), NO_AUTOSELECT, id="nil-is-not-true"),
        pytest.param(rt(entry(autoSelect=False), entry(modelFormat__name="gguf")), NON_POSITIVE_SCORE, id="score-zero"),
    ],
)
def test_compatible_but_skipped(spec: dict, reason: str) -> None:
    selection = select_runtime([Candidate("r", False, spec)], MODEL, "team-a")
    assert selection.chosen is None
    assert selection.skipped == (("r", reason),)
    assert selection.excluded == ()
    assert selection.error == (
        "no runtime found to support model safetensors with format safetensors in namespace "
        "team-a. Checked 1 runtimes (0 namespace-scoped, 1 cluster-scoped)"
    )


def test_no_runtime_found_message() -> None:
    candidates = [
        Candidate("c-skipped", False, rt(entry(autoSelect=False))),
        Candidate("b-arch", False, rt(entry(modelArchitecture="MistralForCausalLM"))),
        Candidate("a-disabled", True, rt(ENTRY, disabled=True)),
    ]
    selection = select_runtime(candidates, MODEL, "team-a")
    assert selection.chosen is None and selection.ranked == () and selection.tie is False
    assert selection.excluded == (
        ("a-disabled", "runtime is disabled"),
        ("b-arch", NOT_IN + "architecture mismatch (model=LlamaForCausalLM, runtime=MistralForCausalLM)"),
    )
    assert selection.error == (
        "no runtime found to support model safetensors with format safetensors in namespace team-a. "
        "Checked 3 runtimes (1 namespace-scoped, 2 cluster-scoped). Excluded runtimes: a-disabled (runtime is "
        "disabled); b-arch (" + NOT_IN + "architecture mismatch (model=LlamaForCausalLM, runtime=MistralForCausalLM))"
    )


def test_no_runtimes_at_all() -> None:
    selection = select_runtime([], MODEL, "default")
    assert (
        selection.error == "no runtime found to support model safetensors with format safetensors in namespace default"
    )


def test_excluded_names_collapse_in_message() -> None:
    candidates = [Candidate("x", True, rt(ENTRY, disabled=True)), Candidate("x", False, rt())]
    selection = select_runtime(candidates, MODEL, "ns")
    assert selection.excluded == (("x", "runtime is disabled"), ("x", NOT_IN + "no supported formats defined"))
    assert selection.error == (
        "no runtime found to support model safetensors with format safetensors in namespace ns. Checked 2 runtimes "
        "(1 namespace-scoped, 1 cluster-scoped). Excluded runtimes: x (" + NOT_IN + "no supported formats defined)"
    )


def test_excluded_recorded_even_when_something_matches() -> None:
    selection = select_runtime(
        [Candidate("ok", False, rt(ENTRY)), Candidate("off", False, rt(ENTRY, disabled=True))], MODEL, "ns"
    )
    assert selection.chosen == Ranked("ok", False, 2, None)
    assert selection.excluded == (("off", "runtime is disabled"),)
    assert selection.error is None


@pytest.mark.parametrize(
    ("model_spec", "error"),
    [
        (model(modelFormat=DROP), "invalid model specification: modelFormat.name: model format name is required"),
        (model(modelFormat__name=None), "invalid model specification: modelFormat.name: model format name is required"),
        (None, "invalid model specification: model: model specification is nil"),
    ],
    ids=["no-format", "null-name", "nil-model"],
)
def test_select_runtime_invalid_model(model_spec: dict | None, error: str) -> None:
    selection = select_runtime([Candidate("r", False, rt(ENTRY))], model_spec, "ns")  # type: ignore[arg-type]
    assert (selection.chosen, selection.ranked, selection.excluded, selection.error) == (None, (), (), error)


def test_select_runtime_does_not_mutate_candidates() -> None:
    spec = rt(ENTRY)
    select_runtime([Candidate("r", False, spec)], MODEL, "ns")
    assert spec == rt(ENTRY)


# --- worked examples over the real corpus (ome-selection.md §1.10) ---------------------------


def _corpus_dir(name: str) -> Path:
    path = OME / name
    if not path.is_dir():
        pytest.skip(f"OME reference data not found at {path}")
    return path


@functools.cache
def _load(name: str) -> tuple[dict, ...]:
    docs = []
    for path in sorted(_corpus_dir(name).rglob("*.yaml")):
        docs += [d for d in yaml.load_all(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader) if d]
    return tuple(docs)


def corpus_candidates() -> list[Candidate]:
    # every runtime document, duplicates included (four names occur in two files each), as in the §1.10 simulation
    return [
        Candidate(d["metadata"]["name"], False, d["spec"])
        for d in _load("runtimes")
        if d.get("kind") == "ClusterServingRuntime"
    ]


def shipped_model(name: str) -> dict:
    return copy.deepcopy(
        next(
            d["spec"] for d in _load("models") if d.get("kind") == "ClusterBaseModel" and d["metadata"]["name"] == name
        )
    )


def corpus_model(
    name: str,
    framework_version: str,
    architecture: str,
    size: str,
    quantization: str | None = None,
) -> dict:
    """A shipped ClusterBaseModel spec with the metadata §1.10 assumes (what the model agent would write)."""
    spec = shipped_model(name)
    spec.update(
        modelFormat={"name": "safetensors", "version": "1.0.0"},
        modelFramework={"name": "transformers", "version": framework_version},
        modelArchitecture=architecture,
        modelParameterSize=size,
    )
    if quantization:
        spec["quantization"] = quantization
    return spec


def test_corpus_size() -> None:
    candidates = corpus_candidates()
    assert len(candidates) == 207
    assert len({c.name for c in candidates}) == 203


def test_corpus_llama_3_2_1b() -> None:
    spec = corpus_model("llama-3-2-1b-instruct", "4.45.0.dev0", "LlamaForCausalLM", "1.24B")
    selection = select_runtime(corpus_candidates(), spec, "default")
    assert selection.ranked == (Ranked("vllm-llama-3-2-1b-instruct", False, 2, 1.5e9),)
    assert selection.skipped == (("srt-llama-3-2-1b-instruct", NO_AUTOSELECT),)
    assert selection.tie is False and selection.error is None


def test_corpus_qwen2_5_coder_32b() -> None:
    spec = corpus_model("qwen2-5-coder-32b-instruct", "4.43.1", "Qwen2ForCausalLM", "32.76B")
    selection = select_runtime(corpus_candidates(), spec, "default")
    assert [(r.name, r.score, r.size_distance) for r in selection.ranked] == [
        ("srt-deepseek-r1-distill-qwen-14b", 2, 0.0),
        ("srt-deepseek-r1-distill-qwen-32b", 2, 0.0),
        ("srt-qwen2-5-32b-instruct", 2, 4e9),
        ("srt-qwen2-5-coder-32b-instruct", 2, 4e9),
    ]
    assert selection.chosen is not None and selection.chosen.name == "srt-deepseek-r1-distill-qwen-14b"
    assert selection.tie is True
    # the duplicate srt-qwen2-5-32b-instruct (qwen2-5-32b-instruct-rt.yaml, 28B-36B) has autoSelect false
    assert selection.skipped == (("srt-qwen2-5-32b-instruct", NO_AUTOSELECT),)


def test_corpus_qwen2_5_coder_32b_shipped_metadata() -> None:
    # this shipped model already carries format metadata, with modelParameterSize "32B": same ranking
    spec = shipped_model("qwen2-5-coder-32b-instruct")
    assert (spec["modelFramework"], spec["modelParameterSize"]) == (
        {"name": "transformers", "version": "4.43.1"},
        "32B",
    )
    selection = select_runtime(corpus_candidates(), spec, "default")
    assert [(r.name, r.size_distance) for r in selection.ranked] == [
        ("srt-deepseek-r1-distill-qwen-14b", 0.0),
        ("srt-deepseek-r1-distill-qwen-32b", 0.0),
        ("srt-qwen2-5-32b-instruct", 4e9),
        ("srt-qwen2-5-coder-32b-instruct", 4e9),
    ]


@pytest.mark.parametrize("name", ["gpt-oss-120b", "gpt-oss-20b"])
def test_corpus_gpt_oss_shipped_metadata_without_size(name: str) -> None:
    # both shipped gpt-oss models lack modelParameterSize, so no size range is checked and the name
    # tie-break hands even gpt-oss-20b to srt-gpt-oss-120b-grpc
    spec = shipped_model(name)
    assert "modelParameterSize" not in spec
    selection = select_runtime(corpus_candidates(), spec, "default")
    assert selection.ranked == (
        Ranked("srt-gpt-oss-120b-grpc", False, 2, None),
        Ranked("srt-gpt-oss-20b", False, 2, None),
        Ranked("srt-gpt-oss-20b-grpc", False, 2, None),
    )
    assert selection.tie is True


def test_corpus_gpt_oss_20b_with_size_has_no_runtime() -> None:
    # with a real size (assumed 20.91B) the 20b model fits neither of its runtimes' ranges
    spec = shipped_model("gpt-oss-20b")
    spec["modelParameterSize"] = "20.91B"
    selection = select_runtime(corpus_candidates(), spec, "default")
    assert selection.chosen is None
    excluded = dict(selection.excluded)
    assert excluded["srt-gpt-oss-20b-grpc"] == "model size 20.91B is outside supported range [115B, 125B]"
    assert excluded["srt-gpt-oss-20b"] == "model size 20.91B is outside supported range [10B, 15B]"


def test_corpus_deepseek_v3_fails() -> None:
    spec = corpus_model("deepseek-v3", "4.33.1", "DeepseekV3ForCausalLM", "671.03B", "fp8")
    selection = select_runtime(corpus_candidates(), spec, "default")
    assert selection.chosen is None and selection.ranked == ()
    assert sorted(selection.skipped) == [
        (n, NO_AUTOSELECT) for n in ("srt-deepseek-rdma", "srt-deepseek-rdma-pd", "srt-deepseek-v3")
    ]
    assert len(selection.excluded) == 204
    label = "mt:safetensors:1.0.0:DeepseekV3ForCausalLM:fp8:transformers:4.33.1"
    assert dict(selection.excluded)["srt-deepseek-v3-0324"] == (
        f"model format '{label}' not in supported formats: model has quantization fp8 but runtime has no "
        "quantization requirement, framework version mismatch (model=4.33.1, runtime=4.46.3)"
    )
    assert selection.error is not None
    head = (
        "no runtime found to support model safetensors with format safetensors in namespace default. "
        "Checked 207 runtimes (0 namespace-scoped, 207 cluster-scoped). Excluded runtimes: "
    )
    assert selection.error.startswith(head)
    listed = selection.error[len(head) :].split(f" (model format '{label}' not in supported formats: ")
    assert len(listed) == 6  # the 5 nearest misses of 200 distinct excluded names (four duplicated names collapse)
    assert selection.error.endswith("; and 195 more, further off (every one with -v)")
    assert len(selection.error) < 2000
    assert listed[0] == "srt-kimi-k2-pd"  # one reason only: its framework version
    excluded_names = {n for n, _ in selection.excluded}
    assert len(excluded_names) == 200
    assert not excluded_names & {"srt-deepseek-rdma", "srt-deepseek-rdma-pd", "srt-deepseek-v3"}


@pytest.mark.parametrize(
    ("framework_version", "expected"),
    [
        pytest.param("4.30.0", None, id="older-model-accepted"),
        pytest.param("4.33.1", None, id="equal-accepted"),
        pytest.param(
            "4.34.0",
            "runtime srt-deepseek-rdma does not support model safetensors: model format "
            "'mt:safetensors:1.0.0:DeepseekV3ForCausalLM:fp8:transformers:4.34.0' not in supported formats: "
            "framework version mismatch (model=4.34.0, runtime=4.33.1)",
            id="newer-model-rejected",
        ),
        pytest.param(
            "4.33",
            "runtime srt-deepseek-rdma does not support model safetensors: model format "
            "'mt:safetensors:1.0.0:DeepseekV3ForCausalLM:fp8:transformers:4.33' not in supported formats: "
            "framework version mismatch (model=4.33, runtime=4.33.1)",
            id="precision-differs",
        ),
        pytest.param(
            "4.30.0.dev0",
            "runtime srt-deepseek-rdma does not support model safetensors: model format "
            "'mt:safetensors:1.0.0:DeepseekV3ForCausalLM:fp8:transformers:4.30.0.dev0' not in supported "
            "formats: framework version mismatch (model=4.30.0.dev0, runtime=4.33.1)",
            id="dev-forces-equal",
        ),
    ],
)
def test_corpus_deepseek_rdma_gte_is_upper_bound(framework_version: str, expected: str | None) -> None:
    rdma = next(c for c in corpus_candidates() if c.name == "srt-deepseek-rdma")
    spec = corpus_model("deepseek-v3", framework_version, "DeepseekV3ForCausalLM", "671.03B", "fp8")
    assert validate_named_runtime(rdma.name, rdma.spec, False, spec) == expected


def test_corpus_gpt_oss_grpc_ambiguous() -> None:
    # §1.10: srt-gpt-oss-120b-grpc and srt-gpt-oss-20b-grpc declare the same entry and the same 115B-125B range
    # (model metadata assumed here: transformers 4.55.0, GptOssForCausalLM, 116.83B)
    spec = corpus_model("gpt-oss-120b", "4.55.0", "GptOssForCausalLM", "116.83B")
    selection = select_runtime(corpus_candidates(), spec, "default")
    assert [(r.name, r.score, r.size_distance) for r in selection.ranked] == [
        ("srt-gpt-oss-120b-grpc", 2, 1e10),
        ("srt-gpt-oss-20b-grpc", 2, 1e10),
    ]
    assert selection.tie is True


def test_corpus_namespaced_copy_wins() -> None:
    # a namespaced copy of a low-ranked cluster runtime beats every cluster runtime (§0 finding 1)
    spec = corpus_model("qwen2-5-coder-32b-instruct", "4.43.1", "Qwen2ForCausalLM", "32.76B")
    candidates = corpus_candidates()
    coder = next(c for c in candidates if c.name == "srt-qwen2-5-coder-32b-instruct")
    selection = select_runtime([*candidates, Candidate(coder.name, True, coder.spec)], spec, "team-a")
    assert names(selection.ranked)[:2] == ["srt-qwen2-5-coder-32b-instruct", "srt-deepseek-r1-distill-qwen-14b"]
    assert selection.chosen == Ranked("srt-qwen2-5-coder-32b-instruct", True, 2, 4e9)
    assert selection.tie is False


def test_corpus_order_independent() -> None:
    spec = corpus_model("qwen2-5-coder-32b-instruct", "4.43.1", "Qwen2ForCausalLM", "32.76B")
    candidates = corpus_candidates()
    shuffled = candidates[:]
    random.Random(7).shuffle(shuffled)
    first, second = select_runtime(candidates, spec, "default"), select_runtime(shuffled, spec, "default")
    assert first.ranked == second.ranked and first.chosen == second.chosen
