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
from omerender.data import copy, drop_nulls
from omerender.diagnostics import field_path

if TYPE_CHECKING:
    from jsonschema import ValidationError

KINDS = frozenset({"InferenceService", "ServingRuntime", "ClusterServingRuntime", "BaseModel", "ClusterBaseModel"})

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


def _duplicates(list_type: Any, instance: Any, schema: dict[str, Any]) -> Iterator[tuple[int, str]]:
    """(index, canonical text) of each list-map key or set item already seen earlier in ``instance``."""
    if list_type not in ("map", "set") or not isinstance(instance, list):
        return
    keys = schema.get("x-kubernetes-list-map-keys", [])
    defaults = schema.get("x-omerender-list-map-key-defaults", {})
    seen: set[str] = set()
    for index, item in enumerate(instance):
        if list_type == "map":
            if not isinstance(item, dict):
                continue
            ident = {key: item.get(key, defaults.get(key)) for key in keys}
            if not ident or any(value is None for value in ident.values()):
                continue
        else:
            ident = item
        text = _canonical(ident)
        if text in seen:
            yield index, text
        seen.add(text)


def _list_type(validator: Any, list_type: Any, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    """Uniqueness of list-map keys and set items, as the API server checks it."""
    from jsonschema import ValidationError

    for index, text in _duplicates(list_type, instance, schema):
        yield ValidationError(f"Duplicate value: {text}", path=[index])


_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SUBSCHEMAS = ("if", "then", "else", "not", "items", "additionalItems", "contains")


def _resolve(root: dict[str, Any], ref: str) -> Any:
    target: Any = root
    for part in ref[2:].split("/"):
        target = target.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(target, dict) else None
    return target


def _subschemas(root: dict[str, Any], schema: dict[str, Any]) -> Iterator[Any]:
    """Every subschema ``_may_have_duplicates`` may follow from ``schema``; an unresolvable ``$ref`` gives None."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        yield _resolve(root, ref) if ref.startswith("#/") else None
    yield from (schema.get(k) for k in _SUBSCHEMAS)
    yield from (s for k in _SUBSCHEMA_LISTS for s in schema.get(k) or [])
    yield from (schema.get("properties") or {}).values()
    yield schema.get("additionalProperties")
    yield from (schema.get("patternProperties") or {}).values()


@cache
def _reaching(kind: str) -> frozenset[int]:
    """Ids of the subschemas of ``kind``'s schema from which a list type (or a ``$ref`` that cannot be followed)
    can be reached: below any other one no list can break a list type, so no instance is walked there."""
    root = _schema(kind)
    parents: dict[int, list[dict[str, Any]]] = {}
    seeds: list[dict[str, Any]] = []
    seen = {id(root)}
    stack = [root]
    while stack:
        schema = stack.pop()
        if schema.get("x-kubernetes-list-type") is not None:
            seeds.append(schema)
        for sub in _subschemas(root, schema):
            if sub is None and isinstance(schema.get("$ref"), str):
                seeds.append(schema)
            if not isinstance(sub, dict):
                continue
            parents.setdefault(id(sub), []).append(schema)
            if id(sub) not in seen:
                seen.add(id(sub))
                stack.append(sub)
    reached = {id(s) for s in seeds}
    stack = list(seeds)
    while stack:
        for parent in parents.get(id(stack.pop()), []):
            if id(parent) not in reached:
                reached.add(id(parent))
                stack.append(parent)
    return frozenset(reached)


def _may_have_duplicates(root: dict[str, Any], schema: Any, instance: Any, reaching: frozenset[int]) -> bool:
    """Whether a list in ``instance`` may break its ``x-kubernetes-list-type``: generous, never missing one.

    Every subschema that could apply, and from which a list type can be reached (``reaching``), is
    followed, so a True may be wrong (jsonschema then decides), a False is not.
    """
    if not isinstance(schema, dict) or not isinstance(instance, (dict, list)) or id(schema) not in reaching:
        return False
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = _resolve(root, ref) if ref.startswith("#/") else None
        if target is None or _may_have_duplicates(root, target, instance, reaching):
            return True
    subs = [schema.get(k) for k in _SUBSCHEMAS] + [s for k in _SUBSCHEMA_LISTS for s in schema.get(k) or []]
    if any(_may_have_duplicates(root, sub, instance, reaching) for sub in subs if sub is not None):
        return True
    if isinstance(instance, list):
        return next(_duplicates(schema.get("x-kubernetes-list-type"), instance, schema), None) is not None
    props = schema.get("properties") or {}
    extra = schema.get("additionalProperties")
    patterns = list((schema.get("patternProperties") or {}).values())
    for key, value in instance.items():
        if isinstance(value, (dict, list)):
            for sub in [props.get(key), extra, *patterns]:
                if isinstance(sub, dict) and _may_have_duplicates(root, sub, value, reaching):
                    return True
    return False


@cache
def _schema_text(kind: str) -> str:
    return files("omerender.schemas").joinpath(f"{kind.lower()}.json").read_text(encoding="utf-8")


@cache
def _schema(kind: str) -> dict[str, Any]:
    return json.loads(_schema_text(kind))  # type: ignore[no-any-return]


@cache
def _fast(kind: str) -> quick.Check | None:
    return quick.predicate(_schema(kind))


def _passes(kind: str, instance: Any) -> bool:
    """jsonschema-rs's verdict, then list uniqueness; False sends the object to jsonschema for its errors."""
    fast = _fast(kind)
    if fast is None or not fast(instance):
        return False
    try:
        return not _may_have_duplicates(_schema(kind), _schema(kind), instance, _reaching(kind))
    except RecursionError:
        return False


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


def check(obj: Any) -> list[SchemaIssue]:
    """Schema issues of an OME object, sorted by path; [] for kinds without a schema. Never raises."""
    if not isinstance(obj, dict):
        return []
    kind = obj.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        return []
    try:
        try:
            instance = copy(obj)
            drop_nulls(instance)
        except RecursionError:  # absurdly deep input: validate it as it is
            instance = obj
        if _passes(kind, instance):
            return []
        errors = _validator(kind).iter_errors(instance)
        issues = _drop_shadowed({found for error in errors for found in _issues(error)})
    except Exception as exc:  # noqa: BLE001 - the contract is to never raise on input
        return [SchemaIssue((), f"schema check failed: {type(exc).__name__}: {exc}", False)]
    return sorted(issues, key=_sort_key)
