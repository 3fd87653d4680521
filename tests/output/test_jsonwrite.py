"""``build -o json`` through orjson writes exactly what ``json.dumps`` with the project's setting writes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from omerender.output.formats import JSON_SETTINGS, dump_json, v1_list
from omerender.output.jsonwrite import dump_list, item_text, list_pieces, object_text

ODD_FLOATS = [
    1e-7,
    1e-5,
    2.5e-5,
    9.9e-5,
    1e-4,
    1e16,
    1.5e16,
    1e22,
    -0.0,
    5e-324,
    float("nan"),
    float("inf"),
    -float("inf"),
]
ODD_TEXT = ["null", "0.00001", "1e-7", "x\n1e-7", "a: 1e-07", "\u2028", "\x00", "\x7f", "\U0001f600", '"', "\\"]
scalar = st.one_of(
    st.floats(),
    st.sampled_from(ODD_FLOATS),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.text(max_size=8),
    st.sampled_from(ODD_TEXT),
    st.booleans(),
    st.none(),
)
tree = st.recursive(
    scalar,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)),
)
document = st.dictionaries(st.one_of(st.text(max_size=5), st.sampled_from(ODD_TEXT)), tree, max_size=5)


@settings(max_examples=500, deadline=None)
@given(document)
def test_object_text_is_json_dumps(obj: dict[str, Any]) -> None:
    assert object_text(obj) == json.dumps(obj, **JSON_SETTINGS)


@settings(max_examples=100, deadline=None)
@given(st.lists(document, max_size=4))
def test_the_list_is_dump_json_of_the_v1_list(objects: list[dict[str, Any]]) -> None:
    expected = dump_json(v1_list(objects))
    assert dump_list(objects) == expected
    assert "".join(list_pieces(objects, item_text)) == expected


def test_what_orjson_refuses_or_writes_otherwise_is_written_by_json() -> None:
    for obj in (
        {"big": 2**64, "small": -(2**63) - 1},  # orjson refuses integers over 64 bits
        {1: "a", 2: "b"},  # keys that are not text
        {"f": 1e-7, "g": [2.5e-5], "nan": float("nan"), "inf": -float("inf")},
        {"edge": [1e-4, 1e16, -0.0, 5e-324]},
    ):
        assert object_text(obj) == json.dumps(obj, **JSON_SETTINGS)
    assert dump_list([]) == dump_json(v1_list([]))
