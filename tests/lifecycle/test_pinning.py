"""Revisions, the lock file, autoSync and spec.runtime.revision, through the use cases (``lock``, ``effective``)
and the build."""

from __future__ import annotations

from pathlib import Path

import yaml
from lifecycle_helpers import ISVC, NEW_IMAGE, NS, OLD_IMAGE, codes, deployments, edit, image, set_sync
from use_cases import built, effective, effective_data, lock, said, shown

from omerender.commands.outcome import Verdict


def _lock(tree, *roll_forward: str, **given):
    done = lock(tree, *roll_forward, **given)
    assert done.verdict is Verdict.OK, said(done)
    path = Path(given.get("lock_file") or tree / "omerender.lock")
    return yaml.safe_load(path.read_text())


def _bump_profile(tree) -> None:
    edit(tree / "profile.yaml", OLD_IMAGE, NEW_IMAGE)


def test_lock_file_records_runtime_revision_chain_and_snapshot(demo):
    data = _lock(demo)
    entry = data["inferenceServices"][f"{NS}/{ISVC}"]
    assert entry["runtime"] == f"ServingRuntime/{NS}/sglang-llama-3-2-3b"
    assert entry["chain"] == ["sglang-profile", "sglang-llama-3-2-3b"]
    assert entry["sync"] == "live"
    snapshot = data["revisions"][entry["revision"]]
    assert snapshot["spec"]["engineConfig"]["runner"]["image"] == OLD_IMAGE
    assert data["runtimes"][f"ServingRuntime/{NS}/sglang-llama-3-2-3b"]["revision"] == entry["revision"]
    answer = effective_data(effective(demo, ISVC, namespace=NS))
    assert answer["revision"] == entry["revision"] == answer["lockedRevision"]
    again = lock(demo)
    assert again.verdict is Verdict.OK and again.payload is not None and "up to date" in again.payload.message
    assert lock(demo, check=True).verdict is Verdict.OK
    text = (demo / "omerender.lock").read_text()
    assert text.index("inferenceServices:") < text.index("runtimes:") < text.index("revisions:")


def test_autosync_true_rolls_out_the_profile_change(demo):
    _lock(demo)
    _bump_profile(demo)
    done = built(demo)
    assert not done.failed, shown(done)
    assert image(done) == NEW_IMAGE
    assert "RuntimeDrifted" not in codes(done)
    assert lock(demo, check=True).verdict is Verdict.FINDINGS  # the lock is behind


def test_autosync_false_keeps_deployment_and_reports_drift_until_roll_forward(demo):
    set_sync(demo, auto_sync=False)
    _lock(demo)
    before = built(demo)
    assert not before.failed and shown(before) == [], shown(before)
    _bump_profile(demo)
    after = built(demo)
    assert not after.failed
    assert deployments(after) == deployments(before)  # unchanged: the snapshot renders
    drift = [d for d in after.diagnostics if d.code == "RuntimeDrifted"]
    assert len(drift) == 1 and drift[0].severity == "warning"
    assert "RevisionMismatch" in drift[0].message and "--roll-forward" in drift[0].message
    answer = effective_data(effective(demo, ISVC, namespace=NS))
    assert answer["drifted"] is True and answer["conditions"][0]["reason"] == "RevisionMismatch"
    assert answer["spec"]["engineConfig"]["runner"]["image"] == OLD_IMAGE

    _lock(demo)  # a plain lock keeps the pin
    assert "RuntimeDrifted" in codes(built(demo))

    _lock(demo, f"{NS}/{ISVC}")
    rolled = built(demo)
    assert not rolled.failed and "RuntimeDrifted" not in codes(rolled)
    assert image(rolled) == NEW_IMAGE


def test_reverting_the_change_ends_the_drift(demo):
    set_sync(demo, auto_sync=False)
    _lock(demo)
    _bump_profile(demo)
    assert "RuntimeDrifted" in codes(built(demo))
    edit(demo / "profile.yaml", NEW_IMAGE, OLD_IMAGE)
    assert shown(built(demo)) == []


def test_autosync_false_without_lock_warns_and_renders_live(demo):
    set_sync(demo, auto_sync=False)
    done = built(demo)
    assert not done.failed
    assert [d.code for d in done.diagnostics if d.severity != "info"] == ["runtime-not-locked"]


def test_revision_pin_renders_recorded_revision_and_unknown_is_an_error(demo):
    old = _lock(demo)["inferenceServices"][f"{NS}/{ISVC}"]["revision"]
    _bump_profile(demo)
    _lock(demo)  # follows live: the old revision is no longer needed ...
    set_sync(demo, revision=old)
    broken = built(demo)
    diagnostics = [d for d in broken.diagnostics if d.severity != "info"]
    assert broken.failed and [d.code for d in diagnostics] == ["RuntimePinError"]  # ... so it was dropped
    assert f"revision {old}" in diagnostics[0].message

    edit(demo / "profile.yaml", NEW_IMAGE, OLD_IMAGE)
    _lock(demo)  # the pinned revision is live again and recorded
    _bump_profile(demo)
    data = _lock(demo)
    assert old in data["revisions"], "a revision a pin needs is kept"
    assert data["inferenceServices"][f"{NS}/{ISVC}"]["sync"] == "revision"
    done = built(demo)
    assert not done.failed and image(done) == OLD_IMAGE
    drift = [d.message for d in done.diagnostics if d.code == "RuntimeDrifted"]
    assert drift and "spec.runtime.revision" in drift[0]
    assert lock(demo, ISVC, namespace=NS).verdict is Verdict.USAGE


def test_lock_drops_revisions_no_pin_needs(demo):
    first = _lock(demo)
    _bump_profile(demo)
    second = _lock(demo)
    assert set(first["revisions"]).isdisjoint(second["revisions"])
    assert len(second["revisions"]) == 1


def test_lock_keeps_comments_and_detects_tampering(demo):
    _lock(demo)
    path = demo / "omerender.lock"
    path.write_text("# reviewed by the serving team\n" + path.read_text())
    _bump_profile(demo)
    _lock(demo)
    assert path.read_text().startswith("# reviewed by the serving team\n")
    path.write_text(path.read_text().replace(NEW_IMAGE, "evil:latest"))
    done = built(demo)
    assert done.failed and "lock-invalid" in codes(done)


def test_lock_refuses_to_write_when_the_build_fails(run_cli, demo):  # the CLI's exit code and stderr line
    (demo / "profile.yaml").unlink()
    done = run_cli("lock", str(demo))
    assert done.exit_code == 1 and "not written" in done.stderr
    assert not (demo / "omerender.lock").exists()


def test_explicit_lock_file(demo, tmp_path):
    target = tmp_path / "elsewhere" / "team.lock"
    target.parent.mkdir()  # a missing folder is a user error, as for --status-file
    assert lock(demo, lock_file=str(target)).verdict is Verdict.OK
    assert target.is_file() and not (demo / "omerender.lock").exists()
    set_sync(demo, auto_sync=False)
    _bump_profile(demo)
    assert "RuntimeDrifted" in codes(built(demo, lock_file=str(target)))
