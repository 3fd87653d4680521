"""``build``'s rules through its use case: ``run(request)`` and ``deliver``, no CLI in between."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from omerender.commands.build import BuildRequest, deliver, run
from omerender.commands.outcome import Level, Verdict
from omerender.fanout import Workers
from omerender.output.prerendered import PrerenderedBuild
from omerender.result import BuildResult
from omerender.settings import Settings

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo"
ISVC = "llama-3-2-3b-instruct"


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    target = tmp_path / "demo"
    shutil.copytree(DEMO, target)
    return target


def _twins(demo: Path) -> Path:
    """The example with a second InferenceService, so that two workers have one each."""
    text = (demo / "isvc.yaml").read_text(encoding="utf-8")
    (demo / "isvc-2.yaml").write_text(text.replace(f"name: {ISVC}\n  namespace", f"name: {ISVC}-2\n  namespace"))
    return demo


def _text(request: BuildRequest) -> bytes:
    outcome = run(request)
    assert outcome.payload is not None and outcome.verdict is Verdict.OK, outcome.diagnostics
    pieces = deliver(request, outcome.payload, "omerender build").payload
    assert pieces is not None
    return b"".join(p.encode() if isinstance(p, str) else p for p in pieces)


def test_a_build_renders_and_selects_the_objects_of_its_paths(demo: Path) -> None:
    request = BuildRequest.from_settings(Settings(jobs=1), [str(demo)])
    assert (
        request.problem is None
        and request.workers is None
        and request.options.lock_file == str(demo / "omerender.lock")
    )
    outcome = run(request)
    assert outcome.verdict is Verdict.OK and outcome.payload is not None
    built = outcome.payload
    assert isinstance(built.result, BuildResult) and outcome.builds == (built.result,)
    assert [o["kind"] for o in built.selection.objects][:1] == ["Deployment"]
    assert all(d.severity != "error" for d in outcome.diagnostics)
    docs = list(yaml.safe_load_all(_text(request)))
    assert [d["kind"] for d in docs] == [o["kind"] for o in built.selection.objects]


def test_an_error_in_the_inputs_is_a_finding(demo: Path) -> None:
    runtime = demo / "runtime.yaml"
    runtime.write_text(
        runtime.read_text(encoding="utf-8").replace("inherit-from: sglang-profile", "inherit-from: gone")
    )
    outcome = run(BuildRequest.from_settings(Settings(), [str(demo)]))
    assert outcome.verdict is Verdict.FINDINGS
    assert any(d.severity == "error" and d.path.endswith("runtime.yaml") for d in outcome.diagnostics)


def test_what_only_a_search_path_holds_resolves_but_is_not_emitted(demo: Path, tmp_path: Path) -> None:
    platform = tmp_path / "platform"
    platform.mkdir()
    shutil.move(demo / "profile.yaml", platform / "profile.yaml")
    settings = Settings(search_path=(str(platform),), emit=("inputs",))
    outcome = run(BuildRequest.from_settings(settings, [str(demo)]))
    assert outcome.verdict is Verdict.OK and outcome.payload is not None
    names = [o["metadata"]["name"] for o in outcome.payload.selection.objects]
    assert "sglang-profile" not in names and "sglang-llama-3-2-3b" in names


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (Settings(output_dir="out", output="json"), "--output-dir writes one YAML file per object; -o json is for"),
        (Settings(kustomization=True), "--kustomization needs --output-dir"),
        (Settings(emit=("inputs", "flattened")), "--emit inputs and --emit flattened both emit the OME objects"),
    ],
)
def test_delivery_settings_that_cannot_work_stop_the_build(settings: Settings, message: str, demo: Path) -> None:
    request = BuildRequest.from_settings(settings, [str(demo)])
    assert request.problem is not None and request.problem.message.startswith(message)
    assert request.notes == ()
    refused = run(request)
    assert refused.verdict is Verdict.USAGE and refused.payload is None
    assert [n.level for n in refused.notes] == [Level.ERROR]


def test_an_output_inside_the_inputs_is_refused_unless_allowed(demo: Path) -> None:
    inside = Settings(output_dir=str(demo / "out"))
    found = BuildRequest.from_settings(inside, [str(demo)]).problem
    assert found is not None and "is inside the input path" in found.message
    assert BuildRequest.from_settings(Settings(status_file=str(demo / "s.yaml")), [str(demo)]).problem is not None
    checked = Settings(output_dir=str(demo / "out"), check=True)  # --check writes nothing there
    assert BuildRequest.from_settings(checked, [str(demo)]).problem is None
    allowed = Settings(output_dir=str(demo / "out"), allow_output_in_input=True)
    assert BuildRequest.from_settings(allowed, [str(demo)]).problem is None


def test_a_bad_kube_version_names_where_it_came_from(demo: Path) -> None:
    found = BuildRequest.from_settings(Settings(kube_version="banana"), [str(demo)], kube_label="KUBE_VERSION")
    assert found.problem is not None and found.problem.option == "KUBE_VERSION"
    assert BuildRequest.from_settings(Settings(kube_version="none"), [str(demo)]).options.kube_version is None


def test_workers_hand_back_stand_ins_that_print_the_same_bytes(demo: Path) -> None:
    tree = str(_twins(demo))
    alone = BuildRequest.from_settings(Settings(jobs=1), [tree])
    forked = BuildRequest.from_settings(Settings(jobs=2), [tree])
    assert forked.workers == Workers(2, 2)
    outcome = run(forked)
    assert outcome.payload is not None and isinstance(outcome.payload.result, PrerenderedBuild)
    assert isinstance(run(alone).payload.result, BuildResult)  # type: ignore[union-attr]
    assert _text(forked) == _text(alone)


def test_deliver_writes_the_folder_and_check_says_what_differs(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    written = BuildRequest.from_settings(
        Settings(output_dir=str(out), status_file=str(tmp_path / "s.json")), [str(demo)]
    )
    outcome = run(written)
    assert outcome.payload is not None
    delivered = deliver(written, outcome.payload, "omerender build")
    assert delivered.verdict is Verdict.OK and delivered.notes == [] and delivered.payload is None
    assert (out / "llama-demo" / f"deployment-{ISVC}-engine.yaml").is_file()
    assert '"kind": "List"' in (tmp_path / "s.json").read_text(encoding="utf-8")
    (out / "llama-demo" / f"deployment-{ISVC}-engine.yaml").write_text("changed\n")
    checked = BuildRequest.from_settings(Settings(output_dir=str(out), check=True), [str(demo)])
    again = run(checked)
    assert again.payload is not None
    verdict = deliver(checked, again.payload, "omerender build --output-dir out")
    assert verdict.verdict is Verdict.FINDINGS and verdict.payload is None
    (note,) = verdict.notes
    assert note.line().startswith(f"omerender: {out} is out of date: 1 file(s) differ; to regenerate it, run:\n")
    assert "  omerender build --output-dir out\n" in note.text and "-changed\n" in note.text


def test_an_empty_selection_fails_under_fail_empty(demo: Path) -> None:
    request = BuildRequest.from_settings(Settings(emit=("passthrough",), fail_empty=True), [str(demo)])
    outcome = run(request)
    assert outcome.verdict is Verdict.OK and outcome.payload is not None
    delivered = deliver(request, outcome.payload, "omerender build")
    assert delivered.verdict is Verdict.FINDINGS and delivered.payload is None
    assert [n.level for n in delivered.notes] == [Level.ERROR]
    assert "nothing was emitted (--emit passthrough)" in delivered.notes[0].text


def test_check_without_a_folder_prints_nothing(demo: Path) -> None:
    request = BuildRequest.from_settings(Settings(check=True), [str(demo)])
    outcome = run(request)
    assert outcome.payload is not None
    assert deliver(request, outcome.payload, "omerender build").payload is None
