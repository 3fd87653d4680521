"""Unit tests for factor's text edit (omerender.factor.edit) and value comparison (extract.same)."""

from __future__ import annotations

import math

import yaml

from omerender.factor.edit import Lines, apply, edit_document
from omerender.factor.extract import same

DOC = """apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: a
  annotations:
    team: ml
spec:
  disabled: false
  # the engine
  engineConfig:
    runner:
      image: x:1  # pinned
      env:
        - name: A
          value: "1"
        - name: B  # own
          value: "2"

  modelSizeRange:
    min: 1B
"""


def _edit(text: str, want: dict, **kw: object) -> tuple[str, dict] | None:
    lines = Lines(text)
    edited = edit_document(lines, yaml.compose(text), want, "p-profile", bool(kw.get("flip")), 2)
    if edited is None:
        return None
    cuts, comments = edited
    return apply(text, cuts), comments


def test_fields_leave_with_their_comments_and_the_annotation_joins_the_others() -> None:
    want = {"disabled": False, "engineConfig": {"runner": {"env": [{"name": "B", "value": "2"}]}}}
    result = _edit(DOC, want)
    assert result is not None
    text, comments = result
    assert "    team: ml\n    ome.io/inherit-from: p-profile\n" in text
    assert "image" not in text and "modelSizeRange" not in text and "name: A" not in text
    assert '        - name: B  # own\n          value: "2"\n' in text
    assert "# the engine\n  engineConfig:" in text  # engineConfig stays, so its comment stays
    assert comments[("engineConfig", "runner", "image")].eol == "pinned"
    assert yaml.safe_load(text)["spec"] == want


def test_flow_style_that_would_lose_part_of_a_mapping_is_left_to_the_round_trip() -> None:
    text = DOC.replace("  modelSizeRange:\n    min: 1B\n", "  modelSizeRange: {min: 1B, max: 2B}\n")
    assert _edit(text, {"disabled": False, "engineConfig": {}, "modelSizeRange": {"min": "1B"}}) is None


def test_auto_select_is_turned_off_where_the_child_keeps_its_formats() -> None:
    text = DOC.replace("  disabled: false\n", "  disabled: false\n  supportedModelFormats:\n    - autoSelect: true\n")
    want = {"disabled": False, "supportedModelFormats": [{"autoSelect": False}]}
    result = _edit(text, want, flip=True)
    assert result is not None
    assert "    - autoSelect: false\n" in result[0]


def test_same_is_canonical_equality() -> None:
    assert same({"a": [1, "x"], "b": None}, {"b": None, "a": [1, "x"]})
    assert not same(1, True) and not same(1, 1.0) and not same("1", 1)
    assert same(math.nan, math.nan)
    assert not same({"a": 1}, {"a": 1, "b": 2}) and not same([1], (1,))
