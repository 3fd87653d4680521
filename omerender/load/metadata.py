"""Model metadata overlay: what OME's model agent fills in a cluster, supplied offline from a file.

After downloading a model, OME's basemodel controller fills missing ``modelFormat``,
``modelFramework``, ``modelArchitecture``, ``quantization`` and ``modelParameterSize`` from the
model's config (ome-rendering §1.5, ome-selection §1.2). Shipped ClusterBaseModels carry none of
them, so without them no runtime can be matched offline. The overlay file::

    models:
      llama-3-2-1b-instruct:            # a ClusterBaseModel, or a BaseModel of that name in any namespace
        modelFormat: {name: safetensors, version: "1.0.0"}
        modelFramework: {name: transformers, version: "4.45.0.dev0"}
        modelArchitecture: LlamaForCausalLM
        modelParameterSize: 1.24B
      team-a/my-model:                  # only the BaseModel my-model in namespace team-a
        quantization: fp8

Each field is applied only to models that lack it; a model's own value wins.

``modelConfiguration`` takes the facts the serving checks read, in the shape of the JSON OME's model agent
writes to ``spec.modelConfiguration`` (``pkg/modelagent/config_parser.go:343-370`` at 17b77eda) where the agent
writes the fact, and with config.json's names where it does not (heads, KV heads, the quantization method)::

      llama-3-1-405b-instruct-fp8:
        modelConfiguration:
          num_attention_heads: 128
          num_key_value_heads: 8
          parameter_count: 405B           # as the agent formats it, or an integer
          context_length: 131072
          torch_dtype: bfloat16
          quant_method: fbgemm_fp8

Each key is applied only where the model's own ``spec.modelConfiguration`` lacks it.

A file may start from a shipped overlay, adding or changing facts of its models (``extends`` takes only a shipped
name, never a path, so a repository's file reads nothing outside the package)::

    extends: ome:v0.1.5
    models:
      ling-plus:
        modelConfiguration: {parameter_count: 290B, torch_dtype: bfloat16}

The file's entries are applied first, then the shipped ones fill what is still missing. Which values were filled,
and from where, is kept on the object (``Obj.overlaid``) so that ``omerender.load.modelfacts`` can tell a model's
own value from the overlay's.
"""

from __future__ import annotations

from typing import Any

import yaml

from omerender import catalogue, codes
from omerender.data import copy
from omerender.diagnostics import ERROR, INFO, WARNING, Diagnostic
from omerender.load import modelfacts
from omerender.load.bounded import Budget, ReadProblem, read_text
from omerender.load.obj import Obj
from omerender.load.yamlio import ParsedDocument, parse_documents, position, positions
from omerender.names import clip
from omerender.ome import BASE_MODEL, MODEL_KINDS

FIELDS = ("modelFormat", "modelFramework", "modelArchitecture", "quantization", "modelParameterSize")
CONFIGURATION = "modelConfiguration"
EXTENDS = "extends"
SELECTOR_FIELDS = ("name", "version", "operator", "weight")
CODE = codes.MODEL_METADATA


class _Reader:
    def __init__(self, path: str, doc: ParsedDocument) -> None:
        self.path = path
        self.node = doc.node
        self.problems: list[Diagnostic] = []

    def error(self, message: str, *keys: Any) -> None:
        line, col = position(self.node, keys)
        self.problems.append(Diagnostic(self.path, line, col, ERROR, message, CODE))

    def selector(self, name: str, field: str, value: Any) -> bool:
        if not isinstance(value, dict):
            self.error(f"{name}: {field} must be a mapping with name and version", "models", name, field)
            return False
        ok = True
        for key, item in value.items():
            if key not in SELECTOR_FIELDS:
                self.error(
                    f"{name}: {field}.{key} is not a field of {field} (allowed: {', '.join(SELECTOR_FIELDS)})",
                    "models",
                    name,
                    field,
                    key,
                )
                ok = False
            elif key == "weight" and (not isinstance(item, int) or isinstance(item, bool)):
                self.error(f"{name}: {field}.weight must be an integer", "models", name, field, key)
                ok = False
            elif key != "weight" and not isinstance(item, str):
                self.error(
                    f'{name}: {field}.{key} must be a string (quote versions such as "1.0")', "models", name, field, key
                )
                ok = False
        if not value.get("name"):
            self.error(f"{name}: {field}.name is required", "models", name, field)
            ok = False
        return ok

    def configuration(self, name: str, value: Any) -> dict[str, Any]:
        """The valid keys of an entry's ``modelConfiguration``; an error at each key that is not."""
        if not isinstance(value, dict):
            self.error(f"{name}: {CONFIGURATION} must be a mapping of facts", "models", name, CONFIGURATION)
            return {}
        good: dict[str, Any] = {}
        for key, item in value.items():
            problem = modelfacts.configuration_problem(key, item)
            if problem is None:
                good[key] = item
            else:
                self.error(f"{name}: {CONFIGURATION}.{problem}", "models", name, CONFIGURATION, key)
        return good

    def entry(self, name: Any, fields: Any) -> dict[str, Any] | None:
        if not isinstance(name, str) or not isinstance(fields, dict):
            self.error(f"models.{name}: each entry maps a model name to a mapping of fields", "models", name)
            return None
        good: dict[str, Any] = {}
        for field, value in fields.items():
            if field == CONFIGURATION:
                found = self.configuration(name, value)
                if found:
                    good[field] = found
            elif field not in FIELDS:
                allowed = ", ".join((*FIELDS, CONFIGURATION))
                self.error(
                    f"{name}: {field} is not a field the model agent fills (allowed: {allowed})",
                    "models",
                    name,
                    field,
                )
            elif field in ("modelFormat", "modelFramework"):
                if self.selector(name, field, value):
                    good[field] = value
            elif not isinstance(value, str) or not value:
                self.error(f"{name}: {field} must be a non-empty string (quote numbers)", "models", name, field)
            else:
                good[field] = value
        return good


Entries = dict[str, tuple[dict[str, Any], dict[str, tuple[int, int]]]]  # key -> (fields, position of each field)


def read_overlay(path: str, budget: Budget | None = None) -> tuple[Entries, list[Diagnostic], str | None]:
    """Entries by key (``name`` or ``namespace/name``) with the position of the entry (``""``) and of each field
    (``modelConfiguration`` keys as ``modelConfiguration.KEY``), the problems found, and the shipped overlay the
    file ``extends`` (None when it names none).
    ``path`` is a file, or the name of an overlay shipped with omerender (``ome:v0.1.5``)."""
    readable = path
    if catalogue.is_name(path):
        shipped = catalogue.path_of(path)
        if shipped is None:
            message = f"no model metadata ships as {clip(path)!r}; shipped: {', '.join(catalogue.names())}"
            return _refused(clip(path), 0, 0, message)
        readable = shipped
    try:
        text = read_text(readable, budget or Budget(), "model metadata file")
    except ReadProblem as problem:
        return _refused(path, problem.line, problem.col, problem.message)
    try:
        docs = list(parse_documents(text))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        return _refused(path, line, col, f"invalid YAML in model metadata file: {getattr(exc, 'problem', exc)}")
    if len(docs) != 1 or not isinstance(docs[0].data, dict) or not isinstance(docs[0].data.get("models"), dict):
        return _refused(path, 1, 1, "model metadata file must be one YAML document with a 'models' mapping")
    reader = _Reader(path, docs[0])
    for key in docs[0].data:
        if key not in ("models", EXTENDS):
            reader.error(f"unknown top-level key {clip(repr(key))} (only 'models' and '{EXTENDS}')", key)
    extends = _extends(reader, docs[0].data.get(EXTENDS), catalogue.is_name(path))
    wanted: dict[str, tuple[dict[str, Any], list[tuple[str, tuple[Any, ...]]]]] = {}
    for name, fields in docs[0].data["models"].items():
        good = reader.entry(name, fields)
        if good is not None:
            paths: list[tuple[str, tuple[Any, ...]]] = [("", ("models", name))]
            for field, value in good.items():
                paths.append((field, ("models", name, field)))
                if field == CONFIGURATION:
                    paths += [(f"{field}.{key}", ("models", name, field, key)) for key in value]
            wanted[name] = (good, paths)
    located = iter(positions(docs[0].node, [path for _, paths in wanted.values() for _, path in paths]))
    entries: Entries = {
        name: (good, {label: next(located) for label, _ in paths}) for name, (good, paths) in wanted.items()
    }
    return entries, reader.problems, extends


def _refused(path: str, line: int, col: int, message: str) -> tuple[Entries, list[Diagnostic], str | None]:
    return {}, [Diagnostic(path, line, col, ERROR, message, CODE)], None


def _extends(reader: _Reader, value: Any, shipped: bool) -> str | None:
    """The shipped overlay named by ``extends`` (only a shipped name: a repository's file reads nothing else)."""
    if value is None:
        return None
    if not shipped and isinstance(value, str) and catalogue.path_of(value) is not None:
        return value
    names = ", ".join(catalogue.names())
    if shipped:
        reader.error(f"a shipped overlay extends nothing, not {clip(repr(value))}", EXTENDS)
    else:
        reader.error(f"{EXTENDS} names an overlay shipped with omerender ({names}), not {clip(repr(value))}", EXTENDS)
    return None


def apply_overlay(path: str, objects: list[Obj], budget: Budget | None = None) -> list[Diagnostic]:
    """Fill missing model fields in ``objects`` (in place) from the overlay at ``path``, then from the shipped
    overlay it ``extends``: a field or fact the file gives wins over the shipped one."""
    budget = budget or Budget()
    entries, problems, extends = read_overlay(path, budget)
    problems = _apply(path, entries, problems, objects)
    if extends is not None:
        shipped, more, _ = read_overlay(extends, budget)
        problems += _apply(extends, shipped, more, objects)
    return problems


def _apply(path: str, entries: Entries, problems: list[Diagnostic], objects: list[Obj]) -> list[Diagnostic]:
    used: set[str] = set()
    for obj in objects:
        if not obj.is_ome or obj.kind not in MODEL_KINDS:
            continue
        keys = [f"{obj.namespace}/{obj.name}", obj.name] if obj.kind == BASE_MODEL else [obj.name]
        key = next((k for k in keys if k in entries), None)
        if key is None:
            continue
        used.add(key)
        obj.schema_issues = None  # checked as loaded: the body changes now
        if not isinstance(obj.body.get("spec"), dict):
            obj.body["spec"] = {}
        spec = obj.body["spec"]
        fields, where = entries[key]
        earlier = obj.overlaid or {}  # filled by the file that extends this overlay: no note where it differs
        filled: dict[str, tuple[str, int, int]] = {}
        for field, value in fields.items():
            if field == CONFIGURATION:
                problems.extend(_fill_configuration(path, obj, spec, value, where, filled, earlier))
            elif spec.get(field) is None:
                spec[field] = copy(value)
                filled[field] = (path, *where[field])
            elif spec[field] != value and field not in earlier:
                message = (
                    f"{obj.kind} {obj.name} sets {field} itself ({spec[field]!r}); the overlay's {value!r} is not used"
                )
                problems.append(Diagnostic(path, *where[""], INFO, message, CODE))
        obj.overlaid = {**earlier, **filled} or None
    shipped = catalogue.is_name(path)  # a catalogue's entries for models not vendored are expected
    for key, (_, where) in entries.items():
        line, col = where[""]
        if key not in used and not shipped:
            severity = WARNING if "/" in key else INFO
            problems.append(
                Diagnostic(
                    path,
                    line,
                    col,
                    severity,
                    f"no ClusterBaseModel or BaseModel {key} in the input; entry not used",
                    CODE,
                )
            )
    return problems


def _fill_configuration(
    path: str,
    obj: Obj,
    spec: dict[str, Any],
    facts: dict[str, Any],
    where: dict[str, tuple[int, int]],
    filled: dict[str, tuple[str, int, int]],
    earlier: dict[str, tuple[str, int, int]],
) -> list[Diagnostic]:
    """The overlay's ``modelConfiguration`` keys the model's own lacks, filled in (key by key: the model's own
    value wins); notes where the model's own differs or is not a mapping."""
    own = spec.get(CONFIGURATION)
    line, col = where[CONFIGURATION]
    if own is None:
        own = spec[CONFIGURATION] = {}
    if not isinstance(own, dict):
        message = f"{obj.kind} {obj.name} sets {CONFIGURATION} to a non-mapping; the overlay's facts are not used"
        return [Diagnostic(path, line, col, INFO, message, CODE)]
    notes: list[Diagnostic] = []
    for key, value in facts.items():
        if own.get(key) is None:
            own[key] = copy(value)
            filled[f"{CONFIGURATION}.{key}"] = (path, *where[f"{CONFIGURATION}.{key}"])
        elif own[key] != value and f"{CONFIGURATION}.{key}" not in earlier:
            message = (
                f"{obj.kind} {obj.name} sets {CONFIGURATION}.{key} itself ({clip(repr(own[key]))}); "
                f"the overlay's {clip(repr(value))} is not used"
            )
            notes.append(Diagnostic(path, *where[f"{CONFIGURATION}.{key}"], INFO, message, CODE))
    return notes
