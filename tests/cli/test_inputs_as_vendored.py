"""Inputs as a repository holds them: kustomize folders, settings files inside input folders, the lock's place."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from omerender.lifecycle.lock import default_path

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo"
FILES = sorted(p.name for p in FIXTURE.glob("*.yaml"))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "repo" / "manifests")
    return tmp_path / "repo"


def _kustomization(folder: Path, text: str) -> None:
    (folder / "kustomization.yaml").write_text(text, encoding="utf-8")


def test_a_kustomize_folder_reads_only_what_it_lists(run_cli, repo: Path) -> None:
    manifests = repo / "manifests"
    (manifests / "stray.yaml").write_text((manifests / "runtime.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    whole = run_cli("build", str(manifests))
    assert whole.exit_code == 1 and "duplicate-object" in whole.stderr, whole
    _kustomization(manifests, f"resources: [{', '.join(FILES)}]\n")
    listed = run_cli("build", str(manifests))
    assert listed.exit_code == 0, listed
    assert listed.stdout == run_cli("build", str(FIXTURE)).stdout


def test_nested_kustomizations_are_followed(run_cli, repo: Path) -> None:
    manifests = repo / "manifests"
    (manifests / "models").mkdir()
    shutil.move(manifests / "model.yaml", manifests / "models" / "model.yaml")
    _kustomization(manifests / "models", "resources:\n- model.yaml\n")
    _kustomization(manifests, "resources:\n" + "".join(f"- {f}\n" for f in FILES if f != "model.yaml") + "- models\n")
    assert run_cli("build", str(manifests)).stdout == run_cli("build", str(FIXTURE)).stdout


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ("resources: [runtime.yaml]\npatches:\n- path: p.yaml\n", 2, "'patches' is not applied"),
        ("resources: [runtime.yaml]\nnamePrefix: team-\n", 2, "'namePrefix' is not applied"),
        ("commonLabels: {a: b}\nresources: [runtime.yaml]\n", 1, "'commonLabels' is not applied"),
        ("resources: [runtime.yaml]\nimages:\n- name: x\n  newTag: v2\n", 2, "'images' is not applied"),
        ("resources: [runtime.yaml]\nconfigMapGenerator:\n- name: c\n", 2, "'configMapGenerator' is not applied"),
        ("resources:\n- runtime.yaml\n- https://github.com/sgl-project/ome//config/runtimes\n", 3, "remote resource"),
        ("resources:\n- github.com/sgl-project/ome/config/runtimes?ref=main\n", 2, "remote resource"),
        ("resources:\n- ../../outside.yaml\n", 2, "outside the input paths"),
        ("resources:\n- missing.yaml\n", 2, "no such file"),
    ],
)
def test_what_omerender_does_not_apply_is_refused_where_written(
    run_cli, repo: Path, text: str, line: int, says: str
) -> None:
    manifests = repo / "manifests"
    _kustomization(manifests, text)
    proc = run_cli("build", str(manifests))
    assert proc.exit_code == 1, proc
    assert f"{manifests.as_posix()}/kustomization.yaml:{line}:" in proc.stderr, proc.stderr
    assert "[kustomization]" in proc.stderr and says in proc.stderr, proc.stderr
    assert proc.stdout == ""


def test_a_kustomization_cycle_is_an_error_not_a_loop(run_cli, repo: Path) -> None:
    for name, other in (("a", "b"), ("b", "a")):
        (repo / name).mkdir()
        _kustomization(repo / name, f"resources: [../{other}]\n")
    proc = run_cli("build", str(repo))
    assert proc.exit_code == 1 and "kustomization cycle" in proc.stderr, proc


def test_a_folder_without_kustomization_listed_is_refused(run_cli, repo: Path) -> None:
    (repo / "manifests" / "sub").mkdir()
    _kustomization(repo / "manifests", "resources: [sub]\n")
    proc = run_cli("build", str(repo / "manifests"))
    assert proc.exit_code == 1 and "without a kustomization.yaml" in proc.stderr, proc


@pytest.mark.parametrize("option", ["--model-metadata", "--controller-config", "--lock-file"])
def test_a_settings_file_inside_an_input_folder_is_not_a_manifest(run_cli, repo: Path, option: str) -> None:
    (repo / "ci").mkdir()
    settings = repo / "ci" / "settings.yaml"
    if option == "--model-metadata":
        settings.write_text("models:\n  llama-3-2-3b-instruct:\n    modelArchitecture: LlamaForCausalLM\n")
    elif option == "--controller-config":
        settings.write_text(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: inferenceservice-config, namespace: ome}\ndata: {}\n"
        )
    else:
        settings.write_text("# not written yet\n")
    proc = run_cli("build", option, str(settings), str(repo))
    assert proc.exit_code == 0, proc
    assert "missing-kind" not in proc.stderr and "ci/settings.yaml" not in proc.stderr.replace("overlay", ""), proc


def test_the_lock_does_not_depend_on_the_order_of_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # restored after the test: other tests read fixtures/ relative to the repository
    (tmp_path / "apps").mkdir()
    (tmp_path / "platform" / "runtimes").mkdir(parents=True)
    assert default_path(["apps", "platform"]) == default_path(["platform", "apps"]) == "omerender.lock"
    assert default_path(["platform/runtimes", "platform"]) == str(Path("platform") / "omerender.lock")
    assert default_path(["apps"]) == str(Path("apps") / "omerender.lock")
    assert default_path(["apps/isvc.yaml"]) == str(Path("apps") / "omerender.lock")
    assert default_path(["-"]) == "omerender.lock"


def test_build_reads_one_lock_whatever_the_order(run_cli, repo: Path) -> None:
    platform = repo / "platform"
    platform.mkdir()
    shutil.move(repo / "manifests" / "profile.yaml", platform / "profile.yaml")
    apps = repo / "manifests"
    (repo / "omerender.lock").write_text("not: [a lock\n", encoding="utf-8")  # read, so its error shows
    one = run_cli("build", str(apps), str(platform))
    two = run_cli("build", str(platform), str(apps))
    assert one.exit_code == two.exit_code == 1, (one, two)
    assert one.stderr == two.stderr and "omerender.lock" in one.stderr


def test_selection_the_cluster_decides_is_a_warning_when_nothing_rendered_is_emitted(run_cli, repo: Path) -> None:
    manifests = repo / "manifests"
    model = (manifests / "model.yaml").read_text(encoding="utf-8")
    kept = [line for line in model.splitlines() if not line.startswith(("  modelF", "    name", "    version"))]
    (manifests / "model.yaml").write_text("\n".join(kept) + "\n", encoding="utf-8")
    isvc = (manifests / "isvc.yaml").read_text(encoding="utf-8")
    (manifests / "isvc.yaml").write_text(isvc.replace("  runtime:\n    name: sglang-llama-3-2-3b\n", ""), "utf-8")
    rendered = run_cli("build", str(manifests))
    assert rendered.exit_code == 1 and "error: [RuntimeSelectionError]" in rendered.stderr, rendered
    for emit in (("inputs",), ("passthrough",), ("inputs", "passthrough")):
        args = [a for kind in emit for a in ("--emit", kind)]
        proc = run_cli("build", str(manifests), *args)
        assert proc.exit_code == 0, proc
        assert "warning: [RuntimeSelectionError]" in proc.stderr and "--model-metadata" in proc.stderr, proc


def test_bases_are_read_as_resources_are(run_cli, repo: Path) -> None:
    manifests = repo / "manifests"
    (manifests / "models").mkdir()
    shutil.move(manifests / "model.yaml", manifests / "models" / "model.yaml")
    _kustomization(manifests / "models", "resources: [model.yaml]\n")
    _kustomization(manifests, f"resources: [{', '.join(f for f in FILES if f != 'model.yaml')}]\nbases: [models]\n")
    assert run_cli("build", str(manifests)).stdout == run_cli("build", str(FIXTURE)).stdout
