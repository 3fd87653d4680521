"""Auto-selection that finds no runtime names the runtimes files a kustomization leaves out define that OME's
selection would pick (issue 33), with the file and the kustomization, through ``omerender build``; the files are
read only when a lookup misses."""

from __future__ import annotations

from pathlib import Path

import pytest

from omerender.load import unlisted
from omerender.load.obj import Obj
from omerender.load.unlisted import Unlisted
from omerender.selection import left_out

MODEL = """apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata:
  name: {name}
spec:
  modelFormat: {{name: safetensors, version: "1.0.0"}}
  modelFramework: {{name: transformers, version: "4.45.0"}}
  modelArchitecture: {arch}
  modelParameterSize: 8B
  storage: {{storageUri: "hf://x/{name}", path: /models/{name}}}
"""
RUNTIME = """apiVersion: ome.io/v1beta1
kind: {kind}
metadata:
  name: {name}{namespace}
spec:
  supportedModelFormats:
  - modelFormat: {{name: safetensors, version: "1.0.0"}}
    modelFramework: {{name: transformers, version: "4.45.0"}}
    modelArchitecture: {arch}
    autoSelect: {auto}
{extra}  engineConfig:
    runner: {{name: ome-container, image: "x:1", command: [serve]}}
"""
ISVC = """apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {{name: app, namespace: team}}
spec:
  model: {{name: {model}}}
  engine: {{}}
"""


def runtime(name: str, arch: str = "LlamaForCausalLM", *, kind: str = "ClusterServingRuntime", **more: str) -> str:
    namespace = f"\n  namespace: {more['namespace']}" if "namespace" in more else ""
    extra, auto = more.get("extra", ""), more.get("auto", "true")
    return RUNTIME.format(kind=kind, name=name, namespace=namespace, arch=arch, auto=auto, extra=extra)


@pytest.fixture
def repo(write_tree, tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return write_tree(
        {
            "platform/models/kustomization.yaml": "resources: [llama.yaml, qwen.yaml]\n",
            "platform/models/llama.yaml": MODEL.format(name="llama", arch="LlamaForCausalLM"),
            "platform/models/qwen.yaml": MODEL.format(name="qwen", arch="Qwen2ForCausalLM"),
            "platform/runtimes/kustomization.yaml": "resources: [qwen-rt.yaml]\n",
            "platform/runtimes/qwen-rt.yaml": runtime("qwen-rt", "Qwen2ForCausalLM"),
            "platform/runtimes/vendor/llama-rt.yaml": runtime("llama-rt"),
            "platform/runtimes/vendor/mistral-rt.yaml": runtime("mistral-rt", "MistralForCausalLM"),
        }
    )


def _build(run_cli, repo: Path, monkeypatch: pytest.MonkeyPatch, model: str, *extra: str):
    (repo / "apps").mkdir(exist_ok=True)
    (repo / "apps" / "app.yaml").write_text(ISVC.format(model=model), encoding="utf-8")
    monkeypatch.chdir(repo)
    return run_cli("build", "apps", "--search-path", "platform", *extra)


def _serving(name: str, path: str, kustomization: str = "platform/runtimes/kustomization.yaml") -> str:
    return (
        f"ClusterServingRuntime {name} in {path}:4 would serve it, but {kustomization} does not list {path} "
        "(resources:)"
    )


def test_a_runtime_an_unlisted_file_defines_that_selection_would_pick_is_named(run_cli, repo, monkeypatch) -> None:
    result = _build(run_cli, repo, monkeypatch, "llama")
    assert result.exit_code == 1
    (line,) = [line for line in result.stderr.splitlines() if "[RuntimeSelectionError]" in line]
    assert line.startswith("apps/app.yaml:5:3: error: [RuntimeSelectionError] OME's validating webhook refuses it:")
    assert line.endswith(
        "; " + _serving("llama-rt", "platform/runtimes/vendor/llama-rt.yaml") + "; add its file to that "
        "kustomization's resources"
    )
    assert "mistral-rt in" not in line  # excluded by OME's matching: another architecture


def test_a_selection_that_succeeds_reads_no_unlisted_file(run_cli, repo, monkeypatch) -> None:
    def refuse(*_args: object) -> None:
        raise AssertionError("an unlisted file was read")

    monkeypatch.setattr(unlisted, "unlisted_objects", refuse)
    result = _build(run_cli, repo, monkeypatch, "qwen")
    assert result.exit_code == 0, result.stderr
    assert "qwen-rt" in result.stdout  # rendered from the runtime selection picks


def test_no_unlisted_runtime_that_would_serve_it_keeps_the_message(run_cli, repo, monkeypatch) -> None:
    (repo / "platform/runtimes/vendor/llama-rt.yaml").write_text(runtime("llama-rt", auto="false"), encoding="utf-8")
    result = _build(run_cli, repo, monkeypatch, "llama")
    assert result.exit_code == 1
    assert "[RuntimeSelectionError]" in result.stderr
    assert "would serve it" not in result.stderr  # compatible, but not auto-selectable: OME would not pick it


def test_at_most_three_are_named_best_first(run_cli, repo, monkeypatch, write_tree) -> None:
    preferred = runtime("z-rt").replace("autoSelect: true", "autoSelect: true\n    priority: 5")  # scores first
    write_tree(
        {
            "platform/runtimes/vendor/a-rt.yaml": runtime("a-rt"),
            "platform/runtimes/vendor/b-rt.yaml": runtime("b-rt"),
            "platform/runtimes/vendor/z-rt.yaml": preferred,
            "platform/runtimes/vendor/c-rt.yaml": runtime("c-rt"),
        },
        repo,
    )
    result = _build(run_cli, repo, monkeypatch, "llama")
    (line,) = [line for line in result.stderr.splitlines() if "[RuntimeSelectionError]" in line]
    named = line.split("engine does not have complete runner configuration: ")[1].split("; ", 1)[1]
    assert named == (
        _serving("z-rt", "platform/runtimes/vendor/z-rt.yaml")
        + "; "
        + _serving("a-rt", "platform/runtimes/vendor/a-rt.yaml")
        + "; "
        + _serving("b-rt", "platform/runtimes/vendor/b-rt.yaml")
        + "; and 2 more; add its file to that kustomization's resources"
    )


@pytest.mark.parametrize(
    "text",
    [
        runtime("llama-rt", kind="ServingRuntime", namespace="elsewhere"),  # another namespace's
        runtime("qwen-rt"),  # a name the build holds: adding the file makes a duplicate
        runtime("llama-rt", extra='  disabled: "no"\n'),  # the API server refuses it: not a boolean
    ],
    ids=["other-namespace", "name-taken", "invalid"],
)
def test_what_the_build_could_not_use_is_not_offered(run_cli, repo, monkeypatch, text: str) -> None:
    (repo / "platform/runtimes/vendor/llama-rt.yaml").write_text(text, encoding="utf-8")
    result = _build(run_cli, repo, monkeypatch, "llama")
    assert result.exit_code == 1
    assert "[RuntimeSelectionError]" in result.stderr
    assert "would serve it" not in result.stderr


def test_a_namespaced_runtime_of_the_namespace_is_named(run_cli, repo, monkeypatch) -> None:
    text = runtime("team-rt", kind="ServingRuntime", namespace="team")
    (repo / "platform/runtimes/vendor/llama-rt.yaml").write_text(text, encoding="utf-8")
    result = _build(run_cli, repo, monkeypatch, "llama")
    assert (
        "ServingRuntime team-rt in platform/runtimes/vendor/llama-rt.yaml:4 would serve it, but "
        "platform/runtimes/kustomization.yaml does not list platform/runtimes/vendor/llama-rt.yaml (resources:)"
    ) in result.stderr


def test_a_runtime_the_matcher_would_crash_on_is_passed_over(run_cli, repo, monkeypatch, write_tree) -> None:
    # one-sided modelSizeRange: OME's matcher dereferences the missing bound
    write_tree({"platform/runtimes/vendor/crash.yaml": runtime("crash", extra="  modelSizeRange: {min: 1B}\n")}, repo)
    result = _build(run_cli, repo, monkeypatch, "llama")
    assert result.exit_code == 1
    assert _serving("llama-rt", "platform/runtimes/vendor/llama-rt.yaml") in result.stderr
    assert "crash in" not in result.stderr


def test_forked_workers_say_the_same(run_cli, repo, monkeypatch, write_tree) -> None:
    for n in range(4):
        write_tree({f"apps/app{n}.yaml": ISVC.format(model="llama").replace("name: app,", f"name: app{n},")}, repo)
    alone = _build(run_cli, repo, monkeypatch, "llama", "-j", "1")
    forked = _build(run_cli, repo, monkeypatch, "llama", "-j", "3")
    assert alone.stderr.count("would serve it") == 5
    assert (forked.exit_code, forked.stdout, forked.stderr) == (alone.exit_code, alone.stdout, alone.stderr)


def test_would_serve_is_empty_for_a_model_without_format() -> None:
    obj = Obj.__new__(Obj)
    assert left_out.would_serve([(obj, Unlisted("f.yaml", 4, "kustomization.yaml", obj))], {}, "team", ()) == ""
    assert left_out.would_serve([], {"modelFormat": {"name": "safetensors"}}, "team", ()) == ""
