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

import dataclasses
import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from omerender import codes, roundtrip
from omerender.constants import STDIN, TOOL_API_VERSION, SyncMode
from omerender.diagnostics import ERROR, WARNING, Diagnostic, json_path
from omerender.load.bounded import Budget, ReadProblem, read_text
from omerender.load.obj import Obj
from omerender.load.yamlio import parse_documents
from omerender.paths import is_within
from omerender.resolve.index import runtime_key

FILENAME = "omerender.lock"
KIND = "RuntimeLock"
HEADER = (
    "omerender.lock: the runtime revision every InferenceService renders from. Written by `omerender lock`;\n"
    "review it like code. A revision is the first 10 hex digits of sha256 over the canonical JSON of a merged spec."
)
SYNC_MODES = tuple(SyncMode)


def revision_of(spec: dict[str, Any]) -> str:
    canonical = json.dumps(spec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:10]


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
    sync: SyncMode


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
    unusable: dict[str, str] = field(default_factory=dict)  # revision -> why its snapshot cannot be used
    recoverable: dict[Diagnostic, Diagnostic] = field(
        default_factory=dict, compare=False, repr=False
    )  # error -> what `lock` reports
    locate: Callable[..., tuple[int, int]] = field(default=lambda *keys: (1, 1), compare=False, repr=False)

    def where(self, *keys: str) -> tuple[int, int]:
        """Line and column of the deepest of ``keys`` (a path of mapping keys) found in the lock's text."""
        return self.locate(*keys)


def default_path(paths: list[str]) -> str:
    """``omerender.lock`` in the deepest folder that holds every PATH (a file counts as its folder), so the
    order of the PATHS does not matter: ``apps platform`` and ``platform apps`` read ``./omerender.lock``,
    one folder its own lock. Standard input is not a folder."""
    folders = []
    for given in paths:
        if given == STDIN:
            continue
        folders.append(os.path.normpath(given if os.path.isdir(given) else os.path.dirname(given) or "."))
    if not folders:
        return FILENAME
    try:
        common = os.path.commonpath(folders)
    except ValueError:  # relative and absolute PATHS mixed
        common = os.path.commonpath([os.path.abspath(f) for f in folders])
    return str(Path(common or ".") / FILENAME)


def read(path: str, budget: Budget | None = None) -> tuple[Lock | None, str | None, list[Diagnostic]]:
    """The lock at ``path`` (``None`` when there is none), its text, and problems with it.

    It is read like every input (``load.bounded``: a regular file, within the caps and the run's
    budget) and parsed once with the manifests' limits on aliases, depth and nodes before ruamel.yaml
    sees it: a pull request can plant a lock. A symlink that leaves the lock's folder is refused.
    """
    if not os.path.lexists(path):
        return None, None, []
    real, folder = os.path.realpath(path), os.path.realpath(os.path.dirname(os.path.abspath(path)))
    if os.path.islink(path) and (real == folder or not is_within(real, folder)):  # a file below its folder only
        return (
            None,
            None,
            [_unreadable(path, "the lock file is a symlink that points outside its folder; not followed")],
        )
    try:
        text = read_text(path, budget or Budget(), "lock file")
    except ReadProblem as refused:
        return None, None, [Diagnostic(path, refused.line, refused.col, ERROR, refused.message, codes.LOCK_INVALID)]
    try:
        for _ in parse_documents(text):
            pass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
        return (
            None,
            None,
            [Diagnostic(path, line, col, ERROR, f"lock file is not valid YAML: {problem}", codes.LOCK_INVALID)],
        )
    except RecursionError:
        return None, None, [_unreadable(path, "lock file nests too deeply to read")]
    lock, problems = parse(text, path)
    return lock, text, problems


def _unreadable(path: str, message: str) -> Diagnostic:
    return Diagnostic(path, 1, 1, ERROR, message, codes.LOCK_INVALID)


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


class _Locator:
    """Where keys are in the lock's text (1-based line and column), from a round-trip parse made on
    first use: a lock without problems is never parsed twice."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.root: Any = None
        self.loaded = False

    def __call__(self, *keys: str) -> tuple[int, int]:
        if not self.loaded:
            from ruamel.yaml import YAML

            self.loaded = True
            try:
                self.root = YAML().load(self.text)
            except Exception:  # noqa: BLE001 - positions are a nicety; 1:1 when the text will not load
                self.root = None
        node, where = self.root, (1, 1)
        for key in keys:
            lc = getattr(node, "lc", None)
            found = next((k for k in node if str(k) == key), None) if isinstance(node, dict) else None
            if found is None or lc is None:
                break
            try:
                line, col = lc.key(found)
            except (KeyError, TypeError, AttributeError):
                break
            where, node = (line + 1, col + 1), node[found]
        return where


def parse(text: str, path: str = FILENAME) -> tuple[Lock | None, list[Diagnostic]]:
    """The lock in ``text`` and its problems, each located at the key it is about.

    A snapshot that does not match its revision (or has no spec) is left out of ``revisions`` and its
    revision put in ``unusable``; InferenceServices that name it keep their entry, so that what
    follows (``lifecycle``) can tell one that follows its live runtime, which ``omerender lock``
    simply re-records, from a pinned one, which it must not silently move. Problems that
    ``omerender lock`` fixes by re-recording are also in ``recoverable``, mapped to the warning it
    reports instead.
    """
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    locate = _Locator(text)

    def problem(message: str, *keys: str, at: tuple[int, int] | None = None) -> Diagnostic:
        line, col = at or locate(*keys)
        return Diagnostic(path, line, col, ERROR, message, codes.LOCK_INVALID, json_path(keys) if keys else "")

    try:
        data = _plain(YAML(typ="safe").load(text))
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        at = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        return None, [problem(f"lock file is not valid YAML: {' '.join(str(exc).split())}", at=at)]
    if data is None:
        return Lock(path), []
    if not isinstance(data, dict) or data.get("kind") != KIND or data.get("apiVersion") != TOOL_API_VERSION:
        return None, [problem(f"not an omerender lock file (want apiVersion {TOOL_API_VERSION}, kind {KIND})")]
    lock, problems = Lock(path), []
    lock.locate = locate

    def recoverable(diagnostic: Diagnostic, instead: str) -> None:
        problems.append(diagnostic)
        lock.recoverable[diagnostic] = dataclasses.replace(diagnostic, severity=WARNING, message=instead)

    revisions = data.get("revisions")
    for rev, entry in (revisions if isinstance(revisions, dict) else {}).items():
        if not isinstance(entry, dict) or not isinstance(entry.get("spec"), dict):
            lock.unusable[rev] = "it has no spec mapping"
        elif revision_of(entry["spec"]) != rev:
            lock.unusable[rev] = (
                f"its snapshot does not match it: sha256 gives {revision_of(entry['spec'])}, edited by hand?"
            )
        else:
            lock.revisions[rev] = Revision(str(entry.get("runtime", "")), _chain(entry.get("chain")), entry["spec"])
            continue
        recoverable(
            problem(
                f"revision {rev}: {lock.unusable[rev]} Restore it, or run `omerender lock` to drop it and re-record "
                "what follows the live runtimes",
                "revisions",
                rev,
            ),
            f"revision {rev}: {lock.unusable[rev]} `omerender lock` drops it and re-records the InferenceServices that "
            "follow their live runtime",
        )
    isvcs = data.get("inferenceServices")
    for key, entry in (isvcs if isinstance(isvcs, dict) else {}).items():
        if not isinstance(entry, dict) or not entry.get("revision"):
            recoverable(
                problem(
                    f"InferenceService {key}: its entry names no revision; run `omerender lock` to re-record it",
                    "inferenceServices",
                    key,
                    "revision",
                ),
                f"InferenceService {key}: its entry names no revision; `omerender lock` re-records it",
            )
            continue
        rev = str(entry["revision"])
        if rev not in lock.revisions and rev not in lock.unusable:
            lock.unusable[rev] = "it has no snapshot in revisions"
            recoverable(
                problem(
                    f"InferenceService {key}: revision {rev} has no snapshot in revisions; restore it, or run "
                    "`omerender lock` to re-record what follows the live runtimes",
                    "inferenceServices",
                    key,
                    "revision",
                ),
                f"InferenceService {key}: revision {rev} has no snapshot in revisions; `omerender lock` re-records it "
                "if it follows its live runtime",
            )
        sync = str(entry.get("sync", ""))
        mode = SyncMode(sync) if sync in SYNC_MODES else SyncMode.LIVE
        lock.isvcs[key] = Pin(str(entry.get("runtime", "")), rev, _chain(entry.get("chain")), mode)
    runtimes = data.get("runtimes")
    for key, entry in (runtimes if isinstance(runtimes, dict) else {}).items():
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
        elif key in old.isvcs and old.isvcs[key].revision in old.revisions:
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
        "apiVersion": TOOL_API_VERSION,
        "kind": KIND,
        "inferenceServices": {
            k: {"runtime": p.runtime, "revision": p.revision, "chain": list(p.chain), "sync": p.sync.value}
            for k, p in sorted(lock.isvcs.items())
        },
        "runtimes": {k: {"chain": list(r.chain), "revision": r.revision} for k, r in sorted(lock.runtimes.items())},
        "revisions": {
            k: {"runtime": r.runtime, "chain": list(r.chain), "spec": spec(r.spec)}
            for k, r in sorted(lock.revisions.items())
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
    from ruamel.yaml.comments import CommentedMap

    rt = roundtrip.round_trip()
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
    return roundtrip.dump(rt, root)


def last_chains(lock: Lock | None, runtimes: list[Obj]) -> dict[str, list[str]]:
    """Per runtime key of each runtime the lock knows, the last chain of it that resolved."""
    if lock is None:
        return {}
    return {
        runtime_key(r): list(lock.runtimes[runtime_key(r)].chain) for r in runtimes if runtime_key(r) in lock.runtimes
    }
