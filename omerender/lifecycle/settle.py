"""What each InferenceService renders from over time: the live merged spec or a locked snapshot.

``pipeline.render_isvc`` calls ``Lifecycle.settle`` once it has looked for the runtime. Per the spec
("When a parent changes", "When a chain breaks", "Runtime revisions and pinning"):

* ``spec.runtime.autoSync: true`` (default) renders the live merged spec;
* ``autoSync: false`` renders the snapshot the lock records for the InferenceService, and reports
  ``RuntimeDrifted`` (reason ``RevisionMismatch``, a warning) when the live merged spec differs;
* ``spec.runtime.revision`` pins to a recorded revision; an unknown one is a ``RuntimePinError``;
* a broken chain is ``RuntimeValidationError`` (``RuntimePinError`` when pinned, ``RuntimeFetchError``
  without ``spec.model``); with ``keep_last_good`` the InferenceService renders from its locked
  snapshot instead, and the error becomes a warning, as the running pods keep serving.

Every decision is kept in ``records`` for ``omerender effective`` and ``omerender lock``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from omerender import codes
from omerender.diagnostics import ERROR, INFO, WARNING, Diagnostic, json_path
from omerender.lifecycle.lock import (
    LastGood,
    Lock,
    Pin,
    Revision,
    dump,
    isvc_key,
    read,
    revision_of,
    updated,
)
from omerender.load.obj import Obj
from omerender.resolve.index import Universe, runtime_key
from omerender.resolve.inherit import RESOLVED, Chain

PIN_ERROR, FETCH_ERROR, VALIDATION_ERROR, DRIFTED = (
    codes.RUNTIME_PIN_ERROR,
    codes.RUNTIME_FETCH_ERROR,
    codes.RUNTIME_VALIDATION_ERROR,
    codes.RUNTIME_DRIFTED,
)


@dataclass(frozen=True)
class Settled:
    """What settle decided: the runtime and chain to render from (None: nothing renders), and why."""

    found: tuple[Obj, Chain] | None
    diagnostics: list[Diagnostic]


@dataclass
class Effective:
    """How one InferenceService's runtime was settled."""

    isvc: Any
    runtime: Any  # Obj | None
    selection: str  # "named" (spec.runtime.name) or "chosen" (by OME's auto-selection)
    sync: str  # "live" (autoSync true), "snapshot" (autoSync false) or "revision" (spec.runtime.revision)
    live: Chain | None = None
    live_revision: str | None = None
    revision: str | None = None  # what renders
    spec: dict[str, Any] | None = None  # what renders: the merged runtime spec
    chain: tuple[str, ...] = ()
    source: str = "none"  # "live", "lock" (a pinned snapshot), "last-good" or "none"
    drifted: bool = False
    locked: Pin | None = None

    @property
    def runtime_key(self) -> str:
        return runtime_key(self.runtime) if self.runtime is not None else ""

    def pin(self) -> tuple[Pin, Revision] | None:
        if self.revision is None or self.spec is None or self.runtime is None:
            return None
        return Pin(self.runtime_key, self.revision, self.chain, self.sync), Revision(
            self.runtime_key, self.chain, self.spec
        )


def _runtime_ref(body: dict[str, Any]) -> dict[str, Any]:
    ref = body.get("spec", {}).get("runtime")
    return ref if isinstance(ref, dict) else {}


def sync_mode(body: dict[str, Any]) -> str:
    ref = _runtime_ref(body)
    if ref.get("revision"):
        return "revision"
    return "snapshot" if ref.get("autoSync") is False else "live"


@dataclass
class Lifecycle:
    lock: Lock | None = None
    keep_last_good: bool = False
    roll_forward: frozenset[str] = frozenset()
    problems: list[Diagnostic] = field(default_factory=list)
    records: dict[str, Effective] = field(default_factory=dict)
    lock_text: str | None = None
    path: str = "omerender.lock"
    revisions: dict[int, tuple[dict[str, Any], str]] = field(default_factory=dict, repr=False)

    def revision(self, spec: dict[str, Any]) -> str:
        """``revision_of(spec)``, computed once per merged spec: the InferenceServices of a runtime share its spec."""
        known = self.revisions.get(id(spec))
        if known is None or known[0] is not spec:  # the spec is kept with its revision, so its id stays its own
            known = self.revisions[id(spec)] = (spec, revision_of(spec))
        return known[1]

    @classmethod
    def load(
        cls, path: str, keep_last_good: bool = False, roll_forward: tuple[str, ...] = (), budget: Any = None
    ) -> Lifecycle:
        lock, text, problems = read(path, budget)
        return cls(lock, keep_last_good, frozenset(roll_forward), problems, lock_text=text, path=path)

    def start(self, result: Any) -> None:
        """Report the lock's own problems; with ``keep_last_good``, a broken chain that the lock holds a
        last good chain for is a warning (the running pods keep serving), not an error."""
        result.diagnostics.extend(self.problems)
        if not self.keep_last_good or self.lock is None:
            return
        broken: dict[tuple[str, str, str], LastGood] = {}
        for runtime in result.universe.all_runtimes():
            chain = result.chains[runtime_key(runtime)]
            last = self.lock.runtimes.get(runtime_key(runtime))
            if not chain.ok and last is not None:
                broken[(runtime.path, chain.reason, chain.message)] = last
        for i, diagnostic in enumerate(result.diagnostics):
            last = broken.get((diagnostic.path, diagnostic.code, diagnostic.message))
            if last is not None and diagnostic.severity == ERROR:
                suffix = f"; --keep-last-good: the last chain that resolved is {' -> '.join(last.chain)} (revision {last.revision})"
                result.diagnostics[i] = dataclasses.replace(
                    diagnostic, severity=WARNING, message=diagnostic.message + suffix
                )

    @property
    def lock_path(self) -> str:
        return self.path

    def _snapshot(self, record: Effective, wanted: str) -> Revision | None:
        found = self.lock.revisions.get(wanted) if self.lock is not None else None
        return found if found is not None and (record.runtime is None or found.runtime == record.runtime_key) else None

    def _locked(self, record: Effective, key: str) -> str | None:
        """The revision the lock holds for this InferenceService, if it is for the same runtime."""
        pin = self.lock.isvcs.get(key) if self.lock is not None else None
        record.locked = pin
        return (
            pin.revision if pin is not None and (record.runtime is None or pin.runtime == record.runtime_key) else None
        )

    def _unusable(self, revision: str) -> bool:
        return self.lock is not None and revision in self.lock.unusable

    def _unusable_pin(self, record: Effective, key: str, wanted: str) -> Diagnostic:
        """A pinned InferenceService whose locked snapshot cannot be used (edited by hand, or missing):
        an error, located at the revision in the lock, rather than a silent move to the live spec."""
        assert self.lock is not None
        why = self.lock.unusable[wanted]
        if record.sync == "snapshot":
            keys: tuple[str, ...] = ("inferenceServices", key, "revision")
            how = "autoSync: false"
            fix = f"restore {self.lock_path}, or run `omerender lock --roll-forward {key}` to move it to the live merged spec"
        else:
            keys = ("revisions", wanted)
            how = "spec.runtime.revision"
            fix = f"restore {self.lock_path}, or set spec.runtime.revision to the live merged spec's revision (or remove it)"
        line, col = self.lock.where(*keys)
        record.drifted = record.live_revision is not None and record.live_revision != wanted
        message = (
            f"InferenceService {key} is pinned ({how}) to revision {wanted} of runtime {record.runtime.name if record.runtime is not None else '?'}, "
            f"but {self.lock_path} cannot give it back ({why}); it is not rendered rather than moved to the live merged spec "
            f"(revision {record.live_revision}) behind your back: {fix}"
        )
        return Diagnostic(self.lock_path, line, col, ERROR, message, PIN_ERROR, json_path(keys))

    def settle(
        self,
        universe: Universe,
        chains: dict[str, Chain],
        isvc: Obj,
        body: dict[str, Any],
        found: tuple[Obj, Chain] | None,
        lookup: list[Diagnostic],
    ) -> Settled:
        """Decide what ``isvc`` renders from. ``lookup`` holds the diagnostics of looking up its runtime;
        the decision carries them (retagged where the pin or ``--keep-last-good`` changes their meaning)
        followed by its own."""
        out = list(lookup)
        return Settled(self._settle(universe, chains, isvc, body, found, out), out)

    def _settle(
        self,
        universe: Universe,
        chains: dict[str, Chain],
        isvc: Obj,
        body: dict[str, Any],
        found: tuple[Obj, Chain] | None,
        out: list[Diagnostic],
    ) -> tuple[Obj, Chain] | None:
        key, ref = isvc_key(isvc), _runtime_ref(body)
        record = Effective(isvc, None, "named" if ref.get("name") else "chosen", sync_mode(body))
        self.records[key] = record
        if found is not None:
            record.runtime, record.live = found
            assert found[1].spec is not None
            record.live_revision = self.revision(found[1].spec)
        elif ref.get("name"):
            record.runtime = universe.runtime_named(str(ref["name"]), isvc.namespace)
            record.live = chains.get(runtime_key(record.runtime)) if record.runtime is not None else None
        locked = self._locked(record, key)
        if found is None:
            return self._unavailable(record, locked, out)
        runtime, chain = found
        wanted: str | None = record.live_revision
        if record.sync == "revision":
            wanted = str(ref["revision"])
            if wanted != record.live_revision and self._snapshot(record, wanted) is None:
                if self._unusable(wanted):
                    out.append(self._unusable_pin(record, key, wanted))
                    return None
                message = (
                    f"Runtime {runtime.name} revision {wanted} (spec.runtime.revision) is not recorded in {self.lock_path}; "
                    f"its live merged spec is revision {record.live_revision}"
                )
                out.append(isvc.diag(ERROR, message, "spec", "runtime", "revision", code=PIN_ERROR))
                return None
        elif record.sync == "snapshot" and key not in self.roll_forward:
            if locked is None:
                message = (
                    f"autoSync: false, but {self.lock_path} holds no snapshot of runtime {runtime.name} for this InferenceService; "
                    f"rendering the live merged spec (revision {record.live_revision}); run `omerender lock` to pin it"
                )
                out.append(isvc.diag(WARNING, message, "spec", "runtime", code=codes.RUNTIME_NOT_LOCKED))
            else:
                wanted = locked
                if wanted != record.live_revision and self._unusable(wanted):
                    out.append(self._unusable_pin(record, key, wanted))
                    return None
        if wanted == record.live_revision:
            record.revision, record.spec, record.chain, record.source = wanted, chain.spec, tuple(chain.names), "live"
            if locked is not None and locked != wanted and record.sync == "live":
                message = f"rolls out runtime {runtime.name}: revision {locked} in {self.lock_path}, live merged spec is {wanted}"
                out.append(isvc.diag(INFO, message, "spec", "runtime", code=codes.RUNTIME_ROLLOUT))
            return found
        assert wanted is not None
        snapshot = self._snapshot(record, wanted)
        assert snapshot is not None
        record.revision, record.spec, record.chain, record.source, record.drifted = (
            wanted,
            snapshot.spec,
            snapshot.chain,
            "lock",
            True,
        )
        how = "spec.runtime.revision" if record.sync == "revision" else "autoSync: false"
        message = (
            f"RuntimeDrifted True, reason RevisionMismatch: pinned ({how}) to revision {wanted} of runtime {runtime.name}, "
            f"but its live merged spec is revision {record.live_revision}; rendering the pinned snapshot"
            + (f" until `omerender lock --roll-forward {key}`" if record.sync == "snapshot" else "")
        )
        out.append(isvc.diag(WARNING, message, "spec", "runtime", code=DRIFTED))
        return runtime, Chain(runtime, chain.runtimes, RESOLVED, "", snapshot.spec)

    def _unavailable(self, record: Effective, locked: str | None, out: list[Diagnostic]) -> tuple[Obj, Chain] | None:
        """The runtime could not be used: retag its error in ``out``, or render the last good snapshot."""
        failures = [i for i, d in enumerate(out) if d.code == VALIDATION_ERROR]
        if not failures:
            return None
        wanted = str(_runtime_ref_of(record)["revision"]) if record.sync == "revision" else locked
        snapshot = self._snapshot(record, wanted) if wanted is not None and self.keep_last_good else None
        for i in failures:
            diagnostic = out[i]
            code = VALIDATION_ERROR if record.sync == "live" else PIN_ERROR
            if snapshot is None:
                out[i] = dataclasses.replace(diagnostic, code=code)
            else:
                message = f"{diagnostic.message}; --keep-last-good: rendering the locked snapshot, revision {wanted} (chain {' -> '.join(snapshot.chain)})"
                out[i] = dataclasses.replace(diagnostic, severity=WARNING, code=code, message=message)
        if snapshot is None:
            return None
        assert wanted is not None
        runtime = record.runtime if record.runtime is not None else _stand_in(record.isvc, snapshot)
        record.runtime = runtime
        record.revision, record.spec, record.chain, record.source = wanted, snapshot.spec, snapshot.chain, "last-good"
        return runtime, Chain(runtime, (runtime,), RESOLVED, "", snapshot.spec)

    def without_model(
        self, universe: Universe, chains: dict[str, Chain], isvc: Obj, body: dict[str, Any]
    ) -> list[Diagnostic]:
        """An InferenceService without ``spec.model`` whose runtime's chain is broken: ``RuntimeFetchError``."""
        ref = _runtime_ref(body)
        runtime = universe.runtime_named(str(ref["name"]), isvc.namespace) if ref.get("name") else None
        chain = chains.get(runtime_key(runtime)) if runtime is not None else None
        if runtime is None or chain is None or chain.ok:
            return []
        code = FETCH_ERROR if sync_mode(body) == "live" else PIN_ERROR
        return [
            isvc.diag(
                ERROR,
                f"failed to fetch runtime {runtime.name}: {chain.message}",
                "spec",
                "runtime",
                "name",
                code=code,
            )
        ]


def _runtime_ref_of(record: Effective) -> dict[str, Any]:
    return _runtime_ref({"spec": record.isvc.spec})


def _stand_in(isvc: Any, snapshot: Revision) -> Any:
    """A runtime object rebuilt from the lock, for a runtime that no longer exists."""
    from omerender.load.obj import Obj

    kind, *rest = snapshot.runtime.split("/")
    meta = {"name": rest[-1], **({"namespace": rest[0]} if len(rest) > 1 else {})}
    body = {"apiVersion": "ome.io/v1beta1", "kind": kind, "metadata": meta, "spec": snapshot.spec}
    return Obj(isvc.path, 0, body, None, rest[0] if len(rest) > 1 else "")


def relocked(result: Any, records: dict[str, Effective], searched: Any) -> str:
    """The lock file's text after this build: the pins of ``records``, the last chain of every
    runtime that resolves (runtimes found only on a search path left out), earlier revisions kept
    only while a pin needs them, and the existing text's comments kept."""
    resolved: dict[str, LastGood] = {}
    broken: set[str] = set()
    for runtime in result.universe.all_runtimes():
        if searched(runtime):
            continue
        chain = result.chains[runtime_key(runtime)]
        if chain.ok and chain.spec is not None:
            resolved[runtime_key(runtime)] = LastGood(tuple(chain.names), revision_of(chain.spec))
        else:
            broken.add(runtime_key(runtime))
    new = updated(result.lifecycle.lock, {k: r.pin() for k, r in records.items()}, resolved, broken)
    return dump(new, result.lifecycle.lock_text)
