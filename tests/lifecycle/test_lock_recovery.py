"""A lock file edited by hand (or missing a snapshot) is not a dead end: `omerender lock` recovers it,
without silently moving a pinned InferenceService; problems point at the revision key in the lock."""

from __future__ import annotations

import yaml
from lifecycle_helpers import ISVC, NEW_IMAGE, NS, OLD_IMAGE, edit, image, set_sync
from use_cases import built, lock, said, shown

from omerender.commands.outcome import Verdict

KEY = f"{NS}/{ISVC}"


def _lock(tree, *roll_forward: str) -> dict:
    done = lock(tree, *roll_forward)
    assert done.verdict is Verdict.OK, said(done)
    return yaml.safe_load((tree / "omerender.lock").read_text())


def _line_of(path, text: str, after: str = "") -> int:
    """1-based number of the first line that is ``text`` (stripped), after the line ``after``."""
    lines = path.read_text().splitlines()
    start = lines.index(after) if after else 0
    return next(i + 1 for i, line in enumerate(lines) if i >= start and line.strip() == text)


def _tamper(tree, old: str = OLD_IMAGE) -> None:
    edit(tree / "omerender.lock", old, "evil.example/sglang:latest")


def test_lock_recovers_a_tampered_snapshot_of_a_live_isvc(demo):
    revision = _lock(demo)["inferenceServices"][KEY]["revision"]
    _tamper(demo)
    lock_path = demo / "omerender.lock"
    where = _line_of(lock_path, f"{revision}:", after="revisions:")

    broken = built(demo)
    assert broken.failed
    [problem] = [d for d in broken.diagnostics if d.path.endswith("omerender.lock")]  # not also "has no snapshot"
    assert problem.code == "lock-invalid" and "does not match" in problem.message
    assert (problem.line, problem.col) == (where, 3)

    done = lock(demo)
    assert done.verdict is Verdict.OK, said(done)
    assert f"omerender.lock:{where}:3: warning: [lock-invalid] revision {revision}" in said(done)
    assert "1:1" not in said(done) and "error" not in said(done)
    data = yaml.safe_load(lock_path.read_text())
    assert "evil" not in lock_path.read_text()
    assert data["inferenceServices"][KEY]["revision"] == revision  # the live merged spec, recorded again
    assert data["revisions"][revision]["spec"]["engineConfig"]["runner"]["image"] == OLD_IMAGE
    assert lock(demo, check=True).verdict is Verdict.OK
    again = built(demo)
    assert not again.failed and shown(again) == [], shown(again)


def test_lock_recovers_a_live_isvc_whose_snapshot_is_missing(demo):
    _lock(demo)
    lock_path = demo / "omerender.lock"
    text = lock_path.read_text()
    lock_path.write_text(text[: text.index("revisions:")] + "revisions: {}\n")
    where = _line_of(
        lock_path, next(line.strip() for line in text.splitlines() if line.strip().startswith("revision: "))
    )
    broken = built(demo)
    [problem] = [d for d in broken.diagnostics if d.code == "lock-invalid"]
    assert broken.failed and "has no snapshot" in problem.message and problem.line == where
    assert lock(demo).verdict is Verdict.OK
    assert shown(built(demo)) == []


def test_lock_will_not_move_a_pinned_isvc_whose_snapshot_was_tampered(demo):
    set_sync(demo, auto_sync=False)
    revision = _lock(demo)["inferenceServices"][KEY]["revision"]
    edit(demo / "profile.yaml", OLD_IMAGE, NEW_IMAGE)  # the live merged spec moves on; the pin stays
    _tamper(demo)
    lock_path = demo / "omerender.lock"
    tampered = lock_path.read_text()
    where = _line_of(lock_path, f"revision: {revision}", after=f"  {KEY}:")

    done = lock(demo)
    assert done.verdict is Verdict.FINDINGS, said(done)
    assert lock_path.read_text() == tampered  # nothing written
    errors = [line for line in said(done).splitlines() if ": error: " in line]
    assert len(errors) == 1, said(done)
    assert errors[0].startswith(f"{lock_path.as_posix()}:{where}:5: error: [RuntimePinError] InferenceService {KEY} ")
    assert f"`omerender lock --roll-forward {KEY}`" in errors[0]
    assert built(demo).failed  # not rendered from the live spec behind the user's back

    rolled = lock(demo, KEY)
    assert rolled.verdict is Verdict.OK, said(rolled)
    assert "evil" not in lock_path.read_text()
    again = built(demo)
    assert not again.failed and shown(again) == [], shown(again)
    assert image(again) == NEW_IMAGE


def test_a_pinned_isvc_whose_tampered_snapshot_is_still_live_is_simply_recorded_again(demo):
    set_sync(demo, auto_sync=False)
    revision = _lock(demo)["inferenceServices"][KEY]["revision"]
    _tamper(demo)  # what it runs (the live merged spec is that revision) does not change
    data = _lock(demo)
    assert data["inferenceServices"][KEY] == {
        **data["inferenceServices"][KEY],
        "revision": revision,
        "sync": "snapshot",
    }
    assert shown(built(demo)) == []


def test_revision_pin_with_a_tampered_snapshot_is_located_at_the_revision(demo):
    old = _lock(demo)["inferenceServices"][KEY]["revision"]
    set_sync(demo, revision=old)
    _lock(demo)
    edit(demo / "profile.yaml", OLD_IMAGE, NEW_IMAGE)
    assert _lock(demo)["inferenceServices"][KEY]["revision"] == old  # drifting, on its pin
    _tamper(demo)
    lock_path = demo / "omerender.lock"
    where = _line_of(lock_path, f"{old}:", after="revisions:")
    done = lock(demo)
    assert done.verdict is Verdict.FINDINGS
    [error] = [line for line in said(done).splitlines() if ": error: " in line]
    assert error.startswith(
        f"{lock_path.as_posix()}:{where}:3: error: [RuntimePinError] InferenceService {KEY} is pinned "
        "(spec.runtime.revision)"
    )
    assert "spec.runtime.revision" in error


def test_a_lock_that_is_not_yaml_is_located_where_it_breaks(demo):
    (demo / "omerender.lock").write_text("apiVersion: omerender.io/v1alpha1\nkind: RuntimeLock\nrevisions: [\n")
    broken = built(demo)
    [problem] = [d for d in broken.diagnostics if d.code == "lock-invalid"]
    assert broken.failed and problem.line > 1
