"""Properties of origin tracking (it is the merge, tagged) and of the lock file format."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from omerender.constants import SyncMode
from omerender.lifecycle import lock as lockfile
from omerender.resolve import origin
from omerender.resolve.merge import merge_chain

scalars = st.one_of(st.sampled_from(["", "a", "b", "yes", "10", "1.0"]), st.integers(0, 3), st.booleans(), st.none())
keyed_item = st.fixed_dictionaries(
    {"name": st.sampled_from(["x", "y", "z"])}, optional={"value": scalars, "mountPath": st.sampled_from(["/a", "/b"])}
)


def specs(depth: int = 2):
    leaf = st.one_of(scalars, st.lists(scalars, max_size=3))
    if depth == 0:
        return leaf
    inner = specs(depth - 1)
    return st.dictionaries(
        st.sampled_from(["image", "args", "runner", "env", "volumes", "resources", "limits", "cpu"]),
        st.one_of(inner, st.lists(keyed_item, max_size=3)),
        max_size=4,
    )


@settings(max_examples=300, deadline=None)
@given(st.lists(specs(), min_size=1, max_size=4))
def test_tagged_merge_is_the_merge(layers):
    layers = [layer if isinstance(layer, dict) else {} for layer in layers]
    tagged = origin.merge_layers([(f"rt{i}", spec) for i, spec in enumerate(layers)])
    assert origin.untag(tagged) == merge_chain(layers)
    names = {f"rt{i}" for i in range(len(layers))}
    for value_origin in origin.origins(tagged).values():
        assert set(value_origin.split(", ")) <= names


def test_last_layer_to_set_a_field_wins():
    tagged = origin.merge_layers(
        [
            ("root", {"a": {"b": 1, "c": [1, 2]}, "env": [{"name": "X", "value": "1"}]}),
            ("leaf", {"a": {"b": 2}, "env": [{"name": "X", "value": ""}, {"name": "Y", "value": "2"}]}),
        ]
    )
    assert origin.origins(tagged) == {
        "a.b": "leaf",
        "a.c": "root",
        "env[name=X].name": "leaf",
        "env[name=X].value": "root",  # "" counts as unset
        "env[name=Y].name": "leaf",
        "env[name=Y].value": "leaf",
    }


def test_lookup_walks_to_ancestors_and_descendants():
    table = {"engineConfig.runner.args": "child", "engineConfig.volumes[name=a.b].emptyDir.medium": "profile"}
    assert origin.lookup(table, "engineConfig.runner.args[1]") == "child"
    assert origin.lookup(table, "engineConfig.volumes[name=a.b]") == "profile"
    assert origin.lookup(table, "engineConfig.nodeSelector") == ""


def test_revision_is_canonical():
    assert lockfile.revision_of({"a": 1, "b": [1, 2]}) == lockfile.revision_of({"b": [1, 2], "a": 1})
    assert lockfile.revision_of({"a": 1}) != lockfile.revision_of({"a": "1"})
    assert len(lockfile.revision_of({})) == 10


@settings(max_examples=100, deadline=None)
@given(specs())
def test_lock_round_trips_and_is_stable(spec):
    spec = spec if isinstance(spec, dict) else {}
    rev = lockfile.revision_of(spec)
    lock = lockfile.Lock(
        "x.lock",
        {"ns/a": lockfile.Pin("ServingRuntime/ns/r", rev, ("p", "r"), SyncMode.SNAPSHOT)},
        {"ServingRuntime/ns/r": lockfile.LastGood(("p", "r"), rev)},
        {rev: lockfile.Revision("ServingRuntime/ns/r", ("p", "r"), spec)},
    )
    text = lockfile.dump(lock)
    parsed, problems = lockfile.parse(text, "x.lock")
    assert problems == [] and parsed == lock
    assert lockfile.dump(parsed, text) == text


def test_a_pins_sync_mode_is_read_as_the_enum_and_written_as_its_word():
    rev = lockfile.revision_of({})
    lock = lockfile.Lock(
        "x.lock",
        {"ns/a": lockfile.Pin("ServingRuntime/ns/r", rev, ("r",), SyncMode.REVISION)},
        {},
        {rev: lockfile.Revision("ServingRuntime/ns/r", ("r",), {})},
    )
    text = lockfile.dump(lock)
    assert "sync: revision\n" in text
    parsed, _ = lockfile.parse(text, "x.lock")
    assert parsed is not None and parsed.isvcs["ns/a"].sync is SyncMode.REVISION
    unknown, _ = lockfile.parse(text.replace("sync: revision", "sync: sometimes"), "x.lock")
    assert unknown is not None and unknown.isvcs["ns/a"].sync is SyncMode.LIVE
