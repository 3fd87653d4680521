"""Rendering copies only what changes: placeholders, and no realpath per object without search paths."""

from __future__ import annotations

from typing import Any

from omerender.load.roots import under
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
    read_under = under([])
    assert read_under(object()) is False  # type: ignore[arg-type]


def test_fill_keeps_order_and_reports_keys_before_values() -> None:
    problems: list[PlaceholderProblem] = []
    head = {"x": 1}
    value = {"a": head, "{{.Name}}": "{{.Labels.team}}", "z": ["k", "{{ .Nope }}", "{{.Namespace}}"], "b": 2}
    out = fill(value, META, problems)
    assert list(out.items()) == [("a", head), ("svc", "a"), ("z", ["k", "{{ .Nope }}", "ns"]), ("b", 2)]
    assert out["a"] is head  # what comes before the first change is shared, not copied
    assert [p.action for p in problems] == ["{{ .Nope }}"]
    assert fill({"{{ .A }}": "{{ .B }}"}, META, problems) and [p.action for p in problems[1:]] == [
        "{{ .A }}",
        "{{ .B }}",
    ]
    assert fill(["{{.Name}}", b"\x00", None], META, []) == ["svc", b"\x00", None]
