"""List documents (issue #33): read as their items, as kubectl reads them, each located at its own lines."""

from __future__ import annotations

import json

import pytest
import yaml
from builders import MODEL, child_spec, dump, isvc, profile_spec, runtime

from omerender.load.lists import is_list

PROFILE = runtime("sglang-profile", profile_spec(), profile=True)
CHILD = runtime("child", child_spec(), parent="sglang-profile")
SERVICE = isvc("svc", "child")


def _as_list(*items: dict, kind: str = "List") -> str:
    return dump({"apiVersion": "v1", "kind": kind, "metadata": {}, "items": list(items)})


@pytest.fixture
def inputs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "all.yaml").write_text(dump(MODEL, PROFILE, CHILD, SERVICE))
    return tmp_path


def test_a_list_renders_what_its_items_render(run_cli, inputs):
    plain = run_cli("build", "plain")
    assert plain.exit_code == 0 and plain.stdout, str(plain)
    for kind in ("List", "ServingRuntimeList"):
        (inputs / "list.yaml").write_text(_as_list(MODEL, PROFILE, CHILD, SERVICE, kind=kind))
        listed = run_cli("build", "list.yaml")
        assert listed.exit_code == 0, str(listed)
        assert listed.stdout == plain.stdout
        assert "holds no OME object" not in listed.stderr


def test_round_trip_through_json(run_cli, inputs):
    plain = run_cli("build", "plain")
    given = run_cli("build", "plain", "--emit", "inputs", "-o", "json")
    assert json.loads(given.stdout)["kind"] == "List"
    again = run_cli("build", "-", input=given.stdout)
    assert again.exit_code == 0, str(again)
    assert again.stdout == plain.stdout
    # the rendered objects, printed as a List, come back as the same objects (passed through: not OME's)
    rendered = run_cli("build", "plain", "-o", "json")
    back = run_cli("build", "-", "--emit", "passthrough", "-o", "json", input=rendered.stdout)
    assert back.exit_code == 0, str(back)
    assert json.loads(back.stdout)["items"] == json.loads(rendered.stdout)["items"]


def test_passthrough_output_dir_writes_each_item(run_cli, inputs):
    rendered = run_cli("build", "plain", "-o", "json")
    items = json.loads(rendered.stdout)["items"]
    done = run_cli("build", "-", "--emit", "passthrough", "--output-dir", "out", input=rendered.stdout)
    assert done.exit_code == 0, str(done)
    assert "List name" not in done.stderr
    written = sorted(p for p in (inputs / "out").rglob("*.yaml"))
    assert len(written) == len(items)
    assert sorted(yaml.safe_load(p.read_text())["kind"] for p in written) == sorted(i["kind"] for i in items)


def test_a_diagnostic_points_at_the_item(run_cli, inputs):
    broken = runtime("orphan", child_spec(), parent="nowhere")
    text = _as_list(MODEL, PROFILE, broken)
    (inputs / "list.yaml").write_text(text)
    done = run_cli("build", "list.yaml")
    assert done.exit_code == 1
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "ome.io/inherit-from: nowhere" in t)
    assert f"list.yaml:{line}:" in done.stderr and "[ParentNotFound]" in done.stderr, done.stderr


def test_what_kubectl_refuses_is_an_error_at_its_line(run_cli, inputs):
    (inputs / "bad.yaml").write_text(
        "apiVersion: v1\nkind: List\nitems: {a: 1}\n"
        "---\n"
        "apiVersion: v1\nkind: List\nitems:\n- 3\n- apiVersion: v1\n  kind: List\n  items: []\n- metadata: {name: x}\n"
    )
    done = run_cli("build", "bad.yaml", "plain")
    assert done.exit_code == 1 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert (
        "bad.yaml:3:8: error: [list-items] the List: items must be a list of objects, as kubectl reads a List" in lines
    )
    assert "bad.yaml:8:3: error: [list-items] item 1 of the List is not a mapping" in lines
    assert any(
        line.startswith("bad.yaml:9:3: error: [list-items] item 2 of the List is a list itself") for line in lines
    )
    assert "bad.yaml:12:3: error: [missing-kind] item 3 of document 2 has no kind" in lines


def test_an_empty_list_holds_nothing(run_cli, inputs):
    (inputs / "empty.yaml").write_text(_as_list())
    done = run_cli("build", "empty.yaml")
    assert done.exit_code == 0 and "holds no OME object" in done.stderr


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"kind": "List", "items": []}, True),
        ({"kind": "ServingRuntimeList", "items": None}, True),
        ({"kind": "Thing", "items": [{}]}, True),  # kubectl reads any mapping whose items is a list
        ({"kind": "ConfigMap", "data": {"items": "[]"}}, False),
        ({"kind": "Thing", "items": "x"}, False),
        ([], False),
    ],
)
def test_is_list(data, expected):
    assert is_list(data) is expected


def test_factor_refuses_to_rewrite_a_list_item(run_cli, inputs):
    spec = child_spec(engine={"runner": {"name": "ome-container", "image": "engine:1", "command": ["serve"]}})
    (inputs / "flat").mkdir()
    listed = inputs / "flat" / "list.yaml"
    listed.write_text(_as_list(MODEL, runtime("r1", spec), runtime("r2", dict(spec))))
    before = listed.read_bytes()
    done = run_cli("factor", "flat", "--in-place")
    assert done.exit_code == 1
    assert (
        "factor cannot rewrite: ClusterServingRuntime r1 is item 2 of document 1 in flat/list.yaml, a List: write the "
        "List's items as documents of their own (---) first" in done.stderr
    )
    assert listed.read_bytes() == before and sorted(p.name for p in (inputs / "flat").iterdir()) == ["list.yaml"]
