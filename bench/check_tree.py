#!/usr/bin/env python3
"""Check a tree written by gen_tree.py, independently of omerender.

    python bench/check_tree.py TREE [--expect-runtimes N] [--expect-isvcs N] ...

It reads every ``*.yaml``/``*.yml`` file, resolves each runtime's inheritance chain with OME's
lookup rules, merges the chain as runtime-inheritance.txt describes ("What merges"), and checks
that every InferenceService names an enabled runtime whose merged spec supports its model. It
prints the counts it found and exits 1 on the first problems (up to 20 are listed).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

INHERIT_FROM = "ome.io/inherit-from"
RUNTIME_PROFILE = "ome.io/runtime-profile"
MAX_CHAIN = 5
MERGE_KEYS = {
    "env": "name",
    "volumes": "name",
    "imagePullSecrets": "name",
    "containers": "name",
    "initContainers": "name",
    "ports": "containerPort",
    "volumeMounts": "mountPath",
    "topologySpreadConstraints": "topologyKey",
}
PROBE_HANDLERS = ("httpGet", "tcpSocket", "exec", "grpc")
VOLUME_SOURCES = ("emptyDir", "configMap", "secret", "persistentVolumeClaim", "hostPath")

Doc = dict[str, Any]
Key = tuple[str, str | None, str]  # kind, namespace, name


def yaml_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())


def size_value(size: str) -> float:
    for suffix, factor in (("T", 1e12), ("B", 1e9), ("M", 1e6)):
        if size.endswith(suffix):
            return float(size[: -len(suffix)]) * factor
    return float(size)


def is_unset(value: Any) -> bool:
    return value is None or value == [] or value == {} or value == ""


def merge(parent: Any, child: Any, key: str = "") -> Any:
    """Lay ``child`` over ``parent`` by the rules of "What merges"."""
    if is_unset(child):
        return parent
    if isinstance(parent, dict) and isinstance(child, dict):
        out = dict(parent)
        for k, v in child.items():
            out[k] = merge(parent.get(k), v, k) if k in parent else v
        return out
    if key in MERGE_KEYS and isinstance(parent, list) and isinstance(child, list):
        item_key = MERGE_KEYS[key]
        out_list = list(parent)
        index = {item.get(item_key): i for i, item in enumerate(out_list)}
        for item in child:
            i = index.get(item.get(item_key))
            if i is None:
                index[item.get(item_key)] = len(out_list)
                out_list.append(item)
            else:
                out_list[i] = merge(out_list[i], item)
        return out_list
    return child


class Checker:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.problems: list[str] = []
        self.objects: dict[Key, Doc] = {}
        self.kinds: Counter[str] = Counter()
        self.chain_lengths: Counter[int] = Counter()
        self.files = 0
        self.documents = 0
        self.bytes = 0
        self.merged: dict[Key, Doc] = {}

    def problem(self, text: str) -> None:
        self.problems.append(text)

    def load(self) -> None:
        for path in yaml_files(self.root):
            data = path.read_bytes()
            self.files += 1
            self.bytes += len(data)
            for doc in yaml.load_all(data, Loader=yaml.CSafeLoader):
                if doc is None:
                    continue
                self.documents += 1
                rel = path.relative_to(self.root)
                if doc.get("apiVersion") != "ome.io/v1beta1":
                    self.problem(f"{rel}: apiVersion {doc.get('apiVersion')!r}")
                kind = doc["kind"]
                md = doc["metadata"]
                namespaced = kind in ("ServingRuntime", "BaseModel", "InferenceService")
                if namespaced != ("namespace" in md):
                    self.problem(f"{rel}: {kind} {md['name']}: namespace {'missing' if namespaced else 'set'}")
                key: Key = (kind, md.get("namespace"), md["name"])
                if key in self.objects:
                    self.problem(f"{rel}: duplicate {key}")
                self.objects[key] = doc
                self.kinds[kind] += 1

    def chain(self, key: Key) -> list[Doc] | None:
        """The runtime's chain, root first, or None after reporting why it does not resolve."""
        chain = [self.objects[key]]
        names = [key[2]]
        kind, namespace, _ = key
        while True:
            parent = chain[-1]["metadata"].get("annotations", {}).get(INHERIT_FROM)
            if not parent:
                return chain[::-1]
            if parent in names:
                self.problem(f"{key}: inheritance cycle {names + [parent]}")
                return None
            found = self.objects.get(("ServingRuntime", namespace, parent)) if kind == "ServingRuntime" else None
            if found is None:
                found = self.objects.get(("ClusterServingRuntime", None, parent))
                kind, namespace = "ClusterServingRuntime", None
            if found is None:
                self.problem(f"{key}: parent {parent!r} not found (chain so far: {names})")
                return None
            chain.append(found)
            names.append(parent)
            if len(chain) > MAX_CHAIN:
                self.problem(f"{key}: chain exceeds max depth {MAX_CHAIN}: {names}")
                return None

    def check_runtimes(self) -> None:
        for key, doc in self.objects.items():
            if key[0] not in ("ServingRuntime", "ClusterServingRuntime"):
                continue
            annotations = doc["metadata"].get("annotations", {})
            if annotations.get(RUNTIME_PROFILE) == "true" and doc["spec"].get("disabled") is not True:
                self.problem(f"{key}: profile without disabled: true")
            chain = self.chain(key)
            if chain is None:
                continue
            spec: Doc = {}
            for runtime in chain:
                spec = merge(spec, runtime["spec"])
            self.merged[key] = spec
            if spec.get("disabled") is False:
                self.chain_lengths[len(chain)] += 1
                self.check_merged(key, spec)

    def check_merged(self, key: Key, spec: Doc) -> None:
        engine = spec.get("engineConfig", {})
        runner = engine.get("runner", {})
        if not runner.get("name") or not runner.get("image") or not (runner.get("command") or runner.get("args")):
            self.problem(f"{key}: merged runner lacks name, image or command")
        volumes = {v["name"] for v in engine.get("volumes", [])}
        for v in engine.get("volumes", []):
            if sum(s in v for s in VOLUME_SOURCES) != 1:
                self.problem(f"{key}: volume {v['name']} has {sum(s in v for s in VOLUME_SOURCES)} sources")
        for m in runner.get("volumeMounts", []):
            if m["name"] not in volumes:
                self.problem(f"{key}: volumeMount {m['mountPath']} names missing volume {m['name']}")
        for probe in ("readinessProbe", "startupProbe", "livenessProbe"):
            if probe in runner and sum(h in runner[probe] for h in PROBE_HANDLERS) != 1:
                self.problem(f"{key}: {probe} needs exactly one handler")
        resources = runner.get("resources", {})
        requests, limits = resources.get("requests", {}), resources.get("limits", {})
        for name, value in requests.items():
            if limits.get(name) != value:
                self.problem(f"{key}: request {name}={value} but limit {limits.get(name)}")
        size_range = spec.get("modelSizeRange", {})
        if not spec.get("supportedModelFormats") or "min" not in size_range or "max" not in size_range:
            self.problem(f"{key}: enabled runtime without supportedModelFormats or both size bounds")

    def check_isvcs(self) -> None:
        for key, doc in self.objects.items():
            if key[0] != "InferenceService":
                continue
            _, ns, name = key
            spec = doc["spec"]
            rt_name = spec["runtime"]["name"]
            rt_key: Key = ("ServingRuntime", ns, rt_name)
            if rt_key not in self.objects:
                rt_key = ("ClusterServingRuntime", None, rt_name)
            if rt_key not in self.objects:
                self.problem(f"{key}: runtime {rt_name} not found")
                continue
            model_ref = spec["model"]
            model_key: Key = (
                ("BaseModel", ns, model_ref["name"])
                if model_ref.get("kind") == "BaseModel"
                else ("ClusterBaseModel", None, model_ref["name"])
            )
            model = self.objects.get(model_key)
            if model is None:
                self.problem(f"{key}: model {model_key} not found")
                continue
            rt = self.merged.get(rt_key)
            if rt is None:
                continue  # its chain problem is already reported
            if rt.get("disabled") is not False:
                self.problem(f"{key}: runtime {rt_name} is disabled")
            if not any(supports(entry, model["spec"]) for entry in rt.get("supportedModelFormats", [])):
                self.problem(f"{key}: runtime {rt_name} does not support the format of {model_key}")
            lo, hi = (size_value(rt["modelSizeRange"][b]) for b in ("min", "max"))
            if not lo <= size_value(model["spec"]["modelParameterSize"]) <= hi:
                self.problem(f"{key}: model size outside {rt['modelSizeRange']} of {rt_name}")
            engine = spec.get("engine", {})
            if engine.get("minReplicas", 1) > engine.get("maxReplicas", 1 << 30):
                self.problem(f"{key}: minReplicas > maxReplicas")


def supports(entry: Doc, model: Doc) -> bool:
    return (
        entry["modelFormat"] == model["modelFormat"]
        and entry["modelFramework"] == model["modelFramework"]
        and entry.get("modelArchitecture") == model["modelArchitecture"]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path)
    for kind in ("runtimes", "isvcs", "cluster-models", "models"):
        parser.add_argument(f"--expect-{kind}", type=int, help=f"fail unless the tree holds this many {kind}")
    args = parser.parse_args(argv)
    checker = Checker(args.tree)
    checker.load()
    checker.check_runtimes()
    checker.check_isvcs()
    k = checker.kinds
    found = {
        "runtimes": k["ClusterServingRuntime"] + k["ServingRuntime"],
        "isvcs": k["InferenceService"],
        "cluster_models": k["ClusterBaseModel"],
        "models": k["BaseModel"],
    }
    for name, count in found.items():
        expected = getattr(args, f"expect_{name}")
        if expected is not None and expected != count:
            checker.problem(f"expected {expected} {name}, found {count}")
    print(
        f"{checker.files:,} files, {checker.documents:,} documents, {checker.bytes:,} bytes; "
        + ", ".join(f"{kind} {n:,}" for kind, n in sorted(k.items()))
    )
    print(
        "enabled runtimes by chain length: " + ", ".join(f"{n}: {c}" for n, c in sorted(checker.chain_lengths.items()))
    )
    for text in checker.problems[:20]:
        print(f"problem: {text}", file=sys.stderr)
    if checker.problems:
        print(f"{len(checker.problems)} problems", file=sys.stderr)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
