"""output.markdown: code spans that nothing in the value can close, cells that no | can split."""

from __future__ import annotations

import markdown_it
import pytest

from omerender.output.markdown import cell, code, visible


@pytest.mark.parametrize(
    "value",
    ["plain", "a`b", "``x``", "`", " lead", "trail ", "x ``` y", "", "@octocat <b>[l](u)</b>", "a\\`b"],
)
def test_a_code_span_holds_the_value_whole(value):
    tokens = markdown_it.MarkdownIt("commonmark").parseInline(code(value))[0].children
    assert [t.type for t in tokens] == ["code_inline"]
    assert tokens[0].content == value or (not value and tokens[0].content == " ")


def test_line_breaks_and_controls_are_shown_not_obeyed():
    assert visible("a\r\nb\x1b\u2028") == "a\\r\\nb\\x1b\\u2028"
    assert "\n" not in code("x\n# h") and "\r" not in code("x\r")


def test_a_pipe_in_a_cell_stays_in_its_cell():
    html = markdown_it.MarkdownIt("gfm-like").render(f"| a | b |\n|---|---|\n| {cell(code('x|y'))} | z |\n")
    assert "<td><code>x|y</code></td>" in html and "<td>z</td>" in html
