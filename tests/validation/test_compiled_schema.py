"""Compiled validators: cached code is reused only from a private folder, and the fast input check agrees
with jsonschema (a pass means jsonschema finds nothing; a duplicate list key is never passed)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from omerender.admission import compiled as compiled_schema
from omerender.admission import schema
from omerender.data import copy, drop_nulls

REPO = Path(__file__).resolve().parents[2]
SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": False}


@pytest.fixture
def cache(tmp_path: Path) -> Any:
    folder = tmp_path / "validators"
    compiled_schema.set_cache_dir(str(folder))
    yield folder
    compiled_schema.set_cache_dir(os.environ.get("OMERENDER_CACHE_DIR") or None)


def _valid(validate: compiled_schema.Validate, value: Any) -> bool:
    try:
        validate(value)
    except Exception:  # noqa: BLE001
        return False
    return True


def test_cached_code_is_reused(cache: Path) -> None:
    calls: list[int] = []

    def make() -> Any:
        calls.append(1)
        return SCHEMA

    first = compiled_schema.validator("k1", make)
    second = compiled_schema.validator("k1", make)
    assert calls == [1]
    assert [p.suffix for p in cache.iterdir()] == [".bin"]
    assert oct(cache.stat().st_mode & 0o777) == "0o700"
    for validate in (first, second):
        assert _valid(validate, {"a": 1}) and not _valid(validate, {"a": "x"}) and not _valid(validate, {"b": 1})


def test_unsafe_or_damaged_cache_is_compiled_again(cache: Path) -> None:
    calls: list[int] = []

    def make() -> Any:
        calls.append(1)
        return SCHEMA

    compiled_schema.validator("k2", make)
    (entry,) = cache.iterdir()
    entry.chmod(0o666)  # anyone could have written it: never loaded
    assert _valid(compiled_schema.validator("k2", make), {"a": 1})
    entry.chmod(0o600)
    entry.write_bytes(b"validate\nnot marshal")
    assert not _valid(compiled_schema.validator("k2", make), {"a": "x"})
    assert len(calls) == 3


def _ome_objects() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    roots = [REPO / "tests" / "cases", REPO / "tests" / "hostile", REPO / "fixtures", REPO.parent / "shared" / "ome"]
    for root in roots:
        for path in sorted(root.rglob("*.yaml")) if root.is_dir() else []:
            try:
                docs = list(yaml.load_all(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader))
            except (yaml.YAMLError, UnicodeDecodeError, RecursionError):
                continue
            found += [d for d in docs if isinstance(d, dict) and d.get("kind") in schema.KINDS]
    return found


def _mutations(obj: dict[str, Any]) -> list[dict[str, Any]]:
    out = [obj]
    spec = obj.get("spec")
    if isinstance(spec, dict):
        containers = spec.get("containers")
        if isinstance(containers, list) and containers:
            out.append({**obj, "spec": {**spec, "containers": [*containers, containers[0]]}})
        out.append({**obj, "spec": {**spec, "unknownField": 1}})
        out.append({**obj, "spec": {**spec, "disabled": "yes"}})
    return out


def test_fast_pass_means_jsonschema_finds_nothing(cache: Path) -> None:
    objects = _ome_objects()
    assert len(objects) > 20
    passed = rejected = 0
    for obj in objects:
        for case in _mutations(obj):
            instance = copy(case)
            drop_nulls(instance)
            kind = case["kind"]
            schema._seen[kind] = schema.COMPILE_AFTER  # take the fast path
            errors = list(schema._validator(kind).iter_errors(instance))
            if schema._passes(kind, instance):
                passed += 1
                assert errors == [], (kind, case.get("metadata"), errors[0].message)
            else:
                rejected += 1
    assert passed and rejected


def test_duplicate_list_keys_are_never_passed(cache: Path) -> None:
    runtime = {
        "apiVersion": "ome.io/v1beta1",
        "kind": "ClusterServingRuntime",
        "metadata": {"name": "r"},
        "spec": {"engineConfig": {"runner": {"name": "x", "image": "i", "env": [{"name": "A"}, {"name": "A"}]}}},
    }
    assert not schema._passes("ClusterServingRuntime", runtime)
    assert [i.message for i in schema.check(runtime)] == [
        'spec.engineConfig.runner.env[1]: Duplicate value: {"name": "A"}'
    ]
