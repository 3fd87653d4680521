"""A model metadata file that ``extends`` a shipped overlay: its own entries first, then the shipped ones fill what is
still missing; ``extends`` names only a shipped overlay, never a file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from stage_objects import API, objects

from omerender.load.metadata import apply_overlay
from omerender.load.modelfacts import model_facts
from omerender.load.obj import Obj

LING = """extends: ome:v0.1.5
models:
  ling-plus:
    modelConfiguration:
      parameter_count: 290B
      torch_dtype: bfloat16
"""


def model(name: str, spec: dict[str, Any] | None = None) -> Obj:
    body = {"apiVersion": API, "kind": "ClusterBaseModel", "metadata": {"name": name}, "spec": spec or {}}
    return objects(body)[0]


def apply(tmp_path: Path, text: str, *made: Obj) -> tuple[list[Any], str]:
    path = tmp_path / "facts.yaml"
    path.write_text(text, encoding="utf-8")
    return apply_overlay(str(path), list(made)), str(path)


def test_the_files_facts_and_the_shipped_matching_fields(tmp_path: Path) -> None:
    ling, other = model("ling-plus"), model("deepseek-v3")
    problems, path = apply(tmp_path, LING, ling, other)
    assert problems == []
    spec = ling.body["spec"]
    # the shipped entry's matching fields (and its stand-in size, which no check reads) fill what the file lacks
    assert spec["modelArchitecture"] == "BailingMoeForCausalLM" and spec["modelParameterSize"] == "40B"
    assert spec["modelConfiguration"] == {"parameter_count": "290B", "torch_dtype": "bfloat16"}
    facts = model_facts(ling)
    assert facts.parameter_count is not None and facts.parameter_count.value == 290 * 10**9
    assert facts.parameter_count.located(ling) == (path, 5, 24)  # a finding points at the user's line
    assert facts.bytes_per_parameter is not None and facts.bytes_per_parameter.value == 2.0
    assert ling.overlaid is not None and ling.overlaid["modelArchitecture"][0] == "ome:v0.1.5"
    # a model the file does not name gets the shipped entry whole
    assert other.overlaid is not None and model_facts(other).parameter_count is not None


def test_what_the_file_gives_wins_over_the_shipped_entry_without_a_note(tmp_path: Path) -> None:
    ling = model("ling-plus")
    text = LING.replace("  ling-plus:\n", "  ling-plus:\n    modelParameterSize: 290B\n")
    problems, path = apply(tmp_path, text, ling)
    assert problems == [] and ling.body["spec"]["modelParameterSize"] == "290B"
    assert ling.overlaid is not None and ling.overlaid["modelParameterSize"] == (path, 4, 25)


def test_a_models_own_value_still_wins_over_both(tmp_path: Path) -> None:
    ling = model("ling-plus", {"modelConfiguration": {"parameter_count": "300B"}, "modelArchitecture": "Mine"})
    problems, _ = apply(tmp_path, LING, ling)
    assert ling.body["spec"]["modelConfiguration"]["parameter_count"] == "300B"
    assert ling.body["spec"]["modelArchitecture"] == "Mine"
    notes = sorted((d.severity, d.message.split(";")[0]) for d in problems)
    assert notes == [
        ("info", "ClusterBaseModel ling-plus sets modelArchitecture itself ('Mine')"),
        ("info", "ClusterBaseModel ling-plus sets modelConfiguration.parameter_count itself ('300B')"),
    ]


def test_extends_names_a_shipped_overlay_never_a_file(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.yaml"
    elsewhere.write_text("models:\n  ling-plus:\n    modelArchitecture: Secret\n", encoding="utf-8")
    for value in (str(elsewhere), "elsewhere.yaml", "ome:v9", 3):
        ling = model("ling-plus")
        problems, path = apply(tmp_path, LING.replace("ome:v0.1.5", str(value)), ling)
        assert [(d.path, d.line, d.col, d.severity) for d in problems] == [(path, 1, 10, "error")], problems
        assert problems[0].message.startswith("extends names an overlay shipped with omerender (ome:v0.1.5), not ")
        assert "modelArchitecture" not in ling.body["spec"]  # nothing was read from it
        assert ling.body["spec"]["modelConfiguration"]["parameter_count"] == "290B"  # the file's own still apply


def test_other_top_level_keys_are_still_refused(tmp_path: Path) -> None:
    problems, _ = apply(tmp_path, "include: x\n" + LING, model("ling-plus"))
    assert [(d.line, d.col, d.message) for d in problems] == [
        (1, 10, "unknown top-level key 'include' (only 'models' and 'extends')")
    ]


def test_a_file_that_cannot_be_read_is_one_error_and_changes_nothing(tmp_path: Path) -> None:
    cases = {
        "models: [": "invalid YAML in model metadata file: ",
        "models: {}\n---\nmodels: {}\n": "model metadata file must be one YAML document with a 'models' mapping",
        "extends: ome:v0.1.5\n": "model metadata file must be one YAML document with a 'models' mapping",
    }
    for text, message in cases.items():
        ling = model("ling-plus")
        problems, path = apply(tmp_path, text, ling)
        assert [(d.path, d.severity) for d in problems] == [(path, "error")] and problems[0].message.startswith(message)
        assert ling.body["spec"] == {} and ling.overlaid is None
    missing = apply_overlay(str(tmp_path / "absent.yaml"), [model("ling-plus")])
    assert [d.severity for d in missing] == ["error"]
    unknown = apply_overlay("ome:v9", [model("ling-plus")])
    assert [(d.path, d.line, d.message) for d in unknown] == [
        ("ome:v9", 0, "no model metadata ships as 'ome:v9'; shipped: ome:v0.1.5")
    ]
