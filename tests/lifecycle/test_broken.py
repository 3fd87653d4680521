"""Broken chains over time: the spec's messages, --keep-last-good, and status keeping the last chain."""

from __future__ import annotations

import json

from lifecycle_helpers import ISVC, NS, OLD_IMAGE, deployments, edit, image, set_sync
from use_cases import built, effective, effective_data, effective_text, lock, status, status_text

from omerender.commands.outcome import Verdict

CHAIN_ERROR = 'inherit-from parent "sglang-profile" not found (chain so far: [sglang-llama-3-2-3b])'
ISVC_MESSAGE = f"Runtime sglang-llama-3-2-3b does not support model {ISVC}: {CHAIN_ERROR}"


def _locked_then_profile_deleted(tree):
    assert lock(tree).verdict is Verdict.OK
    before = built(tree)
    assert not before.failed
    (tree / "profile.yaml").unlink()
    return before


def test_deleting_the_profile_fails_the_build_with_the_specs_messages(run_cli, demo):
    _locked_then_profile_deleted(demo)
    done = built(demo)
    assert done.failed
    found = {(d.code, d.severity, d.message) for d in done.diagnostics}
    assert ("RuntimeValidationError", "error", ISVC_MESSAGE) in found
    assert ("ParentNotFound", "error", CHAIN_ERROR) in found
    assert run_cli("build", str(demo)).stdout == ""  # the CLI's contract: no partial output


def test_pinned_isvc_reports_runtime_pin_error(demo):
    set_sync(demo, auto_sync=False)
    _locked_then_profile_deleted(demo)
    done = built(demo)
    assert done.failed
    assert ("RuntimePinError", ISVC_MESSAGE) in {(d.code, d.message) for d in done.diagnostics}
    assert "RuntimeValidationError" not in {d.code for d in done.diagnostics}


def test_isvc_without_model_reports_runtime_fetch_error(demo):
    edit(demo / "isvc.yaml", "  model:\n    name: llama-3-2-3b-instruct\n", "")
    (demo / "profile.yaml").unlink()
    done = built(demo)
    assert done.failed
    fetch = [d for d in done.diagnostics if d.code == "RuntimeFetchError" and CHAIN_ERROR in d.message]
    assert len(fetch) == 1 and fetch[0].severity == "error"


def test_keep_last_good_renders_the_locked_snapshot_and_warns(demo):
    good = _locked_then_profile_deleted(demo)
    done = built(demo, keep_last_good=True)
    assert not done.failed
    warnings = [d for d in done.diagnostics if d.code == "RuntimeValidationError"]
    assert len(warnings) == 1 and warnings[0].severity == "warning"
    assert warnings[0].message.startswith(ISVC_MESSAGE) and "--keep-last-good" in warnings[0].message
    assert not [d for d in done.diagnostics if d.severity == "error"]
    assert deployments(done) == deployments(good)
    assert image(done) == OLD_IMAGE


def test_keep_last_good_without_a_lock_still_fails(run_cli, demo):  # the CLI's exit code, and no partial output
    (demo / "profile.yaml").unlink()
    done = run_cli("build", str(demo), "--keep-last-good")
    assert done.exit_code == 1 and done.stdout == ""


def test_keep_last_good_when_the_runtime_itself_is_gone(demo):
    assert lock(demo).verdict is Verdict.OK
    good = built(demo)
    (demo / "runtime.yaml").unlink()
    assert built(demo).failed
    done = built(demo, keep_last_good=True)
    assert not done.failed, done.diagnostics
    assert deployments(done) == deployments(good)


def test_status_shows_the_last_chain_that_resolved(run_cli, demo):
    _locked_then_profile_deleted(demo)
    done = status(demo)
    assert done.verdict is Verdict.FINDINGS
    [item] = json.loads(status_text(done, "json"))["items"]
    assert item["status"]["inheritanceChain"] == ["sglang-profile", "sglang-llama-3-2-3b"]
    assert item["status"]["conditions"][0]["status"] == "False"
    assert item["status"]["conditions"][0]["reason"] == "ParentNotFound"
    table = status_text(done)
    assert "sglang-profile,sglang-llama-3-2-3b   False   ParentNotFound" in table
    status_file = demo.parent / "status.json"
    run_cli("build", str(demo), "--keep-last-good", "--status-file", str(status_file))  # where build writes it
    assert json.loads(status_file.read_text())["items"][0]["status"]["inheritanceChain"] == [
        "sglang-profile",
        "sglang-llama-3-2-3b",
    ]


def test_status_without_lock_shows_no_chain(demo):
    (demo / "profile.yaml").unlink()
    [item] = json.loads(status_text(status(demo), "json"))["items"]
    assert item["status"]["inheritanceChain"] == []


def test_effective_on_a_broken_chain(demo):
    _locked_then_profile_deleted(demo)
    done = effective(demo, ISVC, namespace=NS)
    assert done.verdict is Verdict.FINDINGS
    data = effective_data(done)
    assert data["chainResolved"] is False and data["chainError"]["reason"] == "ParentNotFound"
    assert data["revision"] is None and data["lockedRevision"]
    assert data["chain"] == ["sglang-profile", "sglang-llama-3-2-3b"]  # the last good one
    kept = effective_data(effective(demo, ISVC, namespace=NS, lock_file=str(demo / "omerender.lock")))
    assert kept["lockedRevision"] == data["lockedRevision"]


def test_effective_text_shows_the_locked_revision_and_unknown_drift_on_a_broken_chain(demo):
    set_sync(demo, auto_sync=False)
    _locked_then_profile_deleted(demo)
    done = effective(demo, ISVC, namespace=NS)
    data = effective_data(done)
    assert done.verdict is Verdict.FINDINGS
    rows = dict(line.split(":", 1) for line in effective_text(done).splitlines())
    assert rows["Locked revision"].strip() == data["lockedRevision"]
    assert data["lockedRevision"] in rows["Drifted"]
    [condition] = data["conditions"]
    assert (data["drifted"], condition["status"], condition["reason"]) == (None, "Unknown", "LiveRevisionUnknown")
    assert rows["Drifted"].strip().startswith("Unknown (LiveRevisionUnknown")
    assert rows["Revision"].strip().startswith("<none>")
