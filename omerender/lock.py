"""The lock file: runtime revisions, the snapshot each InferenceService renders from, last good chains.

A revision names a merged runtime spec: the first 10 hex digits of the SHA-256 of its canonical JSON
(keys sorted, no spaces, UTF-8). The lock file (``omerender.lock``, YAML, beside the manifests) is
reviewed in pull requests, so its keys are sorted and every snapshot is written out in full::

    apiVersion: omerender.io/v1alpha1
    kind: RuntimeLock
    inferenceServices:           # namespace/name -> what it renders from
      llama-demo/llama-3-2-3b-instruct: {runtime: ServingRuntime/llama-demo/sglang-llama-3-2-3b,
                                         revision: 0c1d..., chain: [...], sync: live}
    runtimes:                    # every runtime whose chain resolved: its last good chain
      ServingRuntime/llama-demo/sglang-llama-3-2-3b: {chain: [...], revision: 0c1d...}
    revisions:                   # the snapshots pins still need, by revision
      0c1d...: {runtime: ..., chain: [...], spec: {...}}

This module is pure apart from ``read``: text in, data out, and data (plus the previous text, whose
comments survive) in, text out.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omerender.diagnostics import ERROR, Diagnostic
from omerender.loader import Obj

FILENAME = "omerender.lock"
API_VERSION = "omerender.io/v1alpha1"
KIND = "RuntimeLock"
HEADER = (
    "omerender.lock: the runtime revision every InferenceService renders from. Written by `omerender lock`;\n"
    "review it like code. A revision is the first 10 hex digits of sha256 over the canonical JSON of a merged spec."
)
SYNC_MODES = ("live", "snapshot", "revision")


def revision_of(spec: dict[str, Any]) -> str:
    canonical = json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:10]


def runtime_key(runtime: Obj) -> str:
    return "/".join(p for p in (runtime.kind, runtime.namespace, runtime.name) if p)


def isvc_key(isvc: Obj) -> str:
    return f"{isvc.namespace}/{isvc.name}"


@dataclass(frozen=True)
class Revision:
    runtime: str
    chain: tuple[str, ...]
    spec: dict[str, Any]


@dataclass(frozen=True)
class Pin:
    """What one InferenceService renders from."""

    runtime: str
    revision: str
    chain: tuple[str, ...]
    sync: str


@dataclass(frozen=True)
class LastGood:
    chain: tuple[str, ...]
    revision: str


@dataclass
class Lock:
    path: str = FILENAME
    isvcs: dict[str, Pin] = field(default_factory=dict)
    runtimes: dict[str, LastGood] = field(default_factory=dict)
    revisions: dict[str, Revision] = field(default_factory=dict)


def default_path(paths: list[str]) -> str:
    """``omerender.lock`` in the first directory given (or beside the first file)."""
    for given in paths:
        if given == "-":
            continue
        where = Path(given)
        return str((where if where.is_dir() else where.parent) / FILENAME)
    return FILENAME


def read(path: str) -> tuple[Lock | None, str | None, list[Diagnostic]]:
    """The lock at ``path`` (``None`` when there is none), its text, and problems with it."""
    target = Path(path)
    if not target.is_file():
        return None, None, []
    try:
        text = target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, None, [Diagnostic(path, 1, 1, ERROR, f"cannot read lock file: {exc}", "lock-invalid")]
    lock, problems = parse(text, path)
    return lock, text, problems


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    return value


def _chain(value: Any) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def parse(text: str, path: str = FILENAME) -> tuple[Lock | None, list[Diagnostic]]:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    def problem(message: str) -> Diagnostic:
        return Diagnostic(path, 1, 1, ERROR, message, "lock-invalid")

    try:
        data = _plain(YAML(typ="safe").load(text))
    except YAMLError as exc:
        return None, [problem(f"lock file is not valid YAML: {' '.join(str(exc).split())}")]
    if data is None:
        return Lock(path), []
    if not isinstance(data, dict) or data.get("kind") != KIND or data.get("apiVersion") != API_VERSION:
        return None, [problem(f"not an omerender lock file (want apiVersion {API_VERSION}, kind {KIND})")]
    lock, problems = Lock(path), []
    for rev, entry in (data.get("revisions") or {}).items():
        if not isinstance(entry, dict) or not isinstance(entry.get("spec"), dict):
            problems.append(problem(f"revision {rev} has no spec mapping"))
        elif revision_of(entry["spec"]) != rev:
            problems.append(problem(f"revision {rev} does not match its snapshot (sha256 gives {revision_of(entry['spec'])}): edited by hand? Restore it or run `omerender lock`"))
        else:
            lock.revisions[rev] = Revision(str(entry.get("runtime", "")), _chain(entry.get("chain")), entry["spec"])
    for key, entry in (data.get("inferenceServices") or {}).items():
        if not isinstance(entry, dict) or entry.get("revision") not in lock.revisions:
            problems.append(problem(f"InferenceService {key}: revision {entry.get('revision') if isinstance(entry, dict) else None} has no snapshot in revisions"))
            continue
        sync = str(entry.get("sync", "live"))
        lock.isvcs[key] = Pin(str(entry.get("runtime", "")), str(entry["revision"]), _chain(entry.get("chain")), sync if sync in SYNC_MODES else "live")
    for key, entry in (data.get("runtimes") or {}).items():
        if isinstance(entry, dict):
            lock.runtimes[key] = LastGood(_chain(entry.get("chain")), str(entry.get("revision", "")))
    return lock, problems


def updated(
    previous: Lock | None,
    pins: dict[str, tuple[Pin, Revision] | None],
    resolved: dict[str, LastGood],
    broken: set[str],
) -> Lock:
    """The next lock: ``pins`` per InferenceService (``None`` keeps its previous entry), ``resolved``
    runtimes' chains, the previous entries of ``broken`` runtimes, and only the revisions still used."""
    old = previous or Lock()
    lock = Lock(old.path)
    for key in sorted(pins):
        new = pins[key]
        if new is not None:
            lock.isvcs[key] = new[0]
            lock.revisions[new[0].revision] = new[1]
        elif key in old.isvcs:
            pin = old.isvcs[key]
            lock.isvcs[key] = pin
            lock.revisions[pin.revision] = old.revisions[pin.revision]
    for key in sorted(resolved.keys() | (broken & old.runtimes.keys())):
        lock.runtimes[key] = resolved.get(key) or old.runtimes[key]
    return lock


def to_data(lock: Lock) -> dict[str, Any]:
    def spec(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: spec(value[k]) for k in sorted(value)}
        if isinstance(value, list):
            return [spec(v) for v in value]
        return value

    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "inferenceServices": {
            k: {"runtime": p.runtime, "revision": p.revision, "chain": list(p.chain), "sync": p.sync} for k, p in sorted(lock.isvcs.items())
        },
        "runtimes": {k: {"chain": list(r.chain), "revision": r.revision} for k, r in sorted(lock.runtimes.items())},
        "revisions": {
            k: {"runtime": r.runtime, "chain": list(r.chain), "spec": spec(r.spec)} for k, r in sorted(lock.revisions.items())
        },
    }


def _sync_into(old: Any, new: Any) -> Any:
    """``new``, reusing ``old``'s containers (and so their comments) where the keys persist."""
    from ruamel.yaml.comments import CommentedMap

    if isinstance(old, CommentedMap) and isinstance(new, dict):
        for key in [k for k in old if k not in new]:
            del old[key]
        for key, value in new.items():
            old[key] = _sync_into(old[key], value) if key in old else value
            old.move_to_end(key)
        return old
    return old if _plain(old) == new and type(_plain(old)) is type(new) else new


def dump(lock: Lock, previous_text: str | None = None) -> str:
    import yaml
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.representer import RoundTripRepresenter

    resolver = yaml.resolver.Resolver()

    class Representer(RoundTripRepresenter):
        """Quote strings a YAML 1.1 reader (PyYAML, kubectl) would take for something else."""

    def represent_str(rep: RoundTripRepresenter, data: str) -> Any:
        if data and resolver.resolve(yaml.ScalarNode, data, (True, False)) != "tag:yaml.org,2002:str":
            return rep.represent_scalar("tag:yaml.org,2002:str", data, style="'")
        return rep.represent_str(data)

    Representer.add_representer(str, represent_str)
    rt = YAML()
    rt.Representer = Representer
    rt.width = 4096
    rt.indent(mapping=2, sequence=4, offset=2)
    data = to_data(lock)
    root: Any = None
    if previous_text:
        try:
            root = rt.load(previous_text)
        except Exception:  # noqa: BLE001 - an unreadable previous file is simply replaced
            root = None
    if isinstance(root, CommentedMap):
        root = _sync_into(root, data)
    else:
        root = CommentedMap(data)
        root.yaml_set_start_comment(HEADER)
    out = io.StringIO()
    rt.dump(root, out)
    return out.getvalue()


def last_chains(lock: Lock | None, runtimes: list[Obj]) -> dict[int, list[str]]:
    """Per ``id()`` of each runtime the lock knows, the last chain of it that resolved."""
    if lock is None:
        return {}
    return {id(r): list(lock.runtimes[runtime_key(r)].chain) for r in runtimes if runtime_key(r) in lock.runtimes}
