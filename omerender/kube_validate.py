"""Rendered objects checked against the Kubernetes OpenAPI schemas the kubernetes-validate package ships.

jsonschema takes about 2 ms per Deployment with these schemas, so every object first goes through a
validator compiled here from the same schema (``type``, ``enum``, ``required``, ``properties``,
``additionalProperties``, ``items``, ``oneOf`` and ``$ref``, the only assertions the schemas use;
``format`` is an annotation, as it is for jsonschema without a format checker). Only an object it
rejects goes to jsonschema, whose errors are the ones reported. Both are cached per Kubernetes
version and kind. Kinds the package has no schema for (custom resources) are not checked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any

from omerender.diagnostics import ERROR, Diagnostic
from omerender.loader import Obj

DEFAULT_KUBE_VERSION = "1.37"
SCHEMA_ROOT = "kubernetes-json-schema"
DEFS_PREFIX = "#/$defs/"
MAX_ERRORS_PER_OBJECT = 10

Check = Callable[[Any], bool]


class KubeVersionError(ValueError):
    pass


@dataclass(frozen=True)
class KubeIssue:
    path: tuple[str | int, ...]
    message: str


def available_versions() -> list[str]:
    """``major.minor`` of every Kubernetes release whose schemas are installed, oldest first."""
    try:
        root = files("kubernetes_validate").joinpath(SCHEMA_ROOT)
    except ModuleNotFoundError:
        return []
    found = {m.group(1) for entry in root.iterdir() if (m := re.fullmatch(r"v(\d+\.\d+)\.\d+-local", entry.name))}
    return sorted(found, key=lambda v: tuple(int(p) for p in v.split(".")))


def resolve_version(given: str) -> str:
    """``1.33``, ``v1.33.4`` or ``1.33+`` -> ``1.33``; a release newer than any installed -> the newest.

    Schemas only grow between releases, so the newest installed is the closest match for a newer
    cluster; an older release than any installed is an error.
    """
    m = re.match(r"v?(\d+)\.(\d+)", given.strip())
    versions = available_versions()
    if not versions:
        raise KubeVersionError("no Kubernetes schemas are installed (pip install kubernetes-validate), or pass --kube-version none")
    if m is None:
        raise KubeVersionError(f"not a Kubernetes version: {given!r} (installed: {', '.join(versions)})")
    wanted = (int(m.group(1)), int(m.group(2)))
    numbered = [(tuple(int(p) for p in v.split(".")), v) for v in versions]
    if wanted > numbered[-1][0]:
        return numbered[-1][1]
    for number, version in numbered:
        if number == wanted:
            return version
    raise KubeVersionError(f"no Kubernetes schemas for version {given!r}; installed: {', '.join(versions)}")


def _folder(version: str) -> Any:
    return files("kubernetes_validate").joinpath(SCHEMA_ROOT, f"v{version}.0-local")


def _schema_name(kind: str, api_version: str) -> str:
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    return f"{kind.lower()}-{group_version}.json"


@cache
def _definitions(version: str) -> dict[str, Any]:
    return json.loads(_folder(version).joinpath("_definitions.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@cache
def _schema(version: str, kind: str, api_version: str) -> dict[str, Any] | None:
    entry = _folder(version).joinpath(_schema_name(kind, api_version))
    if not entry.is_file():
        return None
    return json.loads(entry.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


_PY_TYPES: dict[str, tuple[type, ...]] = {"string": (str,), "object": (dict,), "array": (list,), "boolean": (bool,)}


def _is_integer(v: Any) -> bool:
    return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _type_check(names: list[str]) -> Check:
    """jsonschema's ``type``: booleans are not numbers, and 1.0 is an integer."""
    nullable = "null" in names
    simple = tuple(t for n in names for t in _PY_TYPES.get(n, ()))
    numeric = [f for n, f in (("integer", _is_integer), ("number", _is_number)) if n in names]
    if not numeric:
        if nullable:
            return lambda v: v is None or isinstance(v, simple)
        return lambda v: isinstance(v, simple)
    test = numeric[-1]
    return lambda v: (nullable and v is None) or isinstance(v, simple) or test(v)


class _Compiler:
    """Turns a schema into nested closures; ``$ref``s into definitions are compiled once, lazily."""

    def __init__(self, definitions: dict[str, Any]) -> None:
        self.definitions = definitions
        self.compiled: dict[str, Check] = {}
        self.pending: set[str] = set()

    def ref(self, target: str) -> Check:
        if not target.startswith("/api/_definitions.json" + DEFS_PREFIX) and not target.startswith(DEFS_PREFIX):
            raise ValueError(f"unsupported $ref {target}")
        name = target.split(DEFS_PREFIX, 1)[1]
        if name in self.compiled:
            return self.compiled[name]
        compiled = self.compiled
        if name in self.pending:  # a recursive definition: look it up once it exists
            return lambda v: compiled[name](v)
        self.pending.add(name)
        compiled[name] = self.compile(self.definitions[name])
        self.pending.discard(name)
        return compiled[name]

    def compile(self, schema: dict[str, Any]) -> Check:
        checks: list[Check] = []
        if "$ref" in schema:
            checks.append(self.ref(schema["$ref"]))
        names = schema.get("type", [])
        names = names if isinstance(names, list) else [names]
        shaped = self._shaped(schema, names)
        if shaped is not None:
            checks.append(shaped)
        else:
            if names:
                checks.append(_type_check(names))
            checks.extend(self._structure(schema, accept_other=True))
        if "enum" in schema:
            allowed = list(schema["enum"])
            checks.append(lambda v: any(type(v) is type(a) and v == a for a in allowed))
        if "oneOf" in schema:
            options = [self.compile(s) for s in schema["oneOf"]]
            checks.append(lambda v: sum(1 for o in options if o(v)) == 1)
        if not checks:
            return lambda v: True
        if len(checks) == 1:
            return checks[0]
        return lambda v: all(c(v) for c in checks)

    def _shaped(self, schema: dict[str, Any], names: list[str]) -> Check | None:
        """One closure for ``type: object`` or ``type: array`` (maybe nullable), type test included."""
        kinds = [n for n in names if n != "null"]
        object_keywords = any(k in schema for k in ("properties", "required", "additionalProperties"))
        if kinds == ["object"] and "items" in schema or kinds == ["array"] and object_keywords or kinds not in (["object"], ["array"]):
            return None
        found = self._structure(schema, accept_other=False, nullable="null" in names)
        return found[0] if found else _type_check(names)

    def _structure(self, schema: dict[str, Any], *, accept_other: bool, nullable: bool = False) -> list[Check]:
        """Checks of ``items`` and of the object keywords; a value of another type passes if ``accept_other``."""
        checks: list[Check] = []
        if isinstance(schema.get("items"), dict):
            item = self.compile(schema["items"])

            def array(value: Any) -> bool:
                if not isinstance(value, list):
                    return accept_other or (nullable and value is None)
                return all(item(x) for x in value)

            checks.append(array)
        if not any(k in schema for k in ("properties", "required", "additionalProperties")):
            return checks
        required = tuple(schema.get("required") or ())
        props = {k: self.compile(s) for k, s in (schema.get("properties") or {}).items() if _asserts(s)}
        known = frozenset(schema.get("properties") or ())
        extra = schema.get("additionalProperties", True)
        extra_check = self.compile(extra) if isinstance(extra, dict) else None
        closed = extra is False

        def obj(value: Any) -> bool:
            if not isinstance(value, dict):
                return accept_other or (nullable and value is None)
            for key in required:
                if key not in value:
                    return False
            for key, item in value.items():
                prop = props.get(key)
                if prop is not None:
                    if not prop(item):
                        return False
                elif key not in known and (closed or (extra_check is not None and not extra_check(item))):
                    return False
            return True

        checks.append(obj)
        return checks


def _asserts(schema: Any) -> bool:
    return isinstance(schema, dict) and any(k in schema for k in ("$ref", "type", "enum", "oneOf", "properties", "items", "required", "additionalProperties"))


@cache
def _compiler(version: str) -> _Compiler:
    return _Compiler(_definitions(version)["$defs"])


@cache
def fast_validator(version: str, kind: str, api_version: str) -> Check | None:
    schema = _schema(version, kind, api_version)
    return None if schema is None else _compiler(version).compile(schema)


@cache
def full_validator(version: str, kind: str, api_version: str) -> Any:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    schema = _schema(version, kind, api_version)
    definitions = Resource.from_contents(_definitions(version))
    registry: Any = Registry().with_resource(definitions.id() or "", definitions)
    return Draft202012Validator(schema, registry=registry)


def _path_sort_key(path: tuple[str | int, ...]) -> tuple[tuple[int, str], ...]:
    return tuple((0, f"{k:09d}") if isinstance(k, int) else (1, k) for k in path)


def check(obj: dict[str, Any], version: str) -> list[KubeIssue] | None:
    """Schema problems of one rendered object, sorted by path; ``None`` when no schema exists for its kind."""
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    if not isinstance(kind, str) or not isinstance(api_version, str):
        return [KubeIssue((), "object has no kind or apiVersion")]
    fast = fast_validator(version, kind, api_version)
    if fast is None:
        return None
    if fast(obj):
        return []
    from jsonschema.exceptions import best_match

    issues: set[KubeIssue] = set()
    for error in full_validator(version, kind, api_version).iter_errors(obj):
        if error.validator == "oneOf" and error.context:
            error = best_match([error]) or error
        issues.add(KubeIssue(tuple(error.absolute_path), error.message))
    if not issues:  # the compiled check is stricter than jsonschema somewhere: trust jsonschema
        return []
    return sorted(issues, key=lambda i: (_path_sort_key(i.path), i.message))[:MAX_ERRORS_PER_OBJECT]


def dotted(path: tuple[str | int, ...]) -> str:
    out = ""
    for key in path:
        if isinstance(key, int):
            out += f"[{key}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            out += f".{key}" if out else key
        else:
            out += f"[{key}]"
    return out


def diagnostics(isvc: Obj, objects: list[dict[str, Any]], version: str | None) -> list[Diagnostic]:
    """Schema errors of one InferenceService's rendered objects, located at the InferenceService."""
    if version is None:
        return []
    found: list[Diagnostic] = []
    for obj in objects:
        issues = check(obj, version)
        labels = (obj.get("metadata") or {}).get("labels") if isinstance(obj.get("metadata"), dict) else None
        component = labels.get("component", "") if isinstance(labels, dict) else ""
        where = ("spec", component) if component else ("spec",)
        name = (obj.get("metadata") or {}).get("name", "") if isinstance(obj.get("metadata"), dict) else ""
        for issue in issues or []:
            at = f"{dotted(issue.path)}: " if issue.path else ""
            message = f"rendered {obj.get('kind')} {name} fails the Kubernetes {version} schema: {at}{issue.message}"
            found.append(isvc.diag(ERROR, message, *where, code="kube-schema"))
    return found
