"""--controller-config is one shared option, accepted by every command whose result it can change (issue 12)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

CASES = Path(__file__).resolve().parents[1] / "cases"
BAD = """apiVersion: v1
kind: ConfigMap
metadata: {name: inferenceservice-config, namespace: ome}
data:
  deploy: '{"defaultDeploymentMode": ""}'
"""
MESSAGE = "error: [controller-config] invalid deploy config, defaultDeploymentMode is required"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    shutil.copytree(CASES / "fidelity-empty-resources" / "input", tmp_path / "in")
    (tmp_path / "config.yaml").write_text(BAD, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    "args",
    [
        ("build", "in"),
        ("status", "in"),
        ("effective", "chat", "-n", "team-a", "in"),
        ("lock", "--check", "in"),
    ],
)
def test_every_command_reads_the_controller_config(run_cli, tree: Path, monkeypatch, args: tuple[str, ...]) -> None:
    monkeypatch.chdir(tree)
    result = run_cli(*args, "--controller-config", "config.yaml")
    assert result.exit_code == 1, result
    assert f"config.yaml:5:11: {MESSAGE}" in result.stderr


def test_diff_reports_a_bad_controller_config_as_an_error(run_cli, tree: Path, monkeypatch) -> None:
    monkeypatch.chdir(tree)
    result = run_cli("diff", "in", "in", "--controller-config", "config.yaml")
    assert result.exit_code == 4, result  # neither tree builds with that configuration
    assert MESSAGE in result.stderr


def test_a_file_without_the_configmap_is_an_error(run_cli, tree: Path, monkeypatch) -> None:
    monkeypatch.chdir(tree)
    result = run_cli("build", "in", "--controller-config", "in/model.yaml")
    assert result.exit_code == 1 and result.stdout == ""
    assert (
        "in/model.yaml:1:1: error: [controller-config] --controller-config: no ConfigMap inferenceservice-config "
        "(namespace ome)" in (result.stderr)
    )


def test_a_configmap_in_another_namespace_is_not_the_controllers(run_cli, tree: Path, monkeypatch) -> None:
    monkeypatch.chdir(tree)
    (tree / "in" / "cm.yaml").write_text(BAD.replace("namespace: ome", "namespace: team-a"), encoding="utf-8")
    result = run_cli("build", "in")
    assert result.exit_code == 0, result
