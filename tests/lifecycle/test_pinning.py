"""Revisions, the lock file, autoSync and spec.runtime.revision, through the CLI."""

from __future__ import annotations

import json

import yaml
from lifecycle_helpers import ISVC, NEW_IMAGE, NS, OLD_IMAGE, deployments, edit, image, report, set_sync


def _lock(run_cli, tree, *extra: str):
    done = run_cli("lock", str(tree), *extra)
    assert done.exit_code == 0, done
    return yaml.safe_load((tree / "omerender.lock").read_text())


def _bump_profile(tree) -> None:
    edit(tree / "profile.yaml", OLD_IMAGE, NEW_IMAGE)


def test_lock_file_records_runtime_revision_chain_and_snapshot(run_cli, demo):
    data = _lock(run_cli, demo)
    entry = data["inferenceServices"][f"{NS}/{ISVC}"]
    assert entry["runtime"] == f"ServingRuntime/{NS}/sglang-llama-3-2-3b"
    assert entry["chain"] == ["sglang-profile", "sglang-llama-3-2-3b"]
    assert entry["sync"] == "live"
    snapshot = data["revisions"][entry["revision"]]
    assert snapshot["spec"]["engineConfig"]["runner"]["image"] == OLD_IMAGE
    assert data["runtimes"][f"ServingRuntime/{NS}/sglang-llama-3-2-3b"]["revision"] == entry["revision"]
    effective = json.loads(run_cli("effective", ISVC, "-n", NS, str(demo), "-o", "json").stdout)
    assert effective["revision"] == entry["revision"] == effective["lockedRevision"]
    again = run_cli("lock", str(demo))
    assert again.exit_code == 0 and "up to date" in again.stderr
    assert run_cli("lock", str(demo), "--check").exit_code == 0
    text = (demo / "omerender.lock").read_text()
    assert text.index("inferenceServices:") < text.index("runtimes:") < text.index("revisions:")


def test_autosync_true_rolls_out_the_profile_change(run_cli, demo):
    _lock(run_cli, demo)
    _bump_profile(demo)
    done = run_cli("build", str(demo))
    assert done.exit_code == 0, done
    assert image(done.stdout) == NEW_IMAGE
    assert "RuntimeDrifted" not in done.stderr
    assert run_cli("lock", str(demo), "--check").exit_code == 1  # the lock is behind


def test_autosync_false_keeps_deployment_and_reports_drift_until_roll_forward(run_cli, demo):
    set_sync(demo, auto_sync=False)
    _lock(run_cli, demo)
    before = run_cli("build", str(demo))
    assert before.exit_code == 0 and before.stderr == "", before
    _bump_profile(demo)
    code, diagnostics = report(run_cli, "build", str(demo))
    after = run_cli("build", str(demo))
    assert code == 0 and after.exit_code == 0
    assert deployments(after.stdout) == deployments(before.stdout)  # unchanged: the snapshot renders
    drift = [d for d in diagnostics if d["code"] == "RuntimeDrifted"]
    assert len(drift) == 1 and drift[0]["severity"] == "warning"
    assert "RevisionMismatch" in drift[0]["message"] and "--roll-forward" in drift[0]["message"]
    effective = json.loads(run_cli("effective", ISVC, "-n", NS, str(demo), "-o", "json").stdout)
    assert effective["drifted"] is True and effective["conditions"][0]["reason"] == "RevisionMismatch"
    assert effective["spec"]["engineConfig"]["runner"]["image"] == OLD_IMAGE

    _lock(run_cli, demo)  # a plain lock keeps the pin
    assert "RuntimeDrifted" in run_cli("build", str(demo)).stderr

    _lock(run_cli, demo, "--roll-forward", f"{NS}/{ISVC}")
    rolled = run_cli("build", str(demo))
    assert rolled.exit_code == 0 and "RuntimeDrifted" not in rolled.stderr
    assert image(rolled.stdout) == NEW_IMAGE


def test_reverting_the_change_ends_the_drift(run_cli, demo):
    set_sync(demo, auto_sync=False)
    _lock(run_cli, demo)
    _bump_profile(demo)
    assert "RuntimeDrifted" in run_cli("build", str(demo)).stderr
    edit(demo / "profile.yaml", NEW_IMAGE, OLD_IMAGE)
    assert run_cli("build", str(demo)).stderr == ""


def test_autosync_false_without_lock_warns_and_renders_live(run_cli, demo):
    set_sync(demo, auto_sync=False)
    code, diagnostics = report(run_cli, "build", str(demo))
    assert code == 0
    assert [d["code"] for d in diagnostics] == ["runtime-not-locked"]


def test_revision_pin_renders_recorded_revision_and_unknown_is_an_error(run_cli, demo):
    old = _lock(run_cli, demo)["inferenceServices"][f"{NS}/{ISVC}"]["revision"]
    _bump_profile(demo)
    _lock(run_cli, demo)  # follows live: the old revision is no longer needed ...
    set_sync(demo, revision=old)
    code, diagnostics = report(run_cli, "build", str(demo))
    assert code == 1 and [d["code"] for d in diagnostics] == ["RuntimePinError"]  # ... so it was dropped
    assert f"revision {old}" in diagnostics[0]["message"]

    edit(demo / "profile.yaml", NEW_IMAGE, OLD_IMAGE)
    _lock(run_cli, demo)  # the pinned revision is live again and recorded
    _bump_profile(demo)
    data = _lock(run_cli, demo)
    assert old in data["revisions"], "a revision a pin needs is kept"
    assert data["inferenceServices"][f"{NS}/{ISVC}"]["sync"] == "revision"
    done = run_cli("build", str(demo))
    assert done.exit_code == 0 and image(done.stdout) == OLD_IMAGE
    assert "RuntimeDrifted" in done.stderr and "spec.runtime.revision" in done.stderr
    assert run_cli("lock", str(demo), "--roll-forward", ISVC, "-n", NS).exit_code == 2


def test_lock_drops_revisions_no_pin_needs(run_cli, demo):
    first = _lock(run_cli, demo)
    _bump_profile(demo)
    second = _lock(run_cli, demo)
    assert set(first["revisions"]).isdisjoint(second["revisions"])
    assert len(second["revisions"]) == 1


def test_lock_keeps_comments_and_detects_tampering(run_cli, demo):
    _lock(run_cli, demo)
    path = demo / "omerender.lock"
    path.write_text("# reviewed by the serving team\n" + path.read_text())
    _bump_profile(demo)
    _lock(run_cli, demo)
    assert path.read_text().startswith("# reviewed by the serving team\n")
    path.write_text(path.read_text().replace(NEW_IMAGE, "evil:latest"))
    code, diagnostics = report(run_cli, "build", str(demo))
    assert code == 1 and "lock-invalid" in {d["code"] for d in diagnostics}


def test_lock_refuses_to_write_when_the_build_fails(run_cli, demo):
    (demo / "profile.yaml").unlink()
    done = run_cli("lock", str(demo))
    assert done.exit_code == 1 and "not written" in done.stderr
    assert not (demo / "omerender.lock").exists()


def test_explicit_lock_file(run_cli, demo, tmp_path):
    target = tmp_path / "elsewhere" / "team.lock"
    target.parent.mkdir()  # a missing folder is a user error, as for --status-file
    assert run_cli("lock", str(demo), "--lock-file", str(target)).exit_code == 0
    assert target.is_file() and not (demo / "omerender.lock").exists()
    set_sync(demo, auto_sync=False)
    _bump_profile(demo)
    assert "RuntimeDrifted" in run_cli("build", str(demo), "--lock-file", str(target)).stderr
