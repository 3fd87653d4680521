"""lifecycle.settle: what an InferenceService renders from, decided from the lookup, the lock and the pins."""

from __future__ import annotations

from typing import Any

from stage_objects import API, objects, runtime

from omerender import codes
from omerender.constants import SyncMode
from omerender.diagnostics import ERROR, WARNING
from omerender.lifecycle.lock import LastGood, Lock, Pin, Revision, revision_of
from omerender.lifecycle.settle import Lifecycle, sync_mode
from omerender.resolve.index import index, runtime_key
from omerender.resolve.inherit import resolve_all
from omerender.selection.lookup import Lookup


def _isvc(**runtime_ref: Any) -> dict[str, Any]:
    spec = {"model": {"name": "m"}, "runtime": {"name": "rt", **runtime_ref}, "engine": {}}
    return {"apiVersion": API, "kind": "InferenceService", "metadata": {"name": "svc"}, "spec": spec}


def _world(isvc: dict[str, Any], *runtimes: dict[str, Any]) -> tuple[Any, Any, Any]:
    universe, _ = index(objects(isvc, *runtimes))
    chains, _ = resolve_all(universe)
    return universe, chains, next(iter(universe.isvcs.values()))


def test_sync_mode_follows_autosync_and_revision() -> None:
    assert sync_mode(_isvc()) == SyncMode.LIVE
    assert sync_mode(_isvc(autoSync=False)) == SyncMode.SNAPSHOT
    assert sync_mode(_isvc(autoSync=False, revision="abc")) == SyncMode.REVISION


def test_without_a_lock_the_live_chain_renders_and_the_lookup_findings_pass_through_once() -> None:
    universe, chains, isvc = _world(_isvc(), runtime("rt", {"supportedModelFormats": []}))
    rt = universe.all_runtimes()[0]
    note = isvc.diag(WARNING, "a finding of the lookup", "spec", code="x")
    settled = Lifecycle().settle(universe, chains, isvc, isvc.body, Lookup((rt, chains[runtime_key(rt)]), [note]))
    assert settled.found is not None and settled.found[0] is rt
    assert settled.diagnostics == [note]
    lifecycle = Lifecycle()
    lifecycle.settle(universe, chains, isvc, isvc.body, Lookup((rt, chains[runtime_key(rt)])))
    (record,) = lifecycle.records.values()
    assert record.source == "live" and record.sync == SyncMode.LIVE and not record.drifted


def test_a_refused_named_runtime_is_a_validation_error_live_and_a_pin_error_when_pinned() -> None:
    for ref, code in (({}, codes.RUNTIME_VALIDATION_ERROR), ({"autoSync": False}, codes.RUNTIME_PIN_ERROR)):
        universe, chains, isvc = _world(_isvc(**ref))
        refusal = isvc.diag(ERROR, "Runtime rt does not support model m", "spec", code=codes.RUNTIME_VALIDATION_ERROR)
        settled = Lifecycle().settle(universe, chains, isvc, isvc.body, Lookup(None, refusal=refusal))
        assert settled.found is None
        assert [(d.severity, d.code, d.message) for d in settled.diagnostics] == [(ERROR, code, refusal.message)]


def test_keep_last_good_renders_the_locked_snapshot_of_a_refused_runtime_with_a_warning() -> None:
    universe, chains, isvc = _world(_isvc(autoSync=False))
    snapshot = {"supportedModelFormats": [{"name": "x"}]}
    revision = revision_of(snapshot)
    lock = Lock(
        isvcs={"default/svc": Pin("ClusterServingRuntime/rt", revision, ("rt",), SyncMode.SNAPSHOT)},
        revisions={revision: Revision("ClusterServingRuntime/rt", ("rt",), snapshot)},
    )
    refusal = isvc.diag(ERROR, "runtime rt not found", "spec", code=codes.RUNTIME_VALIDATION_ERROR)
    lifecycle = Lifecycle(lock, keep_last_good=True)
    settled = lifecycle.settle(universe, chains, isvc, isvc.body, Lookup(None, refusal=refusal))
    assert settled.found is not None and settled.found[1].spec == snapshot
    (warning,) = settled.diagnostics
    assert warning.severity == WARNING and warning.code == codes.RUNTIME_PIN_ERROR and revision in warning.message
    assert lifecycle.records["default/svc"].source == "last-good"


def test_a_pinned_runtime_whose_live_spec_moved_renders_the_snapshot_and_reports_drift() -> None:
    universe, chains, isvc = _world(_isvc(autoSync=False), runtime("rt", {"supportedModelFormats": []}))
    rt = universe.all_runtimes()[0]
    old = {"supportedModelFormats": [{"name": "old"}]}
    revision = revision_of(old)
    lock = Lock(
        isvcs={"default/svc": Pin(runtime_key(rt), revision, ("rt",), SyncMode.SNAPSHOT)},
        revisions={revision: Revision(runtime_key(rt), ("rt",), old)},
    )
    settled = Lifecycle(lock).settle(universe, chains, isvc, isvc.body, Lookup((rt, chains[runtime_key(rt)])))
    assert settled.found is not None and settled.found[1].spec == old
    assert [d.code for d in settled.diagnostics] == [codes.RUNTIME_DRIFTED]


def test_chain_problems_are_warnings_only_where_the_lock_holds_a_last_good_chain_and_keep_last_good_is_on() -> None:
    universe, chains, _ = _world(_isvc(), runtime("rt", {}, parent="gone"), runtime("other", {}, parent="gone"))
    rt = next(r for r in universe.all_runtimes() if r.name == "rt")
    lock = Lock(runtimes={runtime_key(rt): LastGood(("base", "rt"), "r1")})
    plain = Lifecycle(lock).chain_problems(universe, chains)
    assert sorted(d.severity for d in plain) == [ERROR, ERROR]
    kept = Lifecycle(lock, keep_last_good=True).chain_problems(universe, chains)
    assert sorted(d.severity for d in kept) == [ERROR, WARNING]
    (warning,) = [d for d in kept if d.severity == WARNING]
    assert warning.path == rt.path and "base -> rt (revision r1)" in warning.message
