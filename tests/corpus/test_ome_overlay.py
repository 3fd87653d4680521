"""The shipped overlay ``ome:v0.1.5`` is what scripts/ome_model_metadata.py writes from ../shared/ome, and agrees with
what OME's model agent reads where it matters to matching. Skipped when ../shared/ome is absent."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from omerender.load.memory import objects_from_documents
from omerender.load.metadata import apply_overlay
from omerender.load.modelfacts import model_facts, parse_parameter_count
from omerender.load.obj import Obj

REPO = Path(__file__).resolve().parents[2]
OME = REPO.parent / "shared" / "ome"
SHIPPED = REPO / "omerender" / "catalogue" / "ome-v0.1.5.yaml"

pytestmark = pytest.mark.skipif(not OME.is_dir(), reason="../shared/ome (OME's corpus) is not present")


def test_the_shipped_overlay_is_what_the_generator_writes() -> None:
    command = [sys.executable, "scripts/ome_model_metadata.py", str(OME), "v0.1.5"]
    written = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert written == SHIPPED.read_text(encoding="utf-8")


def test_kimi_k2_is_fp8_as_the_model_agent_reads_it() -> None:
    """OME's agent sets quantization from config.json's quant_method (pkg/modelagent/config_parser.go:325-337 at
    17b77eda), fp8 for Kimi-K2-Instruct (pkg/hfutil/modelconfig/testdata/kimi_k2_instruct.json:38-46), and
    srt-kimi-k2-pd, which upstream's sample names, requires it."""
    models = yaml.safe_load(SHIPPED.read_text(encoding="utf-8"))["models"]
    assert models["kimi-k2-instruct"]["quantization"] == "fp8"


def _models_with_overlay() -> list[Obj]:
    """Every ClusterBaseModel of OME's catalogue (../shared/ome/models), ome:v0.1.5 applied as a build applies it."""
    documents = [
        (str(path), doc)
        for path in sorted((OME / "models").rglob("*.yaml"))
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8"))
        if isinstance(doc, dict) and doc.get("kind") == "ClusterBaseModel"
    ]
    made, _ = objects_from_documents(documents, "default")
    problems = apply_overlay("ome:v0.1.5", made)
    assert [d for d in problems if d.severity != "info"] == []
    return made


def test_no_stand_in_size_reaches_the_serving_facts() -> None:
    """The overlay's modelParameterSize is a matching stand-in (ling-plus 40B, really 290B; minimax-m2 45B, really
    230B; glm-4-5v 9B, really 108B; dots-vlm1-inst 2B, really 672B): model_facts() reads a count only from
    modelConfiguration.parameter_count, which the overlay fills from OME's own reading of a config.json."""
    shipped = yaml.safe_load(SHIPPED.read_text(encoding="utf-8"))["models"]
    models = _models_with_overlay()
    counted = 0
    for made in models:
        facts = model_facts(made)
        entry = shipped.get(made.name, {})
        real = (entry.get("modelConfiguration") or {}).get("parameter_count")
        own = made.overlaid is None or "modelParameterSize" not in made.overlaid
        if real is not None:
            assert facts.parameter_count is not None and facts.parameter_count.overlay
            assert facts.parameter_count.value == parse_parameter_count(real)
            counted += 1
        elif not own:
            assert facts.parameter_count is None, made.name
    assert counted == 41
    stand_ins = {m.name: model_facts(m) for m in models if m.name in ("ling-plus", "minimax-m2", "glm-4-5v")}
    assert {name: facts.parameter_count for name, facts in stand_ins.items()} == dict.fromkeys(stand_ins)
    assert all(m.name != "dots-vlm1-inst" or model_facts(m).parameter_count is None for m in models)


def test_shipped_facts_are_omes_readings_of_its_test_configs() -> None:
    """Parameter counts as OME's own Go tests expect them from the same files (pkg/hfutil/modelconfig at 17b77eda:
    llama_test.go:42 (llama3.json, 70B), :149 (llama3_1_405b.json, 405B), :480 (llama4.json, 402B), :297
    (llama3_2_11b_vision.json, 11B), :395 (llama3_2_90b_vision.json, 90B); deepseek_v3_test.go:60 (685B)); heads as
    the files give them (llama4.json's text_config: 40 heads, 8 KV heads, which srt-llama-4-maverick-17b-128e-instruct's
    --tp 16 does not divide); dtype and quantization only from a model's own file."""
    models = yaml.safe_load(SHIPPED.read_text(encoding="utf-8"))["models"]
    facts = {name: entry.get("modelConfiguration") for name, entry in models.items()}
    assert facts["llama-3-70b-instruct"] == {
        "num_attention_heads": 64,
        "num_key_value_heads": 8,
        "parameter_count": "70B",
    }
    assert facts["llama-3-1-405b-instruct-fp8"] == {
        "context_length": 131072,
        "num_attention_heads": 128,
        "num_key_value_heads": 8,
        "parameter_count": "405B",
        "quant_method": "fbgemm_fp8",
        "torch_dtype": "bfloat16",
    }
    assert facts["llama-4-maverick-17b-128e-instruct"] == {
        "num_attention_heads": 40,
        "num_key_value_heads": 8,
        "parameter_count": "402B",
    }
    assert facts["llama-4-maverick-17b-128e-instruct-fp8"]["torch_dtype"] == "float8"  # llama4.go:234-244
    assert facts["llama-3-2-11b-vision-instruct"]["parameter_count"] == "11B"
    assert facts["llama-3-2-90b-vision-instruct"]["parameter_count"] == "90B"
    for name in ("deepseek-r1", "deepseek-v3", "deepseek-v3-0324"):  # a bf16 copy of the architecture: no dtype
        assert facts[name] == {"num_attention_heads": 128, "num_key_value_heads": 128, "parameter_count": "685B"}
    config = json.loads((OME / "modelconfig" / "llama4.json").read_text(encoding="utf-8"))["text_config"]
    assert (config["num_attention_heads"], config["num_key_value_heads"]) == (40, 8)
    # OME's config-only estimates that miss the published count by more than 10% are not shipped (kimi: 1.5T against
    # 1.03T; llama-4-scout: 17B, its active count, against 109B).
    assert "parameter_count" not in facts["kimi-k2-instruct"]
    assert "parameter_count" not in facts["llama-4-scout-17b-16e-instruct"]


def test_bytes_per_parameter_of_shipped_models() -> None:
    """From the quantization first: the FP8 DeepSeek models by the runtimes' quantization: fp8, the 405B FP8 by its
    config's fbgemm_fp8 although its torch_dtype is bfloat16, Maverick FP8 by OME's float8 dtype; gpt-oss's mxfp4
    cannot be sized, so it is unknown, not bfloat16's 2 bytes."""
    by_name = {m.name: model_facts(m).bytes_per_parameter for m in _models_with_overlay()}
    sizes = {name: found.value if found else None for name, found in by_name.items()}
    assert sizes["deepseek-r1"] == 1.0 and sizes["kimi-k2-instruct"] == 1.0
    assert sizes["llama-3-1-405b-instruct-fp8"] == 1.0
    assert sizes["llama-4-maverick-17b-128e-instruct-fp8"] == 1.0
    assert sizes["gpt-oss-120b"] is None
    assert sizes["llama-3-1-70b-instruct"] == 2.0
    assert sizes["llama-3-3-70b-instruct"] is None  # the architecture only: its own dtype is not read here


def _facts_script() -> Any:
    """scripts/ome_model_facts.py, which reads OME's test configs and holds the published totals."""
    spec = importlib.util.spec_from_file_location("ome_model_facts", REPO / "scripts" / "ome_model_facts.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # its dataclasses look their module up
    spec.loader.exec_module(sys.modules[spec.name])
    return sys.modules[spec.name]


def test_every_shipped_count_is_within_the_tolerance_of_a_published_total() -> None:
    """A count reaches the overlay only when OME's config-only reading lies within 10% of the model's published total
    (scripts/ome_model_facts.py's PUBLISHED, each entry citing the page it was read at): no stand-in, no estimate of
    another size."""
    script = _facts_script()
    by_model = {model: name for name, (models, _) in script.MAPPING.items() for model, _ in models}
    shipped = yaml.safe_load(SHIPPED.read_text(encoding="utf-8"))["models"]
    checked = 0
    for model, entry in sorted(shipped.items()):
        count = parse_parameter_count((entry.get("modelConfiguration") or {}).get("parameter_count"))
        if count is None:
            continue
        published = script.PUBLISHED[by_model[model]]
        assert abs(count - published) <= script.TOLERANCE * published, (model, count, published)
        checked += 1
    assert checked == 41


def test_every_published_total_names_its_source() -> None:
    """Each PUBLISHED entry is for a mapped config file and has a URL on its line or in the comment just above."""
    script = _facts_script()
    assert set(script.PUBLISHED) <= set(script.MAPPING)
    lines = (REPO / "scripts" / "ome_model_facts.py").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("PUBLISHED: dict[str, int] = {"))
    end = next(i for i in range(start, len(lines)) if lines[i] == "}")
    for i in range(start + 1, end):
        if lines[i].lstrip().startswith('"'):
            cited = [lines[i]] + [lines[j] for j in range(i - 1, start, -1) if lines[j].lstrip().startswith("#")][:1]
            assert any("http" in line for line in cited), lines[i]


def test_the_models_gpu_memory_fit_can_size() -> None:
    """gpu-memory-fit needs a parameter count and bytes per parameter. With ome:v0.1.5, 18 of the 207 catalogue
    models have both (docs/serving-checks.md says so): 16 from the overlay alone (their config.json is in OME's
    tests), 2 with the size OME's own model file sets (qwen2-vl-7b-instruct, qwen2-5-vl-7b-instruct) and the
    overlay's dtype. Every other model is skipped."""
    models = _models_with_overlay()
    sized = {m.name: f for m in models if (f := model_facts(m)).parameter_count and f.bytes_per_parameter}
    assert len(models) == 207 and len(sized) == 18
    own = sorted(name for name, f in sized.items() if f.parameter_count is not None and not f.parameter_count.overlay)
    assert own == ["qwen2-5-vl-7b-instruct", "qwen2-vl-7b-instruct"]
