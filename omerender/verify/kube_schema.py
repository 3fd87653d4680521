"""Rendered objects checked against the Kubernetes OpenAPI schemas the kubernetes-validate package ships.

jsonschema takes about 2 ms per Deployment with these schemas, so every object first goes through
jsonschema-rs's yes/no check of the same schema (``admission.quick``), about 7 us. Only an object it
rejects goes to jsonschema, whose errors are the ones reported. Both are cached per Kubernetes
version and kind.
Kinds the package has no schema for (custom resources) are not checked, except the Knative Service,
whose schema omerender ships (``EXTRA_SCHEMAS``).
"""

from __future__ import annotations

import importlib.util
import json
import re
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from omerender import codes
from omerender.admission import quick
from omerender.diagnostics import ERROR, Diagnostic, field_path
from omerender.errors import UsageError
from omerender.load.obj import Obj

SCHEMA_ROOT = "kubernetes-json-schema"
MAX_ERRORS_PER_OBJECT = 10
# Custom resources omerender renders and ships a schema for (schemas/README.md); they use the Kubernetes definitions.
EXTRA_SCHEMAS = {("Service", "serving.knative.dev/v1"): "knative-service-serving-v1.json"}


class KubeVersionError(UsageError):
    """A --kube-version (or KUBE_VERSION) that names no Kubernetes release with schemas here."""


@dataclass(frozen=True)
class KubeIssue:
    path: tuple[str | int, ...]
    message: str


def available_versions() -> list[str]:
    """``major.minor`` of every Kubernetes release whose schemas are installed, oldest first."""
    package = _package()
    if package is None:
        return []
    root = package.joinpath(SCHEMA_ROOT)
    found = {m.group(1) for entry in root.iterdir() if (m := re.fullmatch(r"v(\d+\.\d+)\.\d+-local", entry.name))}
    return sorted(found, key=lambda v: tuple(int(p) for p in v.split(".")))


def resolve_version(given: str, clamp_older: bool = False) -> str:
    """``1.33``, ``v1.33.4`` or ``1.33+`` -> ``1.33``; a release newer than any installed -> the newest.

    The forms are read by :mod:`omerender.verify.kube_version`, as the CLI reads them. An older
    release than any installed is an error here, or with ``clamp_older`` the oldest installed.
    """
    from omerender.verify.kube_version import KubeVersionError as FormError
    from omerender.verify.kube_version import choose

    versions = available_versions()
    if not versions:
        raise KubeVersionError(
            "no Kubernetes schemas are installed (pip install kubernetes-validate), or pass --kube-version none"
        )
    try:
        picked = choose(given, versions)
    except FormError as exc:
        raise KubeVersionError(f"{exc} (installed: {', '.join(versions)})") from None
    if picked.version is None or (picked.warning and not clamp_older):
        raise KubeVersionError(f"no Kubernetes schemas for version {given!r}; installed: {', '.join(versions)}")
    return picked.version


@cache
def _package() -> Path | None:
    """kubernetes-validate's folder, found without importing it (its ``__init__`` imports jsonschema)."""
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _folder(version: str) -> Any:
    package = _package()
    if package is None:
        raise KubeVersionError("kubernetes-validate is not installed")
    return package.joinpath(SCHEMA_ROOT, f"v{version}.0-local")


def _schema_name(kind: str, api_version: str) -> str:
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    return f"{kind.lower()}-{group_version}.json"


@cache
def _definitions_text(version: str) -> str:
    return _folder(version).joinpath("_definitions.json").read_text(encoding="utf-8")  # type: ignore[no-any-return]


@cache
def _definitions(version: str) -> dict[str, Any]:
    return json.loads(_definitions_text(version))  # type: ignore[no-any-return]


@cache
def _schema_text(version: str, kind: str, api_version: str) -> str | None:
    entry = _folder(version).joinpath(_schema_name(kind, api_version))
    if not entry.is_file():
        extra = EXTRA_SCHEMAS.get((kind, api_version))
        if extra is None:
            return None
        entry = files("omerender.schemas").joinpath(extra)
    return entry.read_text(encoding="utf-8")  # type: ignore[no-any-return]


@cache
def _schema(version: str, kind: str, api_version: str) -> dict[str, Any] | None:
    text = _schema_text(version, kind, api_version)
    return None if text is None else json.loads(text)


@cache
def fast_validator(version: str, kind: str, api_version: str) -> quick.Check | None:
    """jsonschema-rs's verdict as a predicate; ``None`` when there is no schema for the kind (or it cannot build
    one)."""
    schema = _schema(version, kind, api_version)
    if schema is None:
        return None
    documents = _documents(version)
    return None if documents is None else quick.predicate(schema, documents)


@cache
def _documents(version: str) -> Any:
    definitions = _definitions(version)
    return quick.registry([(str(definitions.get("$id", "")), definitions)])


@cache
def full_validator(version: str, kind: str, api_version: str) -> Any:
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    schema = _schema(version, kind, api_version)
    if schema is None:
        raise KeyError(f"no schema for {api_version} {kind} in Kubernetes {version}")
    definitions = Resource.from_contents(_definitions(version))
    registry: Any = Registry().with_resource(definitions.id() or "", definitions)
    return Draft202012Validator(schema, registry=registry)


def _path_sort_key(path: tuple[str | int, ...]) -> tuple[tuple[int, str], ...]:
    return tuple((0, f"{k:09d}") if isinstance(k, int) else (1, k) for k in path)


def schema_issues(obj: dict[str, Any], version: str) -> list[KubeIssue] | None:
    """Schema problems of one rendered object, sorted by path; ``None`` when no schema exists for its kind."""
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    if not isinstance(kind, str) or not isinstance(api_version, str):
        return [KubeIssue((), "object has no kind or apiVersion")]
    if _schema(version, kind, api_version) is None:
        return None
    fast = fast_validator(version, kind, api_version)
    if fast is not None and fast(obj):
        return []
    from jsonschema.exceptions import best_match

    issues: set[KubeIssue] = set()
    for error in full_validator(version, kind, api_version).iter_errors(obj):
        if error.validator == "oneOf" and error.context:
            error = best_match([error]) or error  # noqa: PLW2901 - the most relevant sub-error stands for it
        issues.add(KubeIssue(tuple(error.absolute_path), error.message))
    if not issues:  # the quick check is stricter than jsonschema somewhere: trust jsonschema
        return []
    return sorted(issues, key=lambda i: (_path_sort_key(i.path), i.message))[:MAX_ERRORS_PER_OBJECT]


def diagnostics(isvc: Obj, objects: list[dict[str, Any]], version: str | None) -> list[Diagnostic]:
    """Schema errors of one InferenceService's rendered objects, located at the InferenceService."""
    if version is None:
        return []
    found: list[Diagnostic] = []
    for obj in objects:
        issues = schema_issues(obj, version)
        labels = (obj.get("metadata") or {}).get("labels") if isinstance(obj.get("metadata"), dict) else None
        component = labels.get("component", "") if isinstance(labels, dict) else ""
        where = ("spec", component) if component else ("spec",)
        name = (obj.get("metadata") or {}).get("name", "") if isinstance(obj.get("metadata"), dict) else ""
        for issue in issues or []:
            at = f"{field_path(issue.path)}: " if issue.path else ""
            message = f"rendered {obj.get('kind')} {name} fails the Kubernetes {version} schema: {at}{issue.message}"
            found.append(isvc.diag(ERROR, message, *where, code=codes.KUBE_SCHEMA))
    return found
