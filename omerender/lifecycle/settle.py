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
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from omerender import codes
from omerender.constants import SyncMode
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
from omerender.load.bounded import Budget
from omerender.load.obj import Obj
from omerender.ome import API_VERSION as OME_API_VERSION
from omerender.resolve.index import Universe, runtime_key
from omerender.resolve.inherit import RESOLVED, Chain, chain_problem
from omerender.selection.lookup import Lookup

PIN_ERROR, FETCH_ERROR, VALIDATION_ERROR, DRIFTED = (
    codes.RUNTIME_PIN_ERROR,
    codes.RUNTIME_FETCH_ERROR,
    codes.RUNTIME_VALIDATION_ERROR,
    codes.RUNTIME_DRIFTED,
)


class SelectedBy(StrEnum):
    """How an InferenceService's runtime was found."""

    NAME = "named"  # spec.runtime.name
    OME = "chosen"  # OME's auto-selection


class RendersFrom(StrEnum):
    """Which merged runtime spec an InferenceService renders from."""

    LIVE = "live"  # the live merged spec
    LOCK = "lock"  # a pinned snapshot the lock holds
    LAST_GOOD = "last-good"  # the locked snapshot of a chain that broke (--keep-last-good)
    NOTHING = "none"  # nothing renders


@dataclass(frozen=True)
class Settled:
    """What settle decided: the runtime and chain to render from (None: nothing renders), and why."""

    found: tuple[Obj, Chain] | None
    diagnostics: list[Diagnostic]


@dataclass
class Effective:
    """How one InferenceService's runtime was settled."""

    isvc: Obj
    runtime: Obj | None
    selection: SelectedBy
    sync: SyncMode
    live: Chain | None = None
    live_revision: str | None = None
    revision: str | None = None  # what renders
    spec: dict[str, Any] | None = None  # what renders: the merged runtime spec
    chain: tuple[str, ...] = ()
    source: RendersFrom = RendersFrom.NOTHING
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


def sync_mode(body: dict[str, Any]) -> SyncMode:
    ref = _runtime_ref(body)
    if ref.get("revision"):
        return SyncMode.REVISION
    return SyncMode.SNAPSHOT if ref.get("autoSync") is False else SyncMode.LIVE


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
        cls,
        path: str,
        keep_last_good: bool = False,
        roll_forward: tuple[str, ...] = (),
        budget: Budget | None = None,
        relock: bool = False,
    ) -> Lifecycle:
        """The lock at ``path``; with ``relock`` (``omerender lock``), its problems that re-recording fixes
        are the warnings ``Lock.recoverable`` words."""
        lock, text, problems = read(path, budget)
        if relock and lock is not None:
            problems = [lock.recoverable.get(d, d) for d in problems]
        return cls(lock, keep_last_good, frozenset(roll_forward), problems, lock_text=text, path=path)

    def chain_problems(self, universe: Universe, chains: dict[str, Chain]) -> list[Diagnostic]:
        """Each broken chain's error; with ``keep_last_good``, a warning where the lock holds the runtime's last
        chain that resolved (the running pods keep serving)."""
        out: list[Diagnostic] = []
        for runtime in universe.all_runtimes():
            key = runtime_key(runtime)
            problem = chain_problem(chains[key])
            if problem is None:
                continue
            last = self.lock.runtimes.get(key) if self.keep_last_good and self.lock is not None else None
            if last is not None:
                chain = " -> ".join(last.chain)
                suffix = f"; --keep-last-good: the last chain that resolved is {chain} (revision {last.revision})"
                problem = dataclasses.replace(problem, severity=WARNING, message=problem.message + suffix)
            out.append(problem)
        return out

    def relocked(
        self,
        universe: Universe,
        chains: dict[str, Chain],
        records: dict[str, Effective],
        searched: Callable[[Obj], bool],
    ) -> str:
        """The lock file's text after this build: the pins of ``records``, the last chain of every
        runtime that resolves (runtimes ``searched`` found only on a search path left out), earlier
        revisions kept only while a pin needs them, and the existing text's comments kept."""
        resolved: dict[str, LastGood] = {}
        broken: set[str] = set()
        for runtime in universe.all_runtimes():
            if searched(runtime):
                continue
            chain = chains[runtime_key(runtime)]
            if chain.ok and chain.spec is not None:
                resolved[runtime_key(runtime)] = LastGood(tuple(chain.names), revision_of(chain.spec))
            else:
                broken.add(runtime_key(runtime))
        new = updated(self.lock, {k: r.pin() for k, r in records.items()}, resolved, broken)
        return dump(new, self.lock_text)

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
        if record.sync == SyncMode.SNAPSHOT:
            keys: tuple[str, ...] = ("inferenceServices", key, "revision")
            how = "autoSync: false"
            fix = (
                f"restore {self.lock_path}, or run `omerender lock --roll-forward {key}` to move it to the live merged "
                "spec"
            )
        else:
            keys = ("revisions", wanted)
            how = "spec.runtime.revision"
            fix = (
                f"restore {self.lock_path}, or set spec.runtime.revision to the live merged spec's revision (or remove "
                "it)"
            )
        line, col = self.lock.where(*keys)
        record.drifted = record.live_revision is not None and record.live_revision != wanted
        message = (
            f"InferenceService {key} is pinned ({how}) to revision {wanted} of runtime "
            f"{record.runtime.name if record.runtime is not None else '?'}, "
            f"but {self.lock_path} cannot give it back ({why}); it is not rendered rather than moved to the live "
            "merged spec "
            f"(revision {record.live_revision}) behind your back: {fix}"
        )
        return Diagnostic(self.lock_path, line, col, ERROR, message, PIN_ERROR, json_path(keys))

    def settle(
        self,
        universe: Universe,
        chains: dict[str, Chain],
        isvc: Obj,
        body: dict[str, Any],
        lookup: Lookup,
    ) -> Settled:
        """Decide what ``isvc`` renders from, given what looking up its runtime found. The decision carries
        the lookup's findings, then its refusal worded for the pin or ``--keep-last-good``, then its own."""
        out = list(lookup.diagnostics)
        return Settled(self._settle(universe, chains, isvc, body, lookup, out), out)

    def _settle(
        self,
        universe: Universe,
        chains: dict[str, Chain],
        isvc: Obj,
        body: dict[str, Any],
        lookup: Lookup,
        out: list[Diagnostic],
    ) -> tuple[Obj, Chain] | None:
        found = lookup.found
        key, ref = isvc_key(isvc), _runtime_ref(body)
        record = Effective(isvc, None, SelectedBy.NAME if ref.get("name") else SelectedBy.OME, sync_mode(body))
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
            return self._unavailable(record, locked, lookup.refusal, out)
        runtime, chain = found
        wanted: str | None = record.live_revision
        if record.sync == SyncMode.REVISION:
            wanted = str(ref["revision"])
            if wanted != record.live_revision and self._snapshot(record, wanted) is None:
                if self._unusable(wanted):
                    out.append(self._unusable_pin(record, key, wanted))
                    return None
                message = (
                    f"Runtime {runtime.name} revision {wanted} (spec.runtime.revision) is not recorded in "
                    f"{self.lock_path}; "
                    f"its live merged spec is revision {record.live_revision}"
                )
                out.append(isvc.diag(ERROR, message, "spec", "runtime", "revision", code=PIN_ERROR))
                return None
        elif record.sync == SyncMode.SNAPSHOT and key not in self.roll_forward:
            if locked is None:
                missing = (  # no file at all: say so, so that a lock kept elsewhere is not taken for this one
                    f"{self.lock_path} holds no snapshot"
                    if self.lock is not None or self.lock_text is not None or self.problems
                    else f"there is no lock file {self.lock_path} to hold a snapshot"
                )
                message = (
                    f"autoSync: false, but {missing} of runtime {runtime.name} for this InferenceService; "
                    f"rendering the live merged spec (revision {record.live_revision}); run `omerender lock` to pin it"
                )
                out.append(isvc.diag(WARNING, message, "spec", "runtime", code=codes.RUNTIME_NOT_LOCKED))
            else:
                wanted = locked
                if wanted != record.live_revision and self._unusable(wanted):
                    out.append(self._unusable_pin(record, key, wanted))
                    return None
        if wanted == record.live_revision:
            record.revision, record.spec, record.chain, record.source = (
                wanted,
                chain.spec,
                tuple(chain.names),
                RendersFrom.LIVE,
            )
            if locked is not None and locked != wanted and record.sync == SyncMode.LIVE:
                message = (
                    f"rolls out runtime {runtime.name}: revision {locked} in {self.lock_path}, live merged spec is "
                    f"{wanted}"
                )
                out.append(isvc.diag(INFO, message, "spec", "runtime", code=codes.RUNTIME_ROLLOUT))
            return found
        assert wanted is not None
        snapshot = self._snapshot(record, wanted)
        assert snapshot is not None
        record.revision, record.spec, record.chain, record.source, record.drifted = (
            wanted,
            snapshot.spec,
            snapshot.chain,
            RendersFrom.LOCK,
            True,
        )
        how = "spec.runtime.revision" if record.sync == SyncMode.REVISION else "autoSync: false"
        message = (
            f"RuntimeDrifted True, reason RevisionMismatch: pinned ({how}) to revision {wanted} of runtime "
            f"{runtime.name}, "
            f"but its live merged spec is revision {record.live_revision}; rendering the pinned snapshot"
            + (f" until `omerender lock --roll-forward {key}`" if record.sync == SyncMode.SNAPSHOT else "")
        )
        out.append(isvc.diag(WARNING, message, "spec", "runtime", code=DRIFTED))
        return runtime, Chain(runtime, chain.runtimes, RESOLVED, "", snapshot.spec)

    def _unavailable(
        self, record: Effective, locked: str | None, refusal: Diagnostic | None, out: list[Diagnostic]
    ) -> tuple[Obj, Chain] | None:
        """The named runtime cannot be used (``refusal`` says why): report it as a pin error where the
        InferenceService is pinned, and as a warning where ``--keep-last-good`` renders its last good snapshot."""
        if refusal is None:
            return None
        wanted = str(_runtime_ref_of(record)["revision"]) if record.sync == SyncMode.REVISION else locked
        snapshot = self._snapshot(record, wanted) if wanted is not None and self.keep_last_good else None
        code = VALIDATION_ERROR if record.sync == SyncMode.LIVE else PIN_ERROR
        if snapshot is None:
            out.append(dataclasses.replace(refusal, code=code))
            return None
        message = (
            f"{refusal.message}; --keep-last-good: rendering the locked snapshot, "
            f"revision {wanted} (chain {' -> '.join(snapshot.chain)})"
        )
        out.append(dataclasses.replace(refusal, severity=WARNING, code=code, message=message))
        assert wanted is not None
        runtime = record.runtime if record.runtime is not None else _stand_in(record.isvc, snapshot)
        record.runtime = runtime
        record.revision, record.spec, record.chain, record.source = (
            wanted,
            snapshot.spec,
            snapshot.chain,
            RendersFrom.LAST_GOOD,
        )
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
        code = FETCH_ERROR if sync_mode(body) == SyncMode.LIVE else PIN_ERROR
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


def _stand_in(isvc: Obj, snapshot: Revision) -> Obj:
    """A runtime object rebuilt from the lock, for a runtime that no longer exists."""
    kind, *rest = snapshot.runtime.split("/")
    meta = {"name": rest[-1], **({"namespace": rest[0]} if len(rest) > 1 else {})}
    body = {"apiVersion": OME_API_VERSION, "kind": kind, "metadata": meta, "spec": snapshot.spec}
    return Obj(isvc.path, 0, body, None, rest[0] if len(rest) > 1 else "")
