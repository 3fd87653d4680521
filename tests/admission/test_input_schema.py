"""Every OME input object is checked against its CRD's schema, through the CLI, with file:line:col."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "fixtures" / "llama-demo"
OME = ROOT.parent / "shared" / "ome"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "in")
    monkeypatch.chdir(tmp_path)
    return tmp_path / "in"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_misspelled_field_is_a_warning_with_its_line_and_is_ignored(run_cli, tree: Path) -> None:
    clean = run_cli("build", "in").stdout
    _edit(tree / "runtime.yaml", "      args:\n", "      imagePullPolcy: Always\n      args:\n")
    result = run_cli("build", "in", "--validate=warn")
    assert result.exit_code == 0
    assert result.stderr == (
        "in/runtime.yaml:26:7: warning: [unknown-field] ServingRuntime sglang-llama-3-2-3b: unknown field "
        '"spec.engineConfig.runner.imagePullPolcy" '
        "(kubectl apply rejects it by default; the API server drops it when field validation is off)\n"
    )
    assert result.stdout == clean  # pruned, as the API server prunes it


def test_unknown_fields_are_errors_by_default_and_silent_when_ignored(run_cli, tree: Path) -> None:
    clean = run_cli("build", "in").stdout
    _edit(tree / "runtime.yaml", "      args:\n", "      imagePullPolcy: Always\n      args:\n")
    strict = run_cli("build", "in")
    assert (strict.exit_code, strict.stdout) == (1, "")
    assert strict.stderr.startswith(
        "in/runtime.yaml:26:7: error: [unknown-field] ServingRuntime sglang-llama-3-2-3b: unknown field"
    )
    ignored = run_cli("build", "in", "--validate=ignore")
    assert (ignored.exit_code, ignored.stderr, ignored.stdout) == (0, "", clean)


def test_strict_makes_unknown_fields_errors(run_cli, tree: Path) -> None:
    _edit(tree / "profile.yaml", "  engineConfig:\n", "  engineConfg:\n    x: 1\n  engineConfig:\n")
    result = run_cli("build", "in", "--strict", "--report-format", "json")
    assert result.exit_code == 1 and result.stdout == ""
    [finding] = json.loads(result.stderr)["diagnostics"]
    assert (
        finding["path"],
        finding["line"],
        finding["column"],
        finding["severity"],
        finding["code"],
        finding["jsonPath"],
    ) == (
        "in/profile.yaml",
        10,
        3,
        "error",
        "unknown-field",
        "$.spec.engineConfg",
    )
    status = run_cli("status", "in", "--strict")
    assert (
        status.exit_code == 1
        and "error: [unknown-field] ClusterServingRuntime sglang-profile: unknown field" in status.stderr
    )


def test_wrong_type_is_an_error_and_the_object_is_not_used(run_cli, tree: Path) -> None:
    _edit(tree / "runtime.yaml", "    min: 2B\n", "    min: 2\n")
    result = run_cli("build", "in")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.splitlines() == [
        "in/isvc.yaml:11:11: error: [RuntimeValidationError] Runtime sglang-llama-3-2-3b does not support model "
        "llama-3-2-3b-instruct: runtime sglang-llama-3-2-3b is invalid, so the API server would not store it: see its "
        "error at in/runtime.yaml:21:10",
        "in/runtime.yaml:21:10: error: [schema] ServingRuntime sglang-llama-3-2-3b: spec.modelSizeRange.min: 2 is not "
        "of type 'string'",
    ]


def test_invalid_object_names(run_cli, tree: Path) -> None:
    _edit(tree / "model.yaml", "  name: llama-3-2-3b-instruct\n", "  name: Llama_3.2\n")
    result = run_cli("status", "in")
    assert result.stderr.splitlines()[0] == (
        "in/model.yaml:5:9: error: [invalid-name] ClusterBaseModel Llama_3.2: metadata.name: Invalid value: "
        '"Llama_3.2": a lowercase RFC 1123 '
        "subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an "
        "alphanumeric "
        "character, at most 253 characters"
    )


def test_rendered_output_is_checked_against_kubernetes(run_cli, tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from omerender.render import components

    real = components.render_all

    def corrupt(ctx, universe):  # type: ignore[no-untyped-def]
        objects = real(ctx, universe)
        for obj in objects:
            if obj["kind"] == "Deployment":
                obj["spec"]["replicas"] = "two"
        return objects

    monkeypatch.setattr(components, "render_all", corrupt)
    result = run_cli("build", "in", "--kube-version", "1.33")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (
        "in/isvc.yaml:13:5: error: [kube-schema] rendered Deployment llama-3-2-3b-instruct-engine fails the Kubernetes "
        "1.33 schema: "
        "spec.replicas: 'two' is not of type 'integer', 'null'\n"
    )
    assert run_cli("build", "in", "--kube-version", "none").exit_code == 0


@pytest.mark.parametrize("version", ["banana", "2.0", "1", "1.x", "v1.29.1.2"])
def test_unknown_kube_version_is_a_usage_error(run_cli, tree: Path, version: str) -> None:
    result = run_cli("build", "in", "--kube-version", version)
    assert result.exit_code == 2 and "--kube-version" in result.stderr and "v1.31.1+k3s1" in result.stderr


@pytest.mark.parametrize("version", ["1.2", "1.24"])
def test_an_older_kube_version_is_checked_with_the_oldest_schemas(run_cli, tree: Path, version: str) -> None:
    """The rule of omerender.verify.kube_version, the same as Argo CD's KUBE_VERSION gets."""
    result = run_cli("build", "in", "--kube-version", version)
    assert result.exit_code == 0 and result.stdout, result
    assert (
        f"--kube-version {version}: Kubernetes {version} is older than any installed schemas; checking with 1.25"
        in (result.stderr)
    )


@pytest.mark.skipif(not OME.is_dir(), reason="../shared/ome (OME's corpus) is not present")
def test_ome_corpus_has_no_schema_findings(run_cli) -> None:
    """Every shipped runtime and model passes the generated schemas, even with --strict."""
    import yaml

    def count(folder: str, kind: str) -> int:
        docs = [
            d
            for p in sorted((OME / folder).rglob("*.yaml"))
            if p.name != "kustomization.yaml"
            for d in yaml.safe_load_all(p.read_text(encoding="utf-8"))
        ]
        return sum(1 for d in docs if isinstance(d, dict) and d.get("kind") == kind)

    every = [OME / "runtimes" / "srt", OME / "runtimes" / "vllm"]  # every file, past upstream's kustomizations
    every += sorted(p for p in (OME / "models").rglob("*.yaml") if p.name != "kustomization.yaml")
    result = run_cli("status", *map(str, every), "--strict", "--report-format", "json", "-o", "json")
    diagnostics = json.loads(result.stderr)["diagnostics"]
    # four runtime names are defined twice, and status shares build's runtime lints (the Cohere
    # chat template's {{); no schema finding at all
    assert sorted(d["code"] for d in diagnostics) == ["duplicate-object"] * 4 + ["runtime-template"]
    assert next(d["path"] for d in diagnostics if d["code"] == "runtime-template").endswith(
        "c4ai-command-r-v01-rt.yaml"
    )
    runtimes, models = count("runtimes", "ClusterServingRuntime"), count("models", "ClusterBaseModel")
    assert runtimes >= 200 and models >= 200
    assert len(json.loads(result.stdout)["items"]) == runtimes - 4
