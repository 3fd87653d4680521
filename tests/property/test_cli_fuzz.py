"""Random bytes and random YAML never crash the CLI: exit 0 or 1, never a traceback, nothing printed on error."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from strategies import dump, junk, ome_junk, run, worlds

FUZZ = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


def _build(files: dict[str, bytes], *extra: str) -> tuple[int, str, str]:
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in files.items():
            (Path(tmp) / name).write_bytes(data)
        return run("build", *extra, tmp)


def _never_crashes(code: int, stdout: str, stderr: str) -> None:
    assert code in (0, 1), stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    if code:
        assert stdout == "", "nothing is printed when the build fails"
        assert stderr, "a failure says why"


@FUZZ
@given(st.binary(max_size=600))
@example(b"\xef\xbb\xbf\xff\xfe")
@example(b"\x00")
@example(b"- &a [*a]")
def test_random_bytes(data: bytes) -> None:
    _never_crashes(*_build({"input.yaml": data}))


@FUZZ
@given(st.text(alphabet=":-[]{}&*!|>'\"#%@`,? \n\tabc019", max_size=120))
def test_random_yaml_syntax(text: str) -> None:
    _never_crashes(*_build({"input.yaml": text.encode("utf-8")}))


@FUZZ
@given(st.lists(junk, max_size=3))
def test_random_yaml_documents(docs: list[Any]) -> None:
    _never_crashes(*_build({"input.yaml": yaml.safe_dump_all(docs).encode("utf-8")}))


@FUZZ
@given(worlds(), st.lists(ome_junk(), min_size=1, max_size=3))
def test_ome_shaped_junk_among_a_valid_world(world: list[dict[str, Any]], junk_docs: list[dict[str, Any]]) -> None:
    _never_crashes(*_build({"world.yaml": dump(world).encode(), "junk.yaml": dump(junk_docs).encode()}))


@FUZZ
@given(worlds())
def test_random_worlds_build_or_explain(world: list[dict[str, Any]]) -> None:
    _never_crashes(*_build({"world.yaml": dump(world).encode()}, "--strict"))
