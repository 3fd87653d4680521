"""Positions composed again from a file's text equal those of the trees its first parse built."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from omerender.load import source
from omerender.load.reader import load, to_object
from omerender.load.source import Source
from omerender.load.yamlio import find_scalar, parse_documents, position

# empty documents (a bare ``---``, a comment, an explicit null) count in the numbering but make no object
TEXT = """\
# a bundle
---
---
apiVersion: v1
kind: ConfigMap
metadata: {name: first}
data:
  key: value
---
# only a comment
---
~
---
apiVersion: ome.io/v1beta1
kind: InferenceService
metadata:
  name: chat
  annotations: &shared
    team: a
spec:
  engine:
    minReplicas: 1
    args: ["--port", "8080"]
  model: {name: llama}
  labels: *shared
...
---
apiVersion: ome.io/v1beta1
kind: ServingRuntime
metadata:
  name: last
spec:
  containers:
  - name: main
    image: "repo/image:${TAG}"
"""

PATHS: list[tuple[object, ...]] = [
    (),
    ("metadata",),
    ("metadata", "name"),
    ("metadata", "annotations", "team"),
    ("data", "key"),
    ("spec", "engine", "args", 1),
    ("spec", "engine", "args", 9),
    ("spec", "labels", "team"),
    ("spec", "model", "name"),
    ("spec", "containers", 0, "image"),
    ("spec", "missing", "deeper"),
]


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    source.forget()
    yield
    source.forget()


def test_positions_equal_the_first_parse_ones_with_empty_documents() -> None:
    eager = list(parse_documents(TEXT))
    assert [d.index for d in eager] == [1, 4, 5]  # the empty documents 0, 2 and 3 are counted
    text = Source("bundle.yaml", TEXT)
    for doc in reversed(eager):  # a later document first: the earlier ones are then read from the cache
        lazy = text.node(doc.index)
        assert lazy is not doc.node
        for keys in PATHS:
            assert position(lazy, keys) == position(doc.node, keys)
        for needle in ("8080", "${TAG}", "llama", "value", "absent"):
            assert find_scalar(lazy, needle) == find_scalar(doc.node, needle)
        assert (lazy.start_mark.index, lazy.end_mark.index) == (doc.node.start_mark.index, doc.node.end_mark.index)


@pytest.mark.parametrize("merge", ["<<: *base", "<<: [*base]", "? !!merge ''\n  : *base", "!!merge <<: *base"])
def test_merge_keys_move_pairs_in_the_recomposed_tree_as_in_the_first(merge: str) -> None:
    text = f"base: &base\n  x: 1\n  y: 2\nobj:\n  {merge}\n  x: 3\n"
    [doc] = parse_documents(text)
    lazy = Source("merge.yaml", text).node(0)
    assert position(doc.node, ("obj", "y")) == (3, 6)  # the first parse points into the anchored mapping
    for keys in [("obj",), ("obj", "x"), ("obj", "y"), ("base", "y")]:
        assert position(lazy, keys) == position(doc.node, keys)


def test_objects_keep_no_tree_and_point_where_the_tree_did() -> None:
    text = Source("bundle.yaml", TEXT)
    for doc in parse_documents(TEXT):
        obj, problem = to_object(text, doc)
        assert problem is None and obj is not None
        assert "node" not in vars(obj)
        assert (obj.path, obj.index, obj.source) == ("bundle.yaml", doc.index, text)
        located = PATHS if obj.is_ome else [(), ("kind",), ("metadata", "name")]
        for keys in located:
            assert obj.at(*keys) == position(doc.node, keys)
        if not obj.is_ome:  # positions only within what an object that is not OME's was kept with
            assert obj.at("data", "key") == position(doc.node, ()) != position(doc.node, ("data", "key"))


def test_loaded_objects_share_one_source_per_file(tmp_path: Path) -> None:
    (tmp_path / "bundle.yaml").write_text(TEXT)
    (tmp_path / "one.yaml").write_text("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n")
    loaded = load([str(tmp_path)])
    by_file = {o.path: o.source for o in loaded.objects}
    assert len(loaded.objects) == 4 and len(by_file) == 2
    assert all(o.source is by_file[o.path] for o in loaded.objects)
    assert source.cached() == (0, 0)  # nothing composed again until a position is asked for
    isvc = next(o for o in loaded.objects if o.kind == "InferenceService")
    assert isvc.at("spec", "engine", "minReplicas") == (22, 18)
    assert source.cached() == (1, len(TEXT))


def test_a_made_object_is_located_at_the_start() -> None:
    from omerender.load.obj import Obj

    made = Obj("isvc.yaml", 3, {"kind": "Pod"}, None)
    assert made.node is None and made.at("spec") == (1, 1)


def test_the_cache_is_bounded_in_files_and_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source, "CACHED_FILES", 3)
    monkeypatch.setattr(source, "CACHED_CHARS", 10 * len(TEXT))
    files = [Source(f"f{n}.yaml", TEXT) for n in range(6)]
    for f in files:
        assert f.node(5) is not None
    assert source.cached() == (3, 3 * len(TEXT))
    monkeypatch.setattr(source, "CACHED_CHARS", len(TEXT) + 1)
    files[0].node(1)
    assert source.cached() == (1, len(TEXT))
    big = Source("big.yaml", TEXT * 3)  # a file over the limit is still composed, and held alone
    assert big.node(17) is not None and big.node(18) is None
    assert source.cached() == (1, 3 * len(TEXT))


def test_a_file_is_composed_once_for_many_positions(monkeypatch: pytest.MonkeyPatch) -> None:
    composed: list[str] = []
    real = source.compose_documents

    def counting(text: str) -> Iterator[yaml.Node]:
        composed.append(text)
        return real(text)

    monkeypatch.setattr(source, "compose_documents", counting)
    text, other = Source("a.yaml", TEXT), Source("b.yaml", TEXT)
    for index in (1, 4, 5, 1, 4):
        text.node(index)
        other.node(index)
    assert len(composed) == 2


def test_past_the_documents_the_first_parse_kept() -> None:
    broken = Source("broken.yaml", "kind: A\n---\nkind: [\n")  # the first parse kept the first object only
    assert broken.node(0) is not None
    assert broken.node(1) is None and broken.node(7) is None and broken.node(-1) is None


def test_prelocated_positions_equal_the_composed_ones() -> None:
    from omerender.load.obj import PRELOCATED

    isvcs = [
        obj
        for doc in parse_documents(TEXT)
        for obj in [to_object(Source("f.yaml", TEXT), doc)[0]]
        if obj is not None and obj.kind == "InferenceService"
    ]
    assert len(isvcs) == 1 and isvcs[0].marks is not None
    isvc = isvcs[0]
    node = isvc.node
    for path in [*PRELOCATED["InferenceService"], ("spec", "decoder"), ("metadata", "annotations", "team")]:
        assert isvc.at(*path) == position(node, path), path
    assert isvc.at("spec", "engine") == (22, 5)  # the mapping under engine:, read from the marks


RUNTIMES = """\
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata:
  name: base
---
apiVersion: ome.io/v1beta1
kind: ServingRuntime
metadata:
  namespace: team
  annotations:
    team: x
    ome.io/inherit-from: base
  name: child
spec: {}
"""


def test_a_runtimes_chain_error_is_located_without_composing_its_file_again() -> None:
    from omerender.load.obj import PRELOCATED

    source.forget()
    file = Source("r.yaml", RUNTIMES)
    runtimes = [obj for doc in parse_documents(RUNTIMES) for obj in [to_object(file, doc)[0]] if obj is not None]
    assert [r.marks is not None for r in runtimes] == [True, True]
    assert runtimes[1].at("metadata", "annotations", "ome.io/inherit-from") == (12, 26)
    assert runtimes[0].at("metadata", "annotations", "ome.io/inherit-from") == (4, 3)  # the deepest that exists
    assert source.cached() == (0, 0)  # from the marks: nothing composed
    for runtime in runtimes:
        for path in [*PRELOCATED[runtime.kind], ("spec",), ("metadata", "annotations", "team")]:
            assert runtime.at(*path) == position(runtime.node, path), path


def test_a_column_too_wide_to_pack_is_looked_up_again() -> None:
    from omerender.load.obj import COLUMN_BITS

    pad = "x" * (1 << COLUMN_BITS)
    text = f'{{apiVersion: ome.io/v1beta1, kind: ClusterServingRuntime, metadata: {{annotations: {{a: "{pad}", '
    text += "ome.io/inherit-from: base}, name: child}}\n"
    (doc,) = parse_documents(text)
    runtime, problem = to_object(Source("wide.yaml", text), doc)
    assert problem is None and runtime is not None and runtime.marks is not None and -1 in runtime.marks
    line, col = runtime.at("metadata", "annotations", "ome.io/inherit-from")
    assert (line, col) == (1, text.index("base}") + 1)
