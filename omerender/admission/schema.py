"""Check an OME object against the JSON Schema generated from its CRD (see scripts/gen_schemas.py).

A field the CRD does not know comes back as an issue with ``unknown_field`` set: the API server
drops it (or, under kubectl's default strict field validation, rejects the object), so callers
usually report it as a warning. Everything else is an error the API server would reject,
including duplicate keys in ``x-kubernetes-list-type: map`` lists and duplicate ``set`` items.
"""

from __future__ import annotations

import json
import reprlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any, cast

from omerender.admission import quick
from omerender.data import Json, copy, drop_nulls
from omerender.diagnostics import field_path
from omerender.ome import KINDS

if TYPE_CHECKING:
    from jsonschema import ValidationError

PathKey = str | int


@dataclass(frozen=True)
class SchemaIssue:
    path: tuple[PathKey, ...]
    message: str
    unknown_field: bool


def _canonical(value: Any) -> str:
    try:
        return json.dumps(value, sort_keys=True, default=repr)
    except (TypeError, ValueError):
        return repr(value)


_SCALARS = (str, int, bool, type(None))  # not float: NaN is unequal to itself, -0.0 equal to 0.0, not so in JSON


def _identity(value: Any) -> Any:
    """What tells list-map keys and set items apart as their canonical JSON texts do, made faster for text,
    integers, booleans and null (each with its type: ``1``, ``true`` and ``"1"`` differ in JSON, ``1 == True``)."""
    if isinstance(value, dict):
        if all(type(v) in _SCALARS for v in value.values()):
            return tuple(sorted((k, type(v), v) for k, v in value.items()))
    elif type(value) in _SCALARS:
        return (type(value), value)
    return _canonical(value)


def _duplicates(list_type: Any, instance: Any, schema: dict[str, Any]) -> Iterator[tuple[int, str]]:
    """(index, canonical text) of each list-map key or set item already seen earlier in ``instance``."""
    if list_type not in ("map", "set") or not isinstance(instance, list):
        return
    keys = schema.get("x-kubernetes-list-map-keys", [])
    defaults = schema.get("x-omerender-list-map-key-defaults", {})
    seen: set[Any] = set()
    for index, item in enumerate(instance):
        if list_type == "map":
            if not isinstance(item, dict):
                continue
            ident = {key: item.get(key, defaults.get(key)) for key in keys}
            if not ident or any(value is None for value in ident.values()):
                continue
        else:
            ident = item
        found = _identity(ident)
        if found in seen:
            yield index, _canonical(ident)
        seen.add(found)


def _list_type(validator: Any, list_type: Any, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    """Uniqueness of list-map keys and set items, as the API server checks it."""
    from jsonschema import ValidationError

    for index, text in _duplicates(list_type, instance, schema):
        yield ValidationError(f"Duplicate value: {text}", path=[index])


class _ListType:
    """``x-kubernetes-list-type`` for jsonschema-rs, which calls back for each list the keyword applies to."""

    def __init__(self, parent_schema: dict[str, Any], value: Any, schema_path: Any) -> None:
        self.list_type, self.schema = value, parent_schema

    def validate(self, instance: Any) -> None:
        if next(_duplicates(self.list_type, instance, self.schema), None) is not None:
            raise ValueError("duplicate list-map key or set item")


@cache
def _schema_text(kind: str) -> str:
    return files("omerender.schemas").joinpath(f"{kind.lower()}.json").read_text(encoding="utf-8")


@cache
def _schema(kind: str) -> dict[str, Any]:
    return json.loads(_schema_text(kind))  # type: ignore[no-any-return]


@cache
def _fast(kind: str) -> quick.Check | None:
    return quick.predicate(_schema(kind), keywords={"x-kubernetes-list-type": _ListType})


def _passes(kind: str, instance: Any) -> bool:
    """jsonschema-rs's verdict, list uniqueness included; False sends the object to jsonschema for its errors."""
    fast = _fast(kind)
    return fast is not None and fast(instance)


@cache
def _validator(kind: str) -> Any:
    from jsonschema import Draft202012Validator, validators

    extended = validators.extend(Draft202012Validator, {"x-kubernetes-list-type": _list_type})  # type: ignore[no-untyped-call]
    return extended(_schema(kind), format_checker=None)


_short = reprlib.Repr()
_short.maxstring = _short.maxother = 60
_short.maxdict = _short.maxlist = 4
_short.maxlevel = 2


def _message(error: ValidationError) -> str:
    if error.validator in ("anyOf", "oneOf"):
        schema = error.schema if isinstance(error.schema, dict) else {}
        if schema.get("x-kubernetes-int-or-string"):
            return f"{_short.repr(error.instance)} is not of type 'integer' or 'string'"
    text = repr(error.instance)
    if len(text) > 80:
        return error.message.replace(text, _short.repr(error.instance))
    return error.message


def _issues(error: ValidationError) -> Iterator[tuple[SchemaIssue, str]]:
    """Issues of one error, each with the keyword that failed."""
    if error.validator == "additionalProperties" and error.validator_value is False:
        known = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        for field in cast(Iterable[Any], error.instance):
            if field not in known:
                path = (*error.absolute_path, str(field))
                message = (
                    f'unknown field "{field_path(path)}" (kubectl apply rejects it by default; '
                    "the API server drops it when field validation is off)"
                )
                yield SchemaIssue(path, message, True), "additionalProperties"
        return
    if error.validator in ("anyOf", "oneOf") and error.context:
        from jsonschema.exceptions import best_match

        error = best_match([error]) or error
    path = tuple(error.absolute_path)
    message = _message(error)
    keyword = "type" if " is not of type " in message and error.validator in ("type", "anyOf", "oneOf") else ""
    yield SchemaIssue(path, f"{field_path(path)}: {message}" if path else message, False), keyword


def _sort_key(issue: SchemaIssue) -> tuple[tuple[tuple[int, int, str], ...], str]:
    return tuple((0, k, "") if isinstance(k, int) else (1, 0, str(k)) for k in issue.path), issue.message


def _drop_shadowed(found: set[tuple[SchemaIssue, str]]) -> set[SchemaIssue]:
    """Where a value has the wrong type, its other complaints (enum, pattern) are noise."""
    typed = {issue.path for issue, keyword in found if keyword == "type"}
    return {i for i, keyword in found if keyword in ("type", "additionalProperties") or i.path not in typed}


_NULL_PROBE = json.JSONEncoder(check_circular=False)  # made once: json.dumps with an option makes one per call


def _stored(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` without its nulls, as the API server stores it; ``obj`` itself when its JSON text (written in C,
    and far cheaper than the copy) shows no null."""
    try:
        if "null" not in _NULL_PROBE.encode(obj):
            return obj
    except (TypeError, ValueError, RecursionError):
        pass  # not JSON (a date, a non-string key) or very deep: the walk decides
    try:
        instance: dict[str, Any] = copy(obj)
        drop_nulls(instance)
    except RecursionError:  # absurdly deep input: validate it as it is
        return obj
    return instance


def crd_schema_issues(obj: Json) -> list[SchemaIssue]:
    """Schema issues of an OME object, sorted by path; [] for kinds without a schema. Never raises on input (only
    MemoryError, when the process runs out)."""
    if not isinstance(obj, dict):
        return []
    kind = obj.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        return []
    try:
        instance = _stored(obj)
        if _passes(kind, instance):
            return []
        errors = _validator(kind).iter_errors(instance)
        issues = _drop_shadowed({found for error in errors for found in _issues(error)})
    except MemoryError:
        raise  # the environment (ulimit -v, a container's limit), not the input: the CLI says so in one line
    except ImportError as exc:  # a native library that could not be mapped: the process is out of memory
        raise MemoryError(str(exc)) from exc
    except Exception as exc:  # noqa: BLE001 - the contract is to never raise on input
        return [SchemaIssue((), f"schema check failed: {type(exc).__name__}: {exc}", False)]
    return sorted(issues, key=_sort_key)
