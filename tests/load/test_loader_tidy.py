"""The loader notes which documents need tidying (a key that is not text, a null value); the others skip the walk."""

from __future__ import annotations

from pathlib import Path

from omerender.load.reader import load
from omerender.load.yamlio import parse_documents

RUNTIME = """\
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: rt
spec:
  engineConfig:
    annotations:
      {key}: x
    runner: {runner}
"""


def test_a_plain_document_is_already_tidy() -> None:
    (doc,) = parse_documents(RUNTIME.format(key="a", runner="{name: main, image: img}"))
    assert doc.tidy


def test_keys_that_are_not_text_and_nulls_are_noted() -> None:
    for key, runner in (("on", "{name: main}"), ("1", "{name: main}"), ("a", "{name: main, image: null}")):
        (doc,) = parse_documents(RUNTIME.format(key=key, runner=runner))
        assert not doc.tidy, (key, runner)
    (doc,) = parse_documents("a: &x {b: ~}\nc: *x\n")  # a null reached through an alias too
    assert not doc.tidy
    (doc,) = parse_documents('"on": x\nb: "null"\n')  # quoted: text, not a boolean or a null
    assert doc.tidy


def test_loaded_objects_are_tidied_when_needed(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(RUNTIME.format(key="on", runner="{name: main, image: null}"), encoding="utf-8")
    (obj,) = load([str(tmp_path)], "default").objects
    config = obj.body["spec"]["engineConfig"]
    assert config["annotations"] == {"true": "x"}
    assert config["runner"] == {"name": "main"}
