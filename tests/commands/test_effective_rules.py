"""``commands.effective``: its four refusal rules and its verdict, through ``run()``."""

from __future__ import annotations

import shutil
from pathlib import Path

from demo_trees import ISVC, KEY, NS, replace
from use_cases import effective, said

from omerender.commands.outcome import Verdict


def test_an_answer_is_the_record_and_passes(demo: Path) -> None:
    outcome = effective(demo, ISVC, namespace=NS)
    assert outcome.verdict is Verdict.OK and outcome.payload is not None
    assert outcome.payload.isvc.name == ISVC and outcome.payload.chain == ("sglang-profile", "sglang-llama-3-2-3b")
    assert outcome.notes == [] and said(outcome) == "" and len(outcome.builds) == 1
    assert effective(demo, KEY).payload is not None  # NAMESPACE/NAME, whatever -n says


def test_an_input_that_cannot_be_read_refuses_the_answer(demo: Path) -> None:
    (demo / "broken.yaml").write_text("a: {b\n")
    outcome = effective(demo, ISVC, namespace=NS)
    assert outcome.verdict is Verdict.FINDINGS and outcome.payload is None
    assert [d.code for d in outcome.diagnostics if d.severity == "error"] == ["yaml-syntax"]
    assert [n.line() for n in outcome.notes] == [
        "omerender: 1 input error(s) above: the answer would come from a partial set of objects, so none is given"
    ]


def test_an_inference_service_that_cannot_be_resolved_is_refused_with_its_own_errors(demo: Path) -> None:
    (demo / "model.yaml").unlink()
    outcome = effective(demo, ISVC, namespace=NS)
    assert outcome.verdict is Verdict.FINDINGS and outcome.payload is None
    assert outcome.diagnostics and all(d.path == str(demo / "isvc.yaml") for d in outcome.diagnostics)
    [note] = outcome.notes
    assert note.text.startswith(f"InferenceService {KEY} ({demo / 'isvc.yaml'}:2) cannot be resolved")


def test_one_not_there_is_not_found_with_the_namespaces_that_hold_it(demo: Path) -> None:
    outcome = effective(demo, ISVC)  # in the default namespace
    assert outcome.verdict is Verdict.FINDINGS and outcome.payload is None
    assert said(outcome) == (
        f"omerender: InferenceService default/{ISVC} not found in {demo}\n"
        f"omerender: it exists in namespace {NS}: pass -n {NS} (or write {NS}/{ISVC})\n"
    )
    nowhere = effective(demo, "nope", namespace=NS)
    assert said(nowhere) == f"omerender: InferenceService {NS}/nope not found (or not valid) in {demo}\n"


def test_one_only_on_a_search_path_is_not_found(demo: Path, tmp_path: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    shutil.move(demo / "isvc.yaml", app / "isvc.yaml")
    shutil.copy(app / "isvc.yaml", demo / "isvc.yaml")
    replace(app / "isvc.yaml", f"  name: {ISVC}\n  namespace", "  name: mine\n  namespace")
    outcome = effective(app, ISVC, namespace=NS, search_path=(str(demo),))
    assert outcome.verdict is Verdict.FINDINGS and outcome.payload is None
    [note] = outcome.notes
    assert note.text == f"InferenceService {KEY} not found (only on a --search-path, {demo / 'isvc.yaml'}) in {app}"
    assert effective(app, "mine", namespace=NS, search_path=(str(demo),)).verdict is Verdict.OK


def test_what_the_api_server_would_not_store_refuses_the_answer(demo: Path) -> None:
    replace(demo / "profile.yaml", "      image:", "      imagee:")
    outcome = effective(demo, ISVC, namespace=NS)
    assert outcome.verdict is Verdict.FINDINGS and outcome.payload is None
    assert "unknown-field" in {d.code for d in outcome.diagnostics}
    [note] = outcome.notes
    assert note.text == (
        f"{KEY} depends on objects the API server would not store as written ({demo / 'profile.yaml'}:21): an answer "
        "without what they hold would be wrong, so none is given"
    )


def test_an_answer_where_nothing_renders_fails(demo: Path) -> None:
    assert effective(demo, ISVC, namespace=NS, lock_file=None).verdict is Verdict.OK
    (demo / "profile.yaml").unlink()  # the chain breaks: no revision renders, yet the record is the answer
    outcome = effective(demo, ISVC, namespace=NS)
    assert outcome.verdict is Verdict.FINDINGS and outcome.payload is not None and outcome.payload.revision is None
    assert outcome.notes == []
