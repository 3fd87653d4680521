"""The direct YAML writer writes PyYAML's bytes, for generated objects, the golden outputs and a bench tree."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from omerender.yamlwrite import Writer, dump_each, dump_stream, pyyaml_stream

ROOT = Path(__file__).resolve().parents[2]
LOOK_ALIKES = [
    "on", "off", "yes", "no", "y", "n", "Y", "True", "NULL", "null", "~", "", " ", "0x1f", "0o17", "017", "1e3",
    "1_000", "1:20", "12:30:45", ".inf", "-.Inf", ".nan", "2024-01-01", "2001-12-14t21:59:43.10-05:00", "=", "<<",
    "-", "- a", "? x", ": y", "a: b", "a #b", "#c", "&a", "*b", "!t", "|", ">", "'q'", '"d"', "%x", "@a", "`b",
    "[1]", "{a: 1}", "a,b", "...", "---", "--- x", "... x", "\t", "a\tb", " lead", "trail ", "\u00e9t\u00e9",
    "\u2028", "\u0085", "\ufeff", "\x07", "\U0001f600", "x" * 130, "a " * 80,
    "line\n", "two\nlines", "\n", "\n\n", "keep\n\n", " indented\nfirst", "tabs\n\tin", "end  \nspaces  ",
    "\n lead", "a\r\nb", "x\n...\ny", "x\n---\ny", "long " * 60 + "\nnext",
    "\x00", "a\x000\x00b", "\x001\x00", "nul\x00\nline",  # the writer's own placeholder mark, as text
]  # fmt: skip
text = st.one_of(st.sampled_from(LOOK_ALIKES), st.text(max_size=40), st.text(alphabet="ab \n:-#'\"", max_size=12))
scalar = st.one_of(
    text,
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
)
key = st.one_of(text, st.integers(min_value=-5, max_value=5))


def _tree(leaves: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(
        leaves,
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(key, inner, max_size=4)),
        max_leaves=25,
    )


document = st.one_of(st.dictionaries(key, _tree(scalar), max_size=5), st.lists(_tree(scalar), max_size=4))


def _same(objects: list[Any]) -> None:
    expected = pyyaml_stream(objects)
    assert dump_stream(objects) == expected
    assert "".join(Writer(chunk=2).documents(objects)) == expected  # scalars learnt in one chunk, used in the next
    each = [pyyaml_stream([obj]) for obj in objects]  # --output-dir: one file per object, one writer for all
    assert dump_each(objects) == each
    assert list(Writer(chunk=2).each(objects)) == each


@settings(max_examples=400, deadline=None)
@given(st.lists(document, max_size=4))
def test_writer_matches_pyyaml(objects: list[Any]) -> None:
    _same(objects)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(LOOK_ALIKES), st.sampled_from(LOOK_ALIKES)), max_size=3))
def test_look_alikes_as_keys_and_values(objects: list[Any]) -> None:
    _same(objects)


@settings(max_examples=100, deadline=None)
@given(_tree(scalar), st.integers(min_value=0, max_value=3))
def test_shared_sub_trees(shared: Any, copies: int) -> None:
    """A container met twice in one document is an anchor for PyYAML: the writer hands it over."""
    _same([{"a": shared, "b": [shared] * copies, "c": {"d": shared}}, {"e": shared}])


def test_edge_documents() -> None:
    shared = {"x": 1}
    cases: list[Any] = [
        {},
        [],
        [[], {}],
        {"": ""},
        {"a": {"b": {"c": [[["deep\n"]]]}}},
        {"k" * 129: 1},  # PyYAML writes a complex "? " key
        {"multi\nline": 1},
        {1: "a", "b": 2},  # keys PyYAML cannot sort
        {"a": (1, 2)},
        {"a": shared, "b": shared},
        "scalar document",
        None,
        {"a": "x" * 70_000 + " y" * 100},
        [{"on": None, "off": "\u2028"}],  # single-quoted, folded at the line separator
        {"a": {"b": ["x\u2028y", "\u0085"]}},
        {"a": 1.0, "b": 1, "c": True, "d": -0.0, "e": 0.0, "f": 1e20, "g": float("nan")},
    ]
    for case in cases:
        try:
            expected = pyyaml_stream([case])
        except yaml.YAMLError:
            with pytest.raises(yaml.YAMLError):
                dump_stream([case])
            continue
        assert dump_stream([case]) == expected, case
    written = [case for case in cases if case is not None and not isinstance(case, str)]
    assert dump_each(written) == [pyyaml_stream([case]) for case in written]
    assert "".join(Writer().documents([cases[4]])) == pyyaml_stream([cases[4]])


def _golden_outputs() -> list[Path]:
    found = []
    for folder in ("cases", "hostile"):
        found += sorted((ROOT / "tests" / folder).glob("*/expected/stdout"))
    return [p for p in found if p.stat().st_size]


@pytest.mark.parametrize("path", _golden_outputs(), ids=lambda p: p.parent.parent.name)
def test_golden_outputs_round_trip(path: Path) -> None:
    """Every golden stdout that is YAML, read back and written again by both writers, gives the same bytes."""
    text = path.read_text(encoding="utf-8")
    try:
        objects = list(yaml.load_all(text, Loader=yaml.CSafeLoader))
    except yaml.YAMLError:
        pytest.skip("not YAML")
    objects = [o for o in objects if o is not None]
    if not objects or not all(isinstance(o, dict) for o in objects):
        pytest.skip("not a stream of objects")
    new = dump_stream(objects)
    assert new == pyyaml_stream(objects)
    if pyyaml_stream(objects) == text:
        assert new == text


def test_bench_tree(tmp_path: Path) -> None:
    """A generated bench tree, built through the CLI: the output equals PyYAML's dump of the same objects."""
    tree = tmp_path / "tree"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "gen_tree.py"), str(tree), "--runtimes", "60", "--isvcs", "300"],
        check=True,
        capture_output=True,
    )
    done = subprocess.run(
        [sys.executable, "-m", "omerender", "build", str(tree)], check=False, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    objects = list(yaml.load_all(done.stdout, Loader=yaml.CSafeLoader))
    assert len(objects) > 100
    assert pyyaml_stream(objects) == done.stdout
