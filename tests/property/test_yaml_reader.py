"""The reader's two shortcuts give PyYAML's answer: a plain scalar's tag looked up once per text, and documents
without anchors, tags or merge keys built node by node (construct_plain) instead of by PyYAML's constructor."""

from __future__ import annotations

from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from test_yaml_writer import LOOK_ALIKES, document

from omerender.load import yamlio


def _reference(text: str) -> list[Any] | str:
    """PyYAML alone (the same loader, its own resolve and construct_document), or its error."""

    class Reference(yamlio._Loader):
        resolve = yaml.resolver.BaseResolver.resolve  # PyYAML's own, uncached

    try:
        return [d for d in yaml.load_all(text, Loader=Reference) if d is not None]
    except yaml.YAMLError as exc:
        return f"{type(exc).__name__}: {exc}"


def _ours(text: str) -> list[Any] | str:
    try:
        return [doc.data for doc in yamlio.parse_documents(text)]
    except yaml.YAMLError as exc:
        return f"{type(exc).__name__}: {exc}"


def _same(text: str) -> None:
    ours, reference = _ours(text), _reference(text)
    assert repr(ours) == repr(reference)  # repr: 1 and True, 0.0 and -0.0, nan all told apart


def test_implicit_tags_are_pyyaml_s() -> None:
    loader = yaml.CSafeLoader("")
    for value in [*LOOK_ALIKES, "", "1", "-1", "0b101", "1.5", "+.5", "Null", "TRUE", "2001-12-14", "=", "<<"]:
        expected = yaml.resolver.BaseResolver.resolve(loader, yaml.ScalarNode, value, (True, False))  # type: ignore[no-untyped-call]
        assert yamlio._implicit_tag(value) == expected, value


@settings(max_examples=300, deadline=None)
@given(st.lists(document, min_size=1, max_size=3), st.sampled_from([False, None, True]))
def test_documents_read_as_pyyaml_reads_them(objects: list[Any], flow: bool | None) -> None:
    _same(yaml.safe_dump_all(objects, default_flow_style=flow, allow_unicode=True, width=1 << 20))


def test_edge_texts() -> None:
    for text in [
        "a: 1\na: 2\n",  # a duplicate key: our own error
        "a: 1\n01: x\n1: y\n",  # equal keys of different text: the later wins
        "=: x\nb: =\n",  # "=" is text as a key and an error as a value
        "? [a]\n: b\n",  # a complex key: unhashable
        "? {a: 1}\n: b\n",
        "~: null\nyes: no\non: off\n1.0: 1e3\n.nan: .inf\n",
        "t: 2001-12-14 21:59:43.10 -5\n",
        "a: [1, {b: ~}, [], {}]\n---\n---\nx\n---\n- 0o17\n- 0x1f\n- 1_000\n- 1:20\n",
        "a: 'x'\nb: \"y\\u0000\"\nc: |\n  z\n",
    ]:
        _same(text)
