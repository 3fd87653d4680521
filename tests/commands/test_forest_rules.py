"""``commands.forest`` (``tree`` and ``graph``): the selection a ``View`` makes and its usage problems."""

from __future__ import annotations

from pathlib import Path

from demo_trees import NS
from use_cases import forest

from omerender.commands import request as request_rules
from omerender.commands.forest import ForestRequest, View
from omerender.commands.outcome import Verdict
from omerender.forest.model import ISVC
from omerender.settings import Settings


def _names(outcome) -> list[str]:
    assert outcome.payload is not None
    return sorted(n.name for n in outcome.payload.nodes.values())


def test_the_whole_forest_and_a_broken_one_fails(demo: Path) -> None:
    whole = forest(demo)
    assert whole.verdict is Verdict.OK and len(whole.builds) == 1
    assert _names(whole) == ["llama-3-2-3b-instruct", "sglang-llama-3-2-3b", "sglang-profile"]
    (demo / "profile.yaml").unlink()
    broken = forest(demo)
    assert broken.verdict is Verdict.FINDINGS and broken.payload is not None and broken.payload.broken()
    # a runtime whose breakage is spared (only a search path holds it, nothing under the PATHs uses it) does not
    # count, its broken link neither; any other key leaves the forest broken
    assert not broken.payload.broken(frozenset({"ServingRuntime/llama-demo/sglang-llama-3-2-3b"}))
    assert broken.payload.broken(frozenset({"llama-demo/llama-3-2-3b-instruct"}))


def test_runtime_and_isvc_together_are_refused_before_anything_is_read(tmp_path: Path) -> None:
    outcome = forest(tmp_path / "absent", View(runtime="a", isvc="b"))
    assert outcome.verdict is Verdict.USAGE and outcome.builds == () and outcome.payload is None
    assert outcome.problem is not None and outcome.problem.message == "give --runtime or --isvc, not both"


def test_a_runtime_not_there_names_the_namespaces_that_hold_it(demo: Path) -> None:
    outcome = forest(demo, View(runtime="sglang-llama-3-2-3b"))  # in the default namespace
    assert outcome.verdict is Verdict.USAGE and outcome.payload is None and len(outcome.builds) == 1
    assert outcome.problem is not None and outcome.problem.option == "--runtime"
    assert outcome.problem.message == (
        f"no runtime sglang-llama-3-2-3b (namespace default); it exists in namespace {NS}: pass -n {NS} "
        f"(or write {NS}/sglang-llama-3-2-3b)"
    )
    qualified = forest(demo, View(runtime="other/sglang-llama-3-2-3b"))
    assert qualified.problem is not None
    assert qualified.problem.message == "no runtime other/sglang-llama-3-2-3b (namespace default)"


def test_an_inference_service_not_there_is_a_usage_problem(demo: Path) -> None:
    outcome = forest(demo, View(isvc="nope"), namespace=NS)
    assert outcome.problem is not None and outcome.problem.option == "--isvc"
    assert outcome.problem.message == f"no InferenceService nope (namespace {NS})"


def test_subtree_chain_used_only_and_counts(demo: Path) -> None:
    assert _names(forest(demo, View(runtime="sglang-llama-3-2-3b"), namespace=NS)) == [
        "llama-3-2-3b-instruct",
        "sglang-llama-3-2-3b",
    ]
    assert _names(forest(demo, View(isvc=f"{NS}/llama-3-2-3b-instruct"))) == [
        "llama-3-2-3b-instruct",
        "sglang-llama-3-2-3b",
        "sglang-profile",
    ]
    (demo / "unused.yaml").write_text(
        (demo / "runtime.yaml").read_text().replace("name: sglang-llama-3-2-3b\n", "name: unused\n", 1)
    )
    assert "unused" in _names(forest(demo)) and "unused" not in _names(forest(demo, View(used_only=True)))
    counted = forest(demo, View(collapse_isvcs=True))
    assert counted.payload is not None
    assert not [n for n in counted.payload.nodes.values() if n.kind == ISVC]
    assert [n.count for n in counted.payload.nodes.values() if n.count] == [1]


def test_the_build_skips_the_schema_check_and_parses_with_every_core(monkeypatch, demo: Path) -> None:
    monkeypatch.setattr(request_rules, "cores", lambda: 5)
    made = ForestRequest.from_settings(Settings(kube_version="1.33"), [str(demo)])
    assert made.options.kube_version is None  # the forest's shape does not depend on it
    assert made.options.parse_jobs == 5
