"""``status``'s rules through its use case: ``run(request)``, no CLI in between."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from omerender.commands.outcome import Level, Verdict
from omerender.commands.status import StatusRequest, run
from omerender.settings import Settings

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo"


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    target = tmp_path / "demo"
    shutil.copytree(DEMO, target)
    return target


def _names(request: StatusRequest) -> list[str]:
    outcome = run(request)
    assert outcome.payload is not None
    return [item["metadata"]["name"] for item in outcome.payload.listing["items"]]


def test_status_lists_every_runtime_of_its_paths(demo: Path) -> None:
    request = StatusRequest.from_settings(Settings(), [str(demo)], stdin=lambda: b"")
    outcome = run(request)
    assert outcome.verdict is Verdict.OK and outcome.payload is not None
    assert _names(request) == ["sglang-profile", "sglang-llama-3-2-3b"]
    key = ("llama-demo", "ServingRuntime", "sglang-llama-3-2-3b")
    assert outcome.payload.sources[key] == f"{demo / 'runtime.yaml'}:2"  # the document's first line, after its comment


def test_a_runtime_only_a_search_path_holds_resolves_parents_but_is_not_listed(demo: Path, tmp_path: Path) -> None:
    platform = tmp_path / "platform"
    platform.mkdir()
    shutil.move(demo / "profile.yaml", platform / "profile.yaml")
    request = StatusRequest.from_settings(Settings(search_path=(str(platform),)), [str(demo)], stdin=lambda: b"")
    assert run(request).verdict is Verdict.OK
    assert _names(request) == ["sglang-llama-3-2-3b"]


def test_a_broken_chain_is_a_finding(demo: Path) -> None:
    (demo / "profile.yaml").unlink()
    outcome = run(StatusRequest.from_settings(Settings(), [str(demo)], stdin=lambda: b""))
    assert outcome.verdict is Verdict.FINDINGS and outcome.payload is not None
    (item,) = outcome.payload.listing["items"]
    assert item["status"]["conditions"][0]["reason"] == "ParentNotFound"


def test_a_bad_kube_version_stops_status_before_it_reads() -> None:
    request = StatusRequest.from_settings(Settings(kube_version="1.x"), ["nowhere"], stdin=lambda: b"")
    assert request.problem is not None and request.problem.option == "--kube-version"
    refused = run(request)
    assert refused.verdict is Verdict.USAGE and [n.level for n in refused.notes] == [Level.ERROR]
