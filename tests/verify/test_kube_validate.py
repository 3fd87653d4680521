"""The jsonschema-rs pre-check of rendered objects agrees with jsonschema on the same schemas."""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from omerender.admission import quick
from omerender.constants import DEFAULT_KUBE_VERSION
from omerender.verify import kube_schema as kv

ROOT = Path(__file__).resolve().parents[2]
VERSION = DEFAULT_KUBE_VERSION


@cache
def _rendered() -> tuple[dict[str, Any], ...]:
    from omerender.pipeline import build
    from omerender.result import BuildOptions

    result = build([str(ROOT / "fixtures" / "llama-demo")], BuildOptions(kube_version=None))
    assert not result.failed
    return tuple(result.objects)


def test_default_version_is_installed_and_versions_resolve() -> None:
    versions = kv.available_versions()
    assert VERSION in versions and versions == sorted(versions, key=lambda v: tuple(map(int, v.split("."))))
    assert kv.resolve_version("v1.33.4") == kv.resolve_version("1.33+") == "1.33"
    assert kv.resolve_version("1.999") == versions[-1]  # newer clusters: the newest schemas installed
    with pytest.raises(kv.KubeVersionError, match="installed"):
        kv.resolve_version("1.0")


def test_rendered_objects_pass() -> None:
    for obj in _rendered():
        assert kv.schema_issues(obj, VERSION) in ([], None), obj["kind"]


def test_kinds_without_a_schema_are_skipped() -> None:
    assert kv.schema_issues({"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet"}, VERSION) is None
    assert kv.schema_issues({"kind": "Deployment"}, VERSION) == [kv.KubeIssue((), "object has no kind or apiVersion")]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, prefix + (i,))
    return out


def _set(obj: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value


def _delete(obj: Any, path: tuple[Any, ...]) -> None:
    for key in path[:-1]:
        obj = obj[key]
    del obj[path[-1]]


ODD_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 70000), st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.sampled_from(["", "x", "8080", "TCP", "Always", "apps/v1", "Deployment", "RollingUpdate", "1Gi"]),
    st.just([]), st.just({}), st.just([1, "a"]), st.just({"unknownField": 1}),
)  # fmt: skip


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_quick_check_agrees_with_jsonschema(data: st.DataObject) -> None:
    obj = copy.deepcopy(data.draw(st.sampled_from(_rendered())))
    for _ in range(data.draw(st.integers(1, 3))):
        paths = [p for p in _paths(obj) if p]
        path = data.draw(st.sampled_from(paths))
        action = data.draw(st.sampled_from(["set", "delete", "add"]))
        if action == "set":
            _set(obj, path, copy.deepcopy(data.draw(ODD_VALUES)))
        elif action == "delete" and isinstance(path[-1], str):
            _delete(obj, path)
        else:
            target = obj
            for key in path[:-1]:
                target = target[key]
            if isinstance(target, dict):
                target[data.draw(st.sampled_from(["bogus", "name", "image", "replicas"]))] = copy.deepcopy(
                    data.draw(ODD_VALUES)
                )
    kind, api = obj.get("kind"), obj.get("apiVersion")
    if not isinstance(kind, str) or not isinstance(api, str):
        return
    fast = kv.fast_validator(VERSION, kind, api)
    if fast is None:
        return
    assert fast(obj) == kv.full_validator(VERSION, kind, api).is_valid(obj), yaml.safe_dump(obj)


@pytest.mark.parametrize(
    ("path", "value", "valid"),
    [
        (("metadata", "creationTimestamp"), "yesterday", True),  # format is an annotation
        (("spec", "replicas"), 2**40, True),  # so is int32
        (("spec", "replicas"), 2.0, True),  # an integral float is an integer
        (("spec", "replicas"), 2.5, False),
        (("spec", "replicas"), True, False),  # a boolean is not
        (("spec", "replicas"), None, True),
        (
            ("spec", "strategy"),
            {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}},
            True,
        ),
        (("spec", "strategy"), {"rollingUpdate": {"maxSurge": 1.5}}, False),  # int-or-string
        (("spec", "strategy"), {"rollingUpdate": {"maxSurge": None}}, False),  # null matches both branches of the oneOf
        (("spec", "strategy"), {"type": 1}, False),
        (("metadata", "labels"), {"app": 1}, False),
        (("metadata", "bogus"), 1, True),  # the schemas do not close objects
    ],
)
def test_edge_cases(path: tuple[str, ...], value: Any, valid: bool) -> None:
    deployment = copy.deepcopy(next(o for o in _rendered() if o["kind"] == "Deployment"))
    _set(deployment, path, value)
    before = copy.deepcopy(deployment)
    fast = kv.fast_validator(VERSION, "Deployment", "apps/v1")
    assert fast is not None
    assert fast(deployment) is valid
    assert kv.full_validator(VERSION, "Deployment", "apps/v1").is_valid(deployment) is valid
    assert deployment == before  # no defaults filled in


def test_messages_come_from_jsonschema() -> None:
    deployment = copy.deepcopy(next(o for o in _rendered() if o["kind"] == "Deployment"))
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["ports"][0]["containerPort"] = "http"
    del container["name"]
    issues = kv.schema_issues(deployment, VERSION)
    assert issues == [
        kv.KubeIssue(("spec", "template", "spec", "containers", 0), "'name' is a required property"),
        kv.KubeIssue(
            ("spec", "template", "spec", "containers", 0, "ports", 0, "containerPort"),
            "'http' is not of type 'integer'",
        ),
    ]


def test_results_are_the_same_without_the_quick_check(monkeypatch: pytest.MonkeyPatch) -> None:
    # The quick check only decides which objects jsonschema looks at; without it (no wheel, a schema it
    # cannot build) jsonschema checks every object and reports the same.
    deployment = next(o for o in _rendered() if o["kind"] == "Deployment")
    broken = copy.deepcopy(deployment)
    broken["spec"]["replicas"] = "three"
    before = [kv.schema_issues(deployment, VERSION), kv.schema_issues(broken, VERSION)]
    monkeypatch.setattr(kv, "fast_validator", lambda *_: None)
    after = [kv.schema_issues(deployment, VERSION), kv.schema_issues(broken, VERSION)]
    assert before == after and before[0] == [] and before[1] and before[1][0].path == ("spec", "replicas")


def test_quick_check_fetches_nothing() -> None:
    assert quick.predicate({"$ref": "https://example.com/schema.json"}) is None
    documents = quick.registry([("https://example.com/d.json", {"$defs": {"n": {"type": "integer"}}})])
    local = quick.predicate({"$ref": "https://example.com/d.json#/$defs/n"}, documents)
    assert local is not None and local(1) and not local("1")


def test_quick_check_says_no_to_what_it_cannot_read() -> None:
    check = quick.predicate({"type": "object", "properties": {"a": {"type": "string"}}})
    assert check is not None and check({"a": "x"})
    assert not check({1: "a"})  # a key that is not a string: jsonschema-rs raises, the check says no
    assert not check({"a": b"x"})  # bytes (YAML !!binary) are not a string, as for jsonschema
