"""Rendering copies only what changes: placeholders, and no realpath per object without search paths."""

from __future__ import annotations

from typing import Any

from omerender.output.emit import under
from omerender.render.placeholders import PlaceholderProblem, fill

META: dict[str, Any] = {"name": "svc", "namespace": "ns", "labels": {"team": "a"}, "annotations": {}}


def test_fill_shares_what_holds_no_placeholder() -> None:
    untouched = {"ports": [{"containerPort": 8080}], "image": "x"}
    container = {"env": [{"name": "N", "value": "{{.Name}}"}], "spec": untouched, "args": ["--a", "b"]}
    problems: list[PlaceholderProblem] = []
    out = fill(container, META, problems)
    assert out == {"env": [{"name": "N", "value": "svc"}], "spec": untouched, "args": ["--a", "b"]}
    assert out is not container and out["env"] is not container["env"]
    assert out["spec"] is untouched and out["args"] is container["args"]
    assert container["env"][0]["value"] == "{{.Name}}"  # the input is not changed
    assert fill(untouched, META, problems) is untouched
    assert problems == []


def test_fill_keys_and_problems() -> None:
    problems: list[PlaceholderProblem] = []
    out = fill({"{{.Namespace}}": ["{{ .Nope }}"]}, META, problems)
    assert list(out) == ["ns"]
    assert problems and problems[0].fatal


def test_no_search_path_is_never_inside() -> None:
    inside = under([])
    assert inside(object()) is False  # type: ignore[arg-type]


def test_may_hold_action_is_false_only_without_braces() -> None:
    from omerender.render.placeholders import may_hold_action

    assert not may_hold_action({"args": ["--port=8080"], "env": [{"name": "A", "value": "{ x }"}]})
    assert may_hold_action({"args": ["--owner={{.Name}}"]})
    assert may_hold_action({"{{.Name}}": 1})  # keys are filled too
    assert may_hold_action({"data": b"\x00"})  # JSON cannot write it: fill looks for itself
    assert may_hold_action({"unicode": "\u2028 {{ .Namespace }}"})
