"""Every OME input object checked the way the API server checks it before storing it.

Three outcomes per object, matching what a cluster does with it:

* a field its CRD does not know is pruned from the object (what the API server does with field
  validation off) and reported as a warning, or as an error under ``strict``, naming the field;
* a schema violation (wrong type, missing required field, duplicate list-map key) or an invalid
  ``metadata.name``/``metadata.namespace`` is an error, and the object is left out of what
  omerender resolves and renders, as the API server would never store it;
* otherwise the object is kept as it is.

Nothing here prints or raises on input; findings are located Diagnostics with the JSON path.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

import yaml

from omerender import codes
from omerender.admission.schema import SchemaIssue, crd_schema_issues
from omerender.constants import ValidationMode
from omerender.diagnostics import ERROR, WARNING, Diagnostic
from omerender.load.obj import Obj
from omerender.names import (
    LABEL_RULE,
    MAX_ANNOTATIONS_BYTES,
    SUBDOMAIN_RULE,
    clip,
    is_dns_label,
    is_dns_subdomain,
    qualified_name_problem,
)
from omerender.ome import INFERENCE_SERVICE

UNKNOWN_FIELD = codes.UNKNOWN_FIELD
SCHEMA = codes.SCHEMA
INVALID_NAME = codes.INVALID_NAME


@dataclasses.dataclass
class InputCheck:
    kept: list[Obj]
    diagnostics: list[Diagnostic]
    rejected: dict[tuple[str, str, str], Diagnostic] = dataclasses.field(default_factory=dict)  # (kind, ns, name)


def key_position(node: Any, path: tuple[Any, ...]) -> tuple[int, int] | None:
    """1-based position of the mapping key that ends ``path`` (where an unknown field is written)."""
    current = node
    for depth, key in enumerate(path):
        found = None
        if isinstance(current, yaml.MappingNode):
            for key_node, value_node in current.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.value == str(key):
                    if depth == len(path) - 1:
                        return (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
                    found = value_node
                    break
        elif isinstance(current, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(current.value):
            found = current.value[key]
        if found is None:
            return None
        current = found
    return None


def _prune(body: dict[str, Any], path: tuple[Any, ...]) -> None:
    current: Any = body
    for key in path[:-1]:
        found = isinstance(current, dict) and key in current
        if not found and not (isinstance(current, list) and isinstance(key, int) and 0 <= key < len(current)):
            return
        current = current[key]
    if isinstance(current, dict):
        current.pop(path[-1], None)


def issue_diagnostic(obj: Obj, issue: SchemaIssue, strict: bool) -> Diagnostic:
    if issue.unknown_field:
        severity = ERROR if strict else WARNING
        found = obj.diag(severity, f"{obj.kind} {obj.name}: {issue.message}", *issue.path, code=UNKNOWN_FIELD)
        at = key_position(obj.node, issue.path)
        return dataclasses.replace(found, line=at[0], col=at[1]) if at else found
    return obj.diag(ERROR, f"{obj.kind} {obj.name}: {issue.message}", *issue.path, code=SCHEMA)


def name_problems(obj: Obj) -> list[Diagnostic]:
    meta = obj.body.get("metadata")
    if not isinstance(meta, dict):
        return []
    problems = []
    name = meta.get("name")
    # An InferenceService's name has its own rule (DNS-1035), the webhook's: admission.defaults checks it.
    if obj.kind != INFERENCE_SERVICE and isinstance(name, str) and name and not is_dns_subdomain(name):
        message = f'{obj.kind} {clip(name)}: metadata.name: Invalid value: "{clip(name)}": {SUBDOMAIN_RULE}'
        problems.append(obj.diag(ERROR, message, "metadata", "name", code=INVALID_NAME))
    namespace = meta.get("namespace")
    if isinstance(namespace, str) and namespace and not is_dns_label(namespace):
        message = f'{obj.kind} {clip(name)}: metadata.namespace: Invalid value: "{clip(namespace)}": {LABEL_RULE}'
        problems.append(obj.diag(ERROR, message, "metadata", "namespace", code=INVALID_NAME))
    return problems


def _at_key(obj: Obj, found: Diagnostic, path: tuple[Any, ...]) -> Diagnostic:
    at = key_position(obj.node, path)
    return dataclasses.replace(found, line=at[0], col=at[1]) if at else found


def key_problems(obj: Obj) -> list[Diagnostic]:
    """Label and annotation keys the API server rejects, each at the key's line (label values are the schema's
    to check); annotations over the API server's total size."""
    meta = obj.body.get("metadata")
    if not isinstance(meta, dict):
        return []
    problems = []
    for field in ("labels", "annotations"):
        entries = meta.get(field)
        if not isinstance(entries, dict):
            continue  # not a map: the schema check says so
        for key in entries:
            text = str(key)
            why = qualified_name_problem(text if field == "labels" else text.lower())
            if why is not None:
                message = f'{obj.kind} {clip(obj.name)}: metadata.{field}: Invalid value: "{clip(text)}": {why}'
                found = obj.diag(ERROR, message, "metadata", field, key, code=INVALID_NAME)
                problems.append(_at_key(obj, found, ("metadata", field, key)))
        if field == "annotations":
            size = sum(len(str(k).encode()) + len(str(v).encode()) for k, v in entries.items())
            if size > MAX_ANNOTATIONS_BYTES:
                message = (
                    f"{obj.kind} {clip(obj.name)}: metadata.annotations: Too long: the annotations total {size} bytes, "
                    f"more than the {MAX_ANNOTATIONS_BYTES} the API server accepts"
                )
                problems.append(obj.diag(ERROR, message, "metadata", "annotations", code=INVALID_NAME))
    return problems


def check_inputs(objects: Iterable[Obj], *, mode: ValidationMode = ValidationMode.STRICT) -> InputCheck:
    """Validate every OME object; returns the objects the API server would store, and the findings.

    ``mode`` is kubectl's field validation: an unknown field is an error (``strict``), a warning
    (``warn``) or dropped without a word (``ignore``).
    """
    strict = mode == ValidationMode.STRICT
    kept: list[Obj] = []
    diagnostics: list[Diagnostic] = []
    rejected: dict[tuple[str, str, str], Diagnostic] = {}
    for obj in objects:
        if not obj.is_ome:
            kept.append(obj)
            continue
        issues = obj.schema_issues if obj.schema_issues is not None else crd_schema_issues(obj.body)
        found = (
            [
                issue_diagnostic(obj, issue, strict)
                for issue in issues
                if mode != ValidationMode.IGNORE or not issue.unknown_field
            ]
            + name_problems(obj)
            + key_problems(obj)
        )
        diagnostics.extend(found)
        errors = [d for d in found if d.severity == ERROR and d.code != UNKNOWN_FIELD]
        if errors:
            rejected.setdefault((obj.kind, obj.namespace, obj.name), min(errors))
            continue
        for issue in issues:
            if issue.unknown_field and issue.path:
                _prune(obj.body, issue.path)
        kept.append(obj)
    return InputCheck(kept, diagnostics, rejected)
