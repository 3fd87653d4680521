"""Pure rules added for issue 22: qualified names (label and annotation keys), the JSON depth bound, and the
text report's guard against GitHub workflow commands."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from omerender.load import jsondepth, yamlio
from omerender.names import qualified_name_problem
from omerender.output.reporters import no_workflow_commands


@pytest.mark.parametrize(
    "key",
    ["app", "app.kubernetes.io/name", "a", "A_b.c-D9", "ome.io/" + "n" * 63, "x" * 253 + "/y", "0/0"],
)
def test_qualified_names_the_api_server_accepts(key: str) -> None:
    assert qualified_name_problem(key) is None


@pytest.mark.parametrize(
    "key",
    ["", "bad key!", "a/b/c", "/x", "x/", "Example.com/x", "-a", "a-", "n" * 64, "x" * 254 + "/y", "a_/b", "é"],
)
def test_qualified_names_the_api_server_rejects(key: str) -> None:
    assert qualified_name_problem(key) is not None


def test_json_depth_is_the_yaml_depth() -> None:
    assert jsondepth.MAX_DEPTH == yamlio.MAX_DEPTH


def test_json_depth_counts_brackets_outside_strings() -> None:
    assert jsondepth.deepest('{"a": [1, {"b": "[[[[{{{{"}]}') == 3
    assert jsondepth.loads("[" * 100 + "]" * 100) is not None
    with pytest.raises(ValueError, match="nests 101 levels deep"):
        jsondepth.loads("[" * 101 + "]" * 101)
    with pytest.raises(ValueError, match="nests 100000 levels deep"):
        jsondepth.loads("[" * 100_000)  # refused before the decoder recurses


def test_lines_that_would_start_workflow_commands_are_neutral() -> None:
    text = "::stop-commands::t.yaml:1:1: error: x\n  ::error::y\n##[warning]z\nok: a::b\nx.yaml: ##[add-mask]k\r::e::\n"
    assert no_workflow_commands(text) == (
        "./::stop-commands::t.yaml:1:1: error: x\n./  ::error::y\n#\\x23[warning]z\nok: a::b\n"
        "x.yaml: #\\x23[add-mask]k\r./::e::\n"
    )


def _runner_lines(text: str) -> list[str]:
    """The lines GitHub's runner reads a workflow command from: it ends a line at CR, LF or CRLF and trims
    leading blanks; ``::`` at the start is a command, and so is ``##[`` anywhere in the line (the old form)."""
    return [line.lstrip() for line in re.split(r"\r\n|\r|\n", text)]


_PIECES = st.sampled_from([":", "::", "#", "##", "[", "]", " ", "\t", "\r", "\n", "\u2028", "x", "./"])


@given(st.lists(_PIECES).map("".join))
def test_no_text_starts_a_workflow_command(text: str) -> None:
    for line in _runner_lines(no_workflow_commands(text)):
        assert not line.startswith("::") and "##[" not in line, line
