"""`omerender build` on the spec's example: the container, determinism, inputs and outputs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml
from builders import main_container, only

from omerender import __version__

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo"


def test_spec_example_container(run_cli):
    result = run_cli("build", str(EXAMPLE))
    assert result.exit_code == 0, str(result)
    deployment = only(result.stdout, name="llama-3-2-3b-instruct-engine")
    assert deployment["metadata"]["namespace"] == "llama-demo"
    container = main_container(deployment)
    assert container["image"] == "docker.io/lmsysorg/sglang:v0.5.5.post3-cu129-amd64"
    assert container["command"] == [
        "python3",
        "-m",
        "sglang.launch_server",
        "--host=0.0.0.0",
        "--port=8080",
        "--model-path=$(MODEL_PATH)",
        "--served-model-name=llama-3-2-3b-instruct",
    ]
    assert container["args"] == ["--tp-size=1", "--mem-frac=0.9"]


def test_output_is_identical_across_runs_and_layouts(run_cli, tmp_path):
    first = run_cli("build", str(EXAMPLE)).stdout
    assert first == run_cli("build", str(EXAMPLE)).stdout
    # one file holding every document, in reverse order, under another directory structure
    texts = [p.read_text() for p in sorted(EXAMPLE.glob("*.yaml"), reverse=True)]
    (tmp_path / "deep" / "er").mkdir(parents=True)
    (tmp_path / "deep" / "er" / "all.yml").write_text("---\n".join(texts))
    assert run_cli("build", str(tmp_path)).stdout == first
    # split across two roots given in either order
    (tmp_path / "p").mkdir()
    (tmp_path / "q").mkdir()
    for i, path in enumerate(sorted(EXAMPLE.glob("*.yaml"))):
        shutil.copy(path, tmp_path / ("p" if i % 2 else "q") / path.name)
    assert run_cli("build", str(tmp_path / "q"), str(tmp_path / "p")).stdout == first


def test_stdin_is_one_of_the_paths(run_cli):
    profile = (EXAMPLE / "profile.yaml").read_text()
    result = run_cli(
        "build",
        "-",
        str(EXAMPLE / "runtime.yaml"),
        str(EXAMPLE / "isvc.yaml"),
        str(EXAMPLE / "model.yaml"),
        input=profile,
    )
    assert result.exit_code == 0, str(result)
    assert result.stdout == run_cli("build", str(EXAMPLE)).stdout


def test_namespace_defaults_like_kubectl(run_cli, tmp_path):
    for path in EXAMPLE.glob("*.yaml"):
        (tmp_path / path.name).write_text(path.read_text().replace("  namespace: llama-demo\n", ""))
    default = run_cli("build", str(tmp_path))
    assert only(default.stdout)["metadata"]["namespace"] == "default"
    other = run_cli("build", "-n", "team", str(tmp_path))
    assert only(other.stdout)["metadata"]["namespace"] == "team"


def test_output_dir_writes_one_file_per_object(run_cli, tmp_path):
    out = tmp_path / "rendered"
    result = run_cli("build", str(EXAMPLE), "--output-dir", str(out))
    assert result.exit_code == 0 and result.stdout == ""
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.yaml"))
    assert "llama-demo/deployment-llama-3-2-3b-instruct-engine.yaml" in written
    stream = [yaml.safe_load((out / rel).read_text()) for rel in written]
    assert {o["kind"] for o in stream} >= {"Deployment"}


def test_status_file_json_and_yaml(run_cli, tmp_path):
    result = run_cli("build", str(EXAMPLE), "--status-file", str(tmp_path / "s.json"))
    assert result.exit_code == 0
    listing = json.loads((tmp_path / "s.json").read_text())
    assert listing["kind"] == "List" and {i["metadata"]["name"] for i in listing["items"]} == {
        "sglang-profile",
        "sglang-llama-3-2-3b",
    }
    run_cli("build", str(EXAMPLE), "--status-file", str(tmp_path / "s.yaml"))
    assert yaml.safe_load((tmp_path / "s.yaml").read_text()) == listing


def test_nothing_is_written_on_findings(run_cli, tmp_path):
    broken = tmp_path / "in"
    shutil.copytree(EXAMPLE, broken)
    (broken / "profile.yaml").unlink()
    out = tmp_path / "out"
    result = run_cli("build", str(broken), "--output-dir", str(out), "--status-file", str(tmp_path / "s.json"))
    assert result.exit_code == 1 and result.stdout == ""
    assert not out.exists() and not (tmp_path / "s.json").exists()


def test_usage_errors_exit_2(run_cli):
    assert run_cli("build").exit_code == 2
    assert run_cli("build", "--no-such-flag", str(EXAMPLE)).exit_code == 2


def test_missing_path_is_a_finding(run_cli, tmp_path):
    result = run_cli("build", str(tmp_path / "nope"))
    assert result.exit_code == 1
    assert (
        result.stderr == f"{tmp_path}/nope: error: [input-missing] no such file or directory\n"
    )  # no invented location


def test_version(run_cli):
    assert run_cli("--version").stdout == f"omerender, version {__version__}\n"


def test_python_dash_m_works():
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "omerender", "build", str(EXAMPLE)], capture_output=True, text=True, check=True
    )
    assert "llama-3-2-3b-instruct-engine" in out.stdout
