#!/usr/bin/env python3
"""Generate JSON Schemas (draft 2020-12) for the OME kinds from OME's CustomResourceDefinitions.

    python scripts/gen_schemas.py [--crds DIR] [--out DIR ...]

Reads ``ome.io_<plural>.yaml`` for InferenceService, ServingRuntime, ClusterServingRuntime,
BaseModel and ClusterBaseModel and writes ``<kind-lowercase>.json`` into each ``--out`` folder
(default: ``omerender/schemas/``, which the code loads, and the top-level ``schemas/``).

Translation of the CRD's OpenAPI v3 schema:
- descriptions are dropped; ``default``, ``format`` and the ``x-kubernetes-*`` annotations stay
  (validators ignore unknown keywords);
- ``x-kubernetes-int-or-string`` becomes ``anyOf: [integer, string]``;
- every object that does not set ``x-kubernetes-preserve-unknown-fields`` and is not a map gets
  ``additionalProperties: false``: the API server drops such fields, and omerender's schema check
  reports them as unknown fields;
- list-map keys with a default get ``x-omerender-list-map-key-defaults`` on the list, for the
  duplicate-key check;
- what the runtime inheritance release adds (annotations, runtime status, ``spec.runtime``
  fields) is patched in, and ``metadata`` gets an ObjectMeta schema;
- subtrees that repeat (a Container, a Volume, ...) are moved to ``$defs`` to keep files small.

Output is deterministic: sorted keys, one JSON document per file.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CRDS = REPO.parent / "shared" / "ome" / "crds"
DEFAULT_OUT = [REPO / "omerender" / "schemas", REPO / "schemas"]
API_VERSION = "ome.io/v1beta1"
KINDS = {
    "InferenceService": "inferenceservices",
    "ServingRuntime": "servingruntimes",
    "ClusterServingRuntime": "clusterservingruntimes",
    "BaseModel": "basemodels",
    "ClusterBaseModel": "clusterbasemodels",
}
RUNTIME_KINDS = ("ServingRuntime", "ClusterServingRuntime")
INHERITANCE_REASONS = ["Resolved", "ParentNotFound", "InheritanceCycle", "MaxDepthExceeded", "ResolverError"]
MIN_SHARED_SIZE = 300  # bytes of JSON a repeated subtree needs before it moves to $defs

Schema = dict[str, Any]


def _translate(node: Any) -> Any:
    """Drop descriptions, normalise int-or-string, close structural objects."""
    if isinstance(node, list):
        return [_translate(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: Schema = {}
    for key, value in node.items():
        if key == "description":
            continue
        if key in ("properties", "patternProperties"):
            out[key] = {name: _translate(sub) for name, sub in value.items()}
        elif key in ("enum", "default", "required", "example", "x-kubernetes-list-map-keys"):
            out[key] = copy.deepcopy(value)
        else:
            out[key] = _translate(value)
    if out.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out.setdefault("anyOf", [{"type": "integer"}, {"type": "string"}])
    if out.get("type") == "object" and not out.get("x-kubernetes-preserve-unknown-fields"):
        out.setdefault("additionalProperties", False)
    if out.get("x-kubernetes-list-type") == "map":
        item_props = out.get("items", {}).get("properties", {})
        defaults = {
            k: item_props[k]["default"]
            for k in out.get("x-kubernetes-list-map-keys", [])
            if "default" in item_props.get(k, {})
        }
        if defaults:
            out["x-omerender-list-map-key-defaults"] = defaults
    return out


def _string_map(**extra: Any) -> Schema:
    return {"type": "object", "additionalProperties": {"type": "string"}, **extra}


def _object_meta(kind: str) -> Schema:
    annotations = _string_map()
    if kind in RUNTIME_KINDS:
        annotations["properties"] = {
            "ome.io/inherit-from": {"type": "string"},
            "ome.io/runtime-profile": {"type": "string", "enum": ["true", "false"]},
        }
    label_value = {"type": "string", "maxLength": 63, "pattern": "^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$"}
    owner_ref = {
        "type": "object",
        "additionalProperties": False,
        "required": ["apiVersion", "kind", "name", "uid"],
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "name": {"type": "string"},
            "uid": {"type": "string"},
            "controller": {"type": "boolean"},
            "blockOwnerDeletion": {"type": "boolean"},
        },
    }
    string = {"type": "string"}
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["name"],
        "properties": {
            "name": string,
            "generateName": string,
            "namespace": string,
            "selfLink": string,
            "uid": string,
            "resourceVersion": string,
            "generation": {"type": "integer", "format": "int64"},
            "creationTimestamp": {"type": ["string", "null"], "format": "date-time"},
            "deletionTimestamp": {"type": "string", "format": "date-time"},
            "deletionGracePeriodSeconds": {"type": "integer", "format": "int64"},
            "labels": _string_map(additionalProperties=label_value),
            "annotations": annotations,
            "ownerReferences": {"type": "array", "items": owner_ref},
            "finalizers": {"type": "array", "items": string, "x-kubernetes-list-type": "set"},
            "managedFields": {"type": "array", "items": {"type": "object"}},
        },
    }


def _runtime_status() -> Schema:
    condition = {
        "type": "object",
        "additionalProperties": False,
        "required": ["type", "status"],
        "properties": {
            "type": {"type": "string"},
            "status": {"type": "string", "enum": ["True", "False", "Unknown"]},
            "severity": {"type": "string"},
            "reason": {"type": "string"},
            "message": {"type": "string"},
            "lastTransitionTime": {"type": "string", "format": "date-time"},
            "observedGeneration": {"type": "integer", "format": "int64"},
        },
        "if": {"required": ["type"], "properties": {"type": {"const": "InheritanceReady"}}},
        "then": {"properties": {"reason": {"enum": INHERITANCE_REASONS}}},
    }
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "inheritanceChain": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "atomic"},
            "conditions": {
                "type": "array",
                "items": condition,
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["type"],
            },
        },
    }


def _patch(kind: str, schema: Schema) -> Schema:
    props = schema["properties"]
    props["apiVersion"] = {"type": "string", "const": API_VERSION}
    props["kind"] = {"type": "string", "const": kind}
    props["metadata"] = _object_meta(kind)
    schema["required"] = ["apiVersion", "kind", "metadata"]
    if kind in RUNTIME_KINDS:
        props["status"] = _runtime_status()
    if kind == "InferenceService":
        runtime = props["spec"]["properties"]["runtime"]["properties"]
        runtime["autoSync"] = {"type": "boolean", "default": True}
        runtime["revision"] = {"type": "string"}
    return schema


def _canon(node: Any) -> str:
    return json.dumps(node, sort_keys=True, separators=(",", ":"))


def _children(node: Schema) -> list[tuple[str, str, Any]]:
    """(key, name hint, child schema) for every subschema directly below ``node``."""
    out: list[tuple[str, str, Any]] = []
    for key in sorted(node):
        value = node[key]
        if key in ("properties", "patternProperties", "$defs"):
            out.extend((f"{key}\0{name}", name, value[name]) for name in sorted(value))
        elif key in ("items", "additionalProperties", "not", "if", "then", "else") and isinstance(value, dict):
            out.append((key, "item" if key == "items" else "value", value))
        elif key in ("anyOf", "oneOf", "allOf"):
            out.extend((f"{key}\0{i}", key, sub) for i, sub in enumerate(value))
    return out


def _set_child(node: Schema, key: str, value: Any) -> None:
    if "\0" in key:
        outer, inner = key.split("\0")
        if outer in ("anyOf", "oneOf", "allOf"):
            node[outer][int(inner)] = value
        else:
            node[outer][inner] = value
    else:
        node[key] = value


def _share(root: Schema) -> Schema:
    """Move subtrees that occur more than once, and are big enough, into ``$defs``."""
    counts: dict[str, int] = {}

    def count(node: Schema) -> None:
        for _, _, child in _children(node):
            if isinstance(child, dict):
                text = _canon(child)
                if len(text) >= MIN_SHARED_SIZE:
                    counts[text] = counts.get(text, 0) + 1
                count(child)

    count(root)
    defs: dict[str, Schema] = {}
    names: dict[str, str] = {}

    def replace(node: Schema, hint_path: str) -> None:
        for key, hint, child in _children(node):
            if not isinstance(child, dict):
                continue
            text = _canon(child)
            if counts.get(text, 0) < 2:
                replace(child, hint)
                continue
            if text not in names:
                base = hint if hint not in ("item", "value") else f"{hint_path}-{hint}"
                name, n = base, 1
                while name in defs:
                    n += 1
                    name = f"{base}{n}"
                names[text] = name
                body = json.loads(text)
                defs[name] = body
                replace(body, name)
            _set_child(node, key, {"$ref": f"#/$defs/{names[text]}"})

    replace(root, "root")
    _inline_single_use(root, defs)
    if defs:
        root["$defs"] = defs
    return root


def _inline_single_use(root: Schema, defs: dict[str, Schema]) -> None:
    """A definition that ends up referenced once is put back where it is used."""
    uses: dict[str, int] = {}

    def tally(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                uses[ref[8:]] = uses.get(ref[8:], 0) + 1
            for value in node.values():
                tally(value)
        elif isinstance(node, list):
            for value in node:
                tally(value)

    tally(root)
    for body in defs.values():
        tally(body)
    single = {name for name in defs if uses.get(name, 0) == 1}

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if len(node) == 1 and isinstance(ref, str) and ref[8:] in single:
                return inline(defs[ref[8:]])
            return {k: inline(v) for k, v in node.items()}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    for name in sorted(defs):
        if name not in single:
            defs[name] = inline(defs[name])
    root.update(inline(root))
    for name in single:
        del defs[name]


def _load_crd(path: Path) -> Schema:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with path.open(encoding="utf-8") as fh:
        crd = yaml.load(fh, Loader=loader)
    for version in crd["spec"]["versions"]:
        if version["name"] == API_VERSION.split("/")[1]:
            return version["schema"]["openAPIV3Schema"]  # type: ignore[no-any-return]
    raise SystemExit(f"{path}: no {API_VERSION} version")


def build(kind: str, crds: Path, share: bool = True) -> Schema:
    plural = KINDS[kind]
    source = crds / f"ome.io_{plural}.yaml"
    schema = _patch(kind, _translate(_load_crd(source)))
    if share:
        schema = _share(schema)
    lower = kind.lower()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://github.com/omerender/omerender/schemas/{lower}.json",  # = omerender.settings.SCHEMA_ID_BASE
        "$comment": f"Generated by scripts/gen_schemas.py from OME's {source.name}; do not edit.",
        "title": f"{kind} ({API_VERSION})",
        **schema,
    }


def render(schema: Schema) -> bytes:
    return (json.dumps(schema, sort_keys=True, indent=1, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


def generate(crds: Path) -> dict[str, bytes]:
    """File name -> contents, for every kind."""
    return {f"{kind.lower()}.json": render(build(kind, crds)) for kind in KINDS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crds", type=Path, default=DEFAULT_CRDS, help="folder with OME's CRD files")
    parser.add_argument("--out", type=Path, action="append", help="output folder (repeatable)")
    args = parser.parse_args(argv)
    files = generate(args.crds)
    for out in args.out or DEFAULT_OUT:
        out.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            (out / name).write_bytes(data)
            print(f"{out / name}: {len(data)} bytes ({hashlib.sha256(data).hexdigest()[:12]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
