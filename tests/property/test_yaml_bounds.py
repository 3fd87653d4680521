"""The cheap depth pre-check never lets a too-deep document through, whatever its YAML style."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from omerender.load.yamlio import MAX_DEPTH, measure, parse_documents


@st.composite
def nested(draw: st.DrawFn) -> tuple[Any, int]:
    depth = draw(st.integers(MAX_DEPTH - 3, MAX_DEPTH + 3))
    value: Any = draw(st.sampled_from(["x", 1, None, ""]))
    for _ in range(depth - 1):
        value = {draw(st.sampled_from(["a", "k"])): value} if draw(st.booleans()) else [value]
    return value, depth


@settings(max_examples=60, deadline=None)
@given(nested(), st.integers(2, 9), st.sampled_from([False, None, True]))
def test_depth_limit_holds_in_every_style(doc: tuple[Any, int], indent: int, flow: bool | None) -> None:
    value, depth = doc
    text = yaml.safe_dump(value, indent=indent, default_flow_style=flow, width=1 << 20)
    if depth > MAX_DEPTH:
        with pytest.raises(yaml.YAMLError, match="nests more than"):
            list(parse_documents(text))
    else:
        [parsed] = list(parse_documents(text))
        assert parsed.data == value and measure(parsed.node)[1] == depth
