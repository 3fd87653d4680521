"""Every route takes what build takes: model metadata by option, Argo CD parameter, KRM key and the
repository's .omerender.yaml; paths given to the plugin or the function stay inside the repository."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from gitops_helpers import FIXTURE, Proc, argocd_generate, env_with_omerender, krm_with, objects, omerender, run

META = """models:
  llama-3-2-3b-instruct:
    modelFormat: {name: safetensors, version: "1.0.0"}
    modelFramework: {name: transformers, version: "4.45.0.dev0"}
    modelArchitecture: LlamaForCausalLM
    modelParameterSize: 3B
"""
NEEDS_METADATA = "model format name is required"
OUTSIDE = "stay inside the repository"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose InferenceService relies on auto-selection with a model the agent has not filled in."""
    root = tmp_path / "repo"
    app = root / "apps" / "llama"
    app.mkdir(parents=True)
    (root / ".git").mkdir()
    flat = omerender("build", str(FIXTURE), "--emit", "flattened")
    assert flat.code == 0, flat
    runtime = next(d for d in objects(flat.out) if d["kind"] == "ServingRuntime")
    for entry in runtime["spec"]["supportedModelFormats"]:
        entry["autoSelect"] = True
    (app / "runtime.yaml").write_text(yaml.safe_dump(runtime))
    model = yaml.safe_load((FIXTURE / "model.yaml").read_text())
    for key in ("modelFormat", "modelFramework", "modelArchitecture", "modelParameterSize"):
        del model["spec"][key]
    (app / "model.yaml").write_text(yaml.safe_dump(model))
    isvc = yaml.safe_load((FIXTURE / "isvc.yaml").read_text())
    del isvc["spec"]["runtime"]
    (app / "isvc.yaml").write_text(yaml.safe_dump(isvc))
    (root / "ci").mkdir()
    (root / "ci" / "meta.yaml").write_text(META)
    return root


def _generate(app: Path, **parameters: object) -> Proc:
    entries = [
        {"name": k.replace("_", "-"), ("array" if isinstance(v, list) else "string"): v} for k, v in parameters.items()
    ]
    return argocd_generate(app, entries, namespace="llama-demo")


def _deployments(proc: Proc) -> list[str]:
    return [d["metadata"]["name"] for d in objects(proc.out) if d["kind"] == "Deployment"]


def test_argocd_renders_with_the_model_metadata_parameter(repo: Path) -> None:
    app = repo / "apps" / "llama"
    without = _generate(app)
    assert without.code == 1 and without.out == "" and NEEDS_METADATA in without.err, without
    done = _generate(app, model_metadata="../../ci/meta.yaml")
    assert done.code == 0, done
    assert _deployments(done) == ["llama-3-2-3b-instruct-engine"]


@pytest.mark.parametrize("where", ["/etc", "../../..", "../../../repo-b/platform"])
def test_argocd_refuses_paths_out_of_the_repository(repo: Path, where: str) -> None:
    for parameters in ({"search_path": [where]}, {"model_metadata": where}, {"search_paths": [where]}):
        proc = _generate(repo / "apps" / "llama", **parameters)
        assert proc.code == 2 and proc.out == "" and OUTSIDE in proc.err, proc  # a settings error
    proc = _generate(repo / "apps" / "llama", search_path=["../../ci"])  # inside: read
    assert proc.code == 1 and OUTSIDE not in proc.err and NEEDS_METADATA in proc.err, proc


def test_the_settings_file_serves_build_and_argocd_and_a_flag_wins(repo: Path) -> None:
    (repo / ".omerender.yaml").write_text("model-metadata: ci/meta.yaml\n")
    built = omerender("build", ".", cwd=repo)
    assert built.code == 0, built
    assert _deployments(built) == ["llama-3-2-3b-instruct-engine"]
    generated = _generate(repo / "apps" / "llama")
    assert generated.code == 0 and objects(generated.out) == objects(built.out), generated
    (repo / "ci" / "wrong.yaml").write_text(META.replace("LlamaForCausalLM", "MistralForCausalLM"))
    overridden = omerender("build", ".", "--model-metadata", "ci/wrong.yaml", cwd=repo)
    assert overridden.code == 1 and "MistralForCausalLM" in overridden.err, overridden
    by_env = omerender("build", ".", cwd=repo, env=env_with_omerender({"OMERENDER_MODEL_METADATA": "ci/wrong.yaml"}))
    assert by_env.code == 1 and "MistralForCausalLM" in by_env.err, by_env
    told = omerender("build", ".", "-v", cwd=repo)
    assert "omerender: setting model-metadata = ci/meta.yaml (file)" in told.err, told


def test_an_unknown_key_in_the_settings_file_is_a_located_error(repo: Path) -> None:
    (repo / ".omerender.yaml").write_text("model-metadata: ci/meta.yaml\nmodel-metdata: x\n")
    proc = omerender("build", ".", cwd=repo)
    assert proc.code == 2 and proc.out == "", proc  # a settings error, as the same mistake in a flag
    assert proc.err.startswith(".omerender.yaml:2:1: error: [settings] unknown setting 'model-metdata'"), proc


def test_an_absolute_path_in_the_settings_file_is_refused_by_argocd(repo: Path) -> None:
    (repo / ".omerender.yaml").write_text(f"model-metadata: {repo / 'ci' / 'meta.yaml'}\n")
    assert omerender("build", ".", cwd=repo).code == 0  # on the command line a path inside the repository is fine
    proc = _generate(repo / "apps" / "llama")
    assert proc.code == 2 and OUTSIDE in proc.err, proc  # a settings error


def test_krm_takes_model_metadata_and_the_settings_file(repo: Path) -> None:
    spec: dict[str, object] = {"paths": ["apps"], "emit": ["rendered"]}
    assert NEEDS_METADATA in krm_with(repo, spec).err
    done = krm_with(repo, {**spec, "modelMetadata": "ci/meta.yaml"})
    assert done.code == 0 and _deployments(done) == ["llama-3-2-3b-instruct-engine"], done
    (repo / ".omerender.yaml").write_text("model-metadata: ci/meta.yaml\n")
    from_file = krm_with(repo, spec)
    assert from_file.code == 0 and objects(from_file.out) == objects(done.out), from_file
    for outside in ({"paths": ["../.."]}, {"modelMetadata": "/etc/hostname"}, {"searchPath": ["../x"]}):
        proc = krm_with(repo, {**spec, **outside})
        assert proc.code == 2 and OUTSIDE in proc.err, proc  # a settings error


def test_a_shipped_overlay_named_in_the_settings_file_is_no_path(repo: Path) -> None:
    # from an application folder below the settings file, ome:v0.1.5 was read as the file ../../ome:v0.1.5
    (repo / ".omerender.yaml").write_text("model-metadata: ome:v0.1.5\n")
    generated = _generate(repo / "apps" / "llama")
    assert generated.code == 0, generated
    assert _deployments(generated) == ["llama-3-2-3b-instruct-engine"]
    built = omerender("build", ".", cwd=repo / "apps" / "llama")
    assert built.code == 0 and objects(built.out) == objects(generated.out), built


def test_an_application_at_a_searched_folder_emits_it(repo: Path) -> None:
    # the platform's own Argo CD application (its profiles) lies in the folder .omerender.yaml searches for the
    # teams' applications: named as the PATH, it is emitted, and status lists it
    platform = repo / "platform"
    platform.mkdir()
    (platform / "profile.yaml").write_text((FIXTURE / "profile.yaml").read_text())
    (repo / ".omerender.yaml").write_text("search-path: [platform]\n")
    env = {"ARGOCD_APP_SOURCE_PATH": "platform", "ARGOCD_APP_NAMESPACE": "ome"}
    generated = run(["omerender", "argocd-generate"], cwd=platform, env=env_with_omerender(env))
    assert generated.code == 0, generated
    assert [d["metadata"]["name"] for d in objects(generated.out)] == ["sglang-profile"]
    status = omerender("status", ".", cwd=platform)
    assert status.code == 0 and "sglang-profile" in status.out, status


def test_krm_reads_its_search_path(repo: Path) -> None:
    # the profile lies in a searched folder, as .omerender.yaml names it for every route: KRM read paths only
    app = repo / "apps" / "llama"
    (repo / "platform").mkdir()
    (repo / "platform" / "profile.yaml").write_text((FIXTURE / "profile.yaml").read_text())
    (app / "runtime.yaml").write_text((FIXTURE / "runtime.yaml").read_text())
    for name in ("model.yaml", "isvc.yaml"):
        (app / name).write_text((FIXTURE / name).read_text())
    spec: dict[str, object] = {"paths": ["apps"], "emit": ["rendered"]}
    assert "ParentNotFound" in krm_with(repo, spec).err
    done = krm_with(repo, {**spec, "searchPath": ["platform"]})
    assert done.code == 0 and _deployments(done) == ["llama-3-2-3b-instruct-engine"], done
    (repo / ".omerender.yaml").write_text("search-path: [platform]\n")
    from_file = krm_with(repo, spec)
    assert from_file.code == 0 and objects(from_file.out) == objects(done.out), from_file


def test_krm_warns_on_a_broken_search_path_runtime_no_app_uses(repo: Path) -> None:
    # issue 33: as build, the function's output does not stop at a runtime OME alone would refuse
    app = repo / "apps" / "llama"
    (repo / "platform").mkdir()
    (repo / "platform" / "profile.yaml").write_text((FIXTURE / "profile.yaml").read_text())
    (repo / "platform" / "broken.yaml").write_text(
        "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: orphan\n  annotations:\n"
        "    ome.io/inherit-from: nowhere\nspec: {}\n"
    )
    for name in ("runtime.yaml", "model.yaml", "isvc.yaml"):
        (app / name).write_text((FIXTURE / name).read_text())
    spec: dict[str, object] = {"paths": ["apps"], "emit": ["rendered"], "searchPath": ["platform"]}
    done = krm_with(repo, spec)
    assert done.code == 0 and _deployments(done) == ["llama-3-2-3b-instruct-engine"], done
    assert "platform/broken.yaml:6:26: warning: [ParentNotFound]" in done.err
    isvc = app / "isvc.yaml"
    isvc.write_text(isvc.read_text().replace("name: sglang-llama-3-2-3b", "name: orphan"))
    used = krm_with(repo, spec)
    assert used.code == 1 and "platform/broken.yaml:6:26: error: [ParentNotFound]" in used.err, used
