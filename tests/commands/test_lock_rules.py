"""``commands.lock``: its roll-forward checks and its verdict, through ``run()``."""

from __future__ import annotations

from pathlib import Path

import yaml
from demo_trees import ISVC, KEY, NS, replace
from use_cases import lock, said

from omerender.commands.outcome import Verdict

OLD_IMAGE = "docker.io/lmsysorg/sglang:v0.5.5.post3-cu129-amd64"
NEW_IMAGE = "docker.io/lmsysorg/sglang:v0.5.6-cu129-amd64"


def _pin(tree: Path, line: str) -> None:
    replace(tree / "isvc.yaml", "    name: sglang-llama-3-2-3b\n", f"    name: sglang-llama-3-2-3b\n    {line}\n")


def test_the_verdict_is_written_then_up_to_date_then_out_of_date_under_check(demo: Path) -> None:
    lock_file = demo / "omerender.lock"
    first = lock(demo)
    assert first.verdict is Verdict.OK and first.payload is not None
    assert first.payload.message == f"wrote {lock_file}" and lock_file.is_file()
    assert list(yaml.safe_load(lock_file.read_text())["inferenceServices"]) == [KEY]
    again = lock(demo)
    assert again.verdict is Verdict.OK and again.payload is not None
    assert again.payload.message == f"{lock_file} is up to date" and again.payload.text is None
    replace(demo / "profile.yaml", "v0.5.5.post3", "v0.5.6")  # a new image: the merged spec changes
    written = lock_file.read_text()
    behind = lock(demo, check=True)
    assert behind.verdict is Verdict.FINDINGS and behind.payload is not None
    assert behind.payload.message == f"omerender: {lock_file} is not up to date; run `omerender lock`"
    assert lock_file.read_text() == written  # --check writes nothing


def test_nothing_is_written_when_the_build_fails(demo: Path) -> None:
    (demo / "profile.yaml").unlink()
    outcome = lock(demo)
    assert outcome.verdict is Verdict.FINDINGS and outcome.payload is None
    assert not (demo / "omerender.lock").exists()
    assert "ParentNotFound" in {d.code for d in outcome.diagnostics}
    assert [n.line() for n in outcome.notes] == [
        f"omerender: {demo / 'omerender.lock'} not written: the build failed with 2 errors; fix the errors above (or "
        "use --keep-last-good for broken chains)"
    ]


def test_roll_forward_names_an_inference_service_that_is_there(demo: Path) -> None:
    outcome = lock(demo, "nope", namespace=NS)
    assert outcome.verdict is Verdict.USAGE and outcome.problem is not None and outcome.payload is None
    assert outcome.problem.message == f"--roll-forward {NS}/nope: no such InferenceService"
    assert outcome.problem.option is None and not (demo / "omerender.lock").exists()


def test_roll_forward_refuses_a_revision_pin(demo: Path) -> None:
    revision = yaml.safe_load(_locked(demo))["inferenceServices"][KEY]["revision"]
    _pin(demo, f'revision: "{revision}"')
    outcome = lock(demo, ISVC, namespace=NS)
    assert outcome.verdict is Verdict.USAGE and outcome.problem is not None
    assert outcome.problem.message == (
        f"--roll-forward {KEY}: it is pinned by spec.runtime.revision; change that field instead"
    )


def test_roll_forward_of_one_that_follows_live_says_it_changes_nothing(demo: Path) -> None:
    outcome = lock(demo, KEY)
    assert outcome.verdict is Verdict.OK
    assert (
        said(outcome) == f"omerender: {KEY} follows its live runtime (autoSync: true); --roll-forward changes nothing\n"
    )


def test_roll_forward_moves_a_pinned_inference_service_to_its_live_runtime(demo: Path) -> None:
    _pin(demo, "autoSync: false")
    pinned = yaml.safe_load(_locked(demo))["inferenceServices"][KEY]["revision"]
    replace(demo / "profile.yaml", OLD_IMAGE, NEW_IMAGE)
    assert yaml.safe_load(_locked(demo))["inferenceServices"][KEY]["revision"] == pinned  # a plain lock keeps it
    rolled = lock(demo, KEY)
    assert rolled.verdict is Verdict.OK and rolled.notes == []
    data = yaml.safe_load((demo / "omerender.lock").read_text())
    revision = data["inferenceServices"][KEY]["revision"]
    assert revision != pinned and data["revisions"][revision]["spec"]["engineConfig"]["runner"]["image"] == NEW_IMAGE


def _locked(tree: Path) -> str:
    outcome = lock(tree)
    assert outcome.verdict is Verdict.OK, said(outcome)
    return (tree / "omerender.lock").read_text()
