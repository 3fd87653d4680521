#!/usr/bin/env python3
"""Generate the trimmed Kubernetes schemas omerender checks rendered objects with, one file per minor release.

    pip install -e '.[generate]'     # kubernetes-validate, a generation-time dependency only
    python scripts/gen_kube_schemas.py [--source DIR] [--out DIR]

Reads the JSON Schemas that kubernetes-validate ships (``kubernetes-json-schema/v1.NN.0-local/``, made
from Kubernetes' OpenAPI documents, Apache-2.0) and writes ``v1.NN.json`` into ``--out`` (default:
``omerender/schemas/kubernetes/``, which ``omerender.verify.kube_schema`` loads). Each file holds:

- ``kinds``: the schema of every kind omerender renders (:data:`KINDS`), under kubernetes-validate's
  own file name (``deployment-apps-v1.json``);
- ``definitions``: kubernetes-validate's ``_definitions.json`` (its ``$id`` and ``$schema`` kept), with only
  the definitions those kinds reach, and those the schemas omerender ships itself refer to (the Knative
  Service's ``PodSpec`` and ``ObjectMeta``), followed through every ``$ref``.

Descriptions are dropped (validation never reads them; a property *named* ``description`` stays); every
other keyword is kept as it is, in its order. Output is deterministic: compact JSON, one document per
file, keys in the source's order.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "omerender" / "schemas" / "kubernetes"
OWN_SCHEMAS = REPO / "omerender" / "schemas"
KINDS = (  # (kind, apiVersion) of every object omerender renders that Kubernetes has a schema for
    ("ConfigMap", "v1"),
    ("Deployment", "apps/v1"),
    ("HorizontalPodAutoscaler", "autoscaling/v2"),
    ("Ingress", "networking.k8s.io/v1"),
    ("PodDisruptionBudget", "policy/v1"),
    ("Role", "rbac.authorization.k8s.io/v1"),
    ("RoleBinding", "rbac.authorization.k8s.io/v1"),
    ("Service", "v1"),
    ("ServiceAccount", "v1"),
)
_FOLDER = re.compile(r"v(\d+\.\d+)\.0-local")
_DEFINITION_REF = re.compile(r"(?:.*_definitions\.json)?#/\$defs/(?P<name>.+)")  # in kubernetes-validate's files
_EXTERNAL_REF = re.compile(r".*_definitions\.json#/\$defs/(?P<name>.+)")  # in omerender's own schemas
_MAPS = ("properties", "patternProperties", "$defs", "definitions")  # keys below these are names, not keywords

Schema = dict[str, Any]


def schema_name(kind: str, api_version: str) -> str:
    """kubernetes-validate's file name for a kind: ``deployment-apps-v1.json``, ``role-rbac-v1.json``."""
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    return f"{kind.lower()}-{group_version}.json"


def strip(node: Any, names: bool = False) -> Any:
    """``node`` without ``description`` keywords; in a map of names (``properties``) every name stays."""
    if isinstance(node, list):
        return [strip(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {
        key: strip(value, names=key in _MAPS and not names)
        for key, value in node.items()
        if names or key != "description"
    }


def refs(node: Any, pattern: re.Pattern[str] = _DEFINITION_REF) -> set[str]:
    """Names of the definitions ``node`` refers to (its ``$ref`` values that match ``pattern``)."""
    found: set[str] = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            ref = item.get("$ref")
            if isinstance(ref, str) and (m := pattern.fullmatch(ref)):
                found.add(m.group("name"))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def default_source() -> Path:
    spec = importlib.util.find_spec("kubernetes_validate")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("kubernetes-validate is not installed: pip install -e '.[generate]', or pass --source")
    return Path(next(iter(spec.submodule_search_locations))) / "kubernetes-json-schema"


def _own_refs() -> set[str]:
    """Definitions the schemas shipped beside (the Knative Service) refer to."""
    found: set[str] = set()
    for path in sorted(OWN_SCHEMAS.glob("knative-*.json")):
        found |= refs(json.loads(path.read_text(encoding="utf-8")), _EXTERNAL_REF)
    return found


def build(folder: Path, extra_refs: set[str]) -> Schema:
    """One release's file: the kinds' schemas and the definitions they reach."""
    kinds = {}
    for kind, api_version in KINDS:
        name = schema_name(kind, api_version)
        kinds[name] = strip(json.loads((folder / name).read_text(encoding="utf-8")))
    source = json.loads((folder / "_definitions.json").read_text(encoding="utf-8"))
    every = source["$defs"]
    wanted: set[str] = set()
    pending = set(extra_refs).union(*(refs(schema) for schema in kinds.values()))
    while pending:
        name = pending.pop()
        if name in wanted:
            continue
        if name not in every:
            raise SystemExit(f"{folder}: no definition {name!r}")
        wanted.add(name)
        pending |= refs(every[name]) - wanted
    definitions = {key: value for key, value in source.items() if key != "$defs"}
    definitions["$defs"] = {name: strip(every[name]) for name in every if name in wanted}
    return {
        "$comment": (
            f"Generated by scripts/gen_kube_schemas.py from kubernetes-validate's {folder.name} schemas "
            "(Kubernetes OpenAPI, Apache-2.0); do not edit."
        ),
        "definitions": definitions,
        "kinds": kinds,
    }


def render(bundle: Schema) -> bytes:
    return (json.dumps(bundle, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


def generate(source: Path) -> dict[str, bytes]:
    """File name -> contents, for every release in ``source``."""
    extra = _own_refs()
    out = {}
    for folder in sorted(source.iterdir()):
        m = _FOLDER.fullmatch(folder.name)
        if m and folder.is_dir():
            out[f"v{m.group(1)}.json"] = render(build(folder, extra))
    if not out:
        raise SystemExit(f"{source}: no v1.NN.0-local folders")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--source", type=Path, help="kubernetes-validate's kubernetes-json-schema folder")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    args = parser.parse_args(argv)
    files = generate(args.source or default_source())
    args.out.mkdir(parents=True, exist_ok=True)
    for stale in args.out.glob("v*.json"):
        if stale.name not in files:
            stale.unlink()
    for name, data in files.items():
        (args.out / name).write_bytes(data)
        print(f"{args.out / name}: {len(data)} bytes ({hashlib.sha256(data).hexdigest()[:12]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
