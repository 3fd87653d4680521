"""kubectl's conventions: -o picks a format in every command, --output-dir a folder; help, hints and messages."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import click
import pytest
import yaml

from omerender.cli import main
from omerender.cli.params import OutputFormat
from omerender.factor.report import FACTOR_FORMATS
from omerender.output.formats import BUILD_FORMATS, DIFF_FORMATS, EFFECTIVE_FORMATS, GRAPH_FORMATS, STATUS_FORMATS

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "llama-demo"
ISVC, NS = "llama-3-2-3b-instruct", "llama-demo"


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_build_o_json_prints_a_v1_list_and_writes_no_folder(run_cli, in_tmp: Path) -> None:
    done = run_cli("build", str(DEMO), "-o", "json")
    assert done.exit_code == 0, done
    listing = json.loads(done.stdout)
    assert listing["apiVersion"] == "v1" and listing["kind"] == "List"
    assert listing["items"] == list(yaml.safe_load_all(run_cli("build", str(DEMO)).stdout))
    assert list(in_tmp.iterdir()) == []  # no folder named json (or anything else)


def test_build_o_name_prints_kind_group_name_like_kubectl(run_cli) -> None:
    done = run_cli("build", str(DEMO), "-o", "name")
    assert done.exit_code == 0, done
    lines = done.stdout.splitlines()
    assert "deployment.apps/llama-3-2-3b-instruct-engine" in lines
    assert "service/llama-3-2-3b-instruct" in lines
    assert "horizontalpodautoscaler.autoscaling/llama-3-2-3b-instruct-engine" in lines
    assert len(lines) == len(list(yaml.safe_load_all(run_cli("build", str(DEMO)).stdout)))


@pytest.mark.parametrize("value", ["out/", "rendered", "a/b"])
def test_a_folder_given_to_o_is_a_usage_error_with_a_hint(run_cli, in_tmp: Path, value: str) -> None:
    done = run_cli("build", str(DEMO), "-o", value)
    assert done.exit_code == 2 and done.stdout == "", done
    assert f"Did you mean --output-dir {value}?" in done.stderr
    assert list(in_tmp.iterdir()) == []


def test_an_existing_folder_given_to_o_is_named_a_folder(run_cli, in_tmp: Path) -> None:
    (in_tmp / "yamlout").mkdir()
    done = run_cli("build", str(DEMO), "-o", "yamlout")
    assert done.exit_code == 2 and "'yamlout' is a folder" in done.stderr, done


@pytest.mark.parametrize("fmt", ["json", "yaml", "name", "wide"])
def test_a_format_given_to_output_dir_is_a_usage_error_with_a_hint(run_cli, in_tmp: Path, fmt: str) -> None:
    done = run_cli("build", str(DEMO), "--output-dir", fmt)
    assert done.exit_code == 2 and f"did you mean -o {fmt}?" in done.stderr, done
    assert list(in_tmp.iterdir()) == []
    written = run_cli("build", str(DEMO), "--output-dir", f"./{fmt}")  # a folder of that name, said plainly
    assert written.exit_code == 0 and (in_tmp / fmt / NS).is_dir(), written


def test_output_dir_with_a_stdout_format_is_refused(run_cli, in_tmp: Path) -> None:
    done = run_cli("build", str(DEMO), "--output-dir", "out", "-o", "json")
    assert done.exit_code == 2 and "choose one" in done.stderr and not (in_tmp / "out").exists(), done


def test_every_output_option_takes_only_formats_and_the_registries_match() -> None:
    expected = {
        "build": BUILD_FORMATS,
        "status": STATUS_FORMATS,
        "effective": EFFECTIVE_FORMATS,
        "diff": DIFF_FORMATS,
        "factor": FACTOR_FORMATS,
        "graph": GRAPH_FORMATS,
    }
    for name, command in main.commands.items():
        for param in command.params:
            if isinstance(param, click.Option) and "-o" in param.opts:
                assert isinstance(param.type, OutputFormat), name
                assert list(param.type.choices) == list(expected[name]), name
                assert "--output" in param.opts
            assert "--output-dir" not in getattr(param, "opts", []) or "-o" not in param.opts, name
    assert set(expected) <= set(main.commands)


def test_every_option_has_help_text() -> None:
    for name, command in main.commands.items():
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                assert param.help, f"{name} {param.opts}"


def test_top_level_help_shows_every_summary_in_full(run_cli) -> None:
    text = " ".join(run_cli("--help").stdout.split())  # click wraps long lines; no summary is cut
    for name, command in main.commands.items():
        summary = command.get_short_help_str(limit=1000)
        assert not summary.endswith("..."), name
        assert f"{name} {summary}" in text, name


def test_status_wide_adds_source_and_last_resolved_chain(run_cli, tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    shutil.copytree(DEMO, demo)
    assert run_cli("lock", str(demo)).exit_code == 0
    wide = run_cli("status", str(demo), "-o", "wide")
    assert wide.exit_code == 0, wide
    header, *rows = wide.stdout.splitlines()
    assert header.split()[-2:] == ["LAST-RESOLVED", "SOURCE"]
    row = next(r for r in rows if "sglang-llama-3-2-3b" in r)
    assert row.split()[-2:] == ["sglang-profile,sglang-llama-3-2-3b", f"{demo}/runtime.yaml:2"]
    names = run_cli("status", str(demo), "-o", "name").stdout.splitlines()
    assert names == ["clusterservingruntime.ome.io/sglang-profile", "servingruntime.ome.io/sglang-llama-3-2-3b"]


def test_status_takes_search_path_and_model_metadata(run_cli, tmp_path: Path) -> None:
    apps, shared = tmp_path / "apps", tmp_path / "shared"
    apps.mkdir()
    shared.mkdir()
    for name in os.listdir(DEMO):
        if name.endswith(".yaml"):
            shutil.copy(DEMO / name, (shared if name == "profile.yaml" else apps) / name)
    (tmp_path / "meta.yaml").write_text("models: {}\n", encoding="utf-8")
    done = run_cli(
        "status", str(apps), "--search-path", str(shared), "--model-metadata", str(tmp_path / "meta.yaml"), "-o", "json"
    )
    assert done.exit_code == 0, done
    items = json.loads(done.stdout)["items"]
    assert [i["metadata"]["name"] for i in items] == ["sglang-llama-3-2-3b"]  # the parent only resolves
    assert items[0]["status"]["inheritanceChain"] == ["sglang-profile", "sglang-llama-3-2-3b"]
    alone = run_cli("status", str(apps))
    assert alone.exit_code == 1 and "[ParentNotFound]" in alone.stderr


def test_effective_without_namespace_names_where_it_exists(run_cli) -> None:
    done = run_cli("effective", ISVC, str(DEMO))
    assert done.exit_code == 1 and done.stdout == "", done
    assert f"it exists in namespace {NS}: pass -n {NS} (or write {NS}/{ISVC})" in done.stderr


def test_effective_formats(run_cli) -> None:
    table = run_cli("effective", ISVC, "-n", NS, str(DEMO))
    assert table.exit_code == 0 and table.stdout.startswith("InferenceService:"), table
    assert run_cli("effective", ISVC, "-n", NS, str(DEMO), "-o", "table").stdout == table.stdout
    data = json.loads(run_cli("effective", ISVC, "-n", NS, str(DEMO), "-o", "json").stdout)
    assert data == yaml.safe_load(run_cli("effective", ISVC, "-n", NS, str(DEMO), "-o", "yaml").stdout)
    assert run_cli("effective", ISVC, "-n", NS, str(DEMO), "-o", "text").exit_code == 2  # renamed: table


def test_diff_o_and_its_hidden_format_alias(run_cli) -> None:
    new = run_cli("diff", str(DEMO), str(DEMO), "-o", "json")
    old = run_cli("diff", str(DEMO), str(DEMO), "--format", "json")
    assert new.exit_code == old.exit_code == 0 and new.stdout == old.stdout and json.loads(new.stdout)
    assert "--format" not in run_cli("diff", "--help").stdout
    assert run_cli("diff", str(DEMO), str(DEMO), "-o", "out/").exit_code == 2


def test_check_hint_is_a_complete_command_with_a_capped_diff(run_cli, tmp_path: Path, in_tmp: Path) -> None:
    out = tmp_path / "rendered dir"
    assert run_cli("build", str(DEMO), "--output-dir", str(out), "-n", NS).exit_code == 0
    deployment = next(out.rglob("deployment-*.yaml"))
    deployment.write_text(deployment.read_text(encoding="utf-8") + "# edited by hand\n", encoding="utf-8")
    done = run_cli("build", str(DEMO), "--output-dir", str(out), "--check", "-n", NS)
    assert done.exit_code == 1, done
    assert f"  omerender build {DEMO} --output-dir '{out}' -n {NS}\n" in done.stderr  # pasteable: quoted, no --check
    rel = deployment.relative_to(out).as_posix()
    assert f"--- a/{rel}\n+++ b/{rel}\n" in done.stderr and "\n-# edited by hand\n" in done.stderr
    for path in out.rglob("*.yaml"):  # many differences: the diff is cut
        path.write_text("x: 1\n" * 300, encoding="utf-8")
    capped = run_cli("build", str(DEMO), "--output-dir", str(out), "--check")
    assert capped.exit_code == 1 and "more diff line(s) not shown" in capped.stderr
    assert len(capped.stderr.splitlines()) < 240


def test_a_missing_path_has_no_invented_location(run_cli, in_tmp: Path) -> None:
    text = run_cli("build", "nope")
    assert text.exit_code == 1 and text.stderr == "nope: error: [input-missing] no such file or directory\n", text
    report = json.loads(run_cli("build", "nope", "--report-format", "json").stderr)
    assert report["diagnostics"][0]["line"] == 0 and report["diagnostics"][0]["column"] == 0
    github = run_cli("build", "nope", "--report-format", "github").stderr
    assert github.startswith("::error file=nope,title=") and "line=" not in github
    sarif = json.loads(run_cli("build", "nope", "--report-format", "sarif").stderr)
    # GitHub's ingestion requires a region (GH1017): the file's first line, with no column invented
    assert sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"] == {"startLine": 1}


def test_flux_warning_is_right_about_defaults(run_cli, tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    shutil.copytree(DEMO, demo)
    runtime = demo / "runtime.yaml"
    text = runtime.read_text(encoding="utf-8")
    runtime.write_text(text.replace("- --tp-size=1", "- --tp-size=${TP:-1}\n        - --x=${X:=1}"), encoding="utf-8")
    done = run_cli("build", str(demo), "--output-dir", str(tmp_path / "out"), "--kustomization")
    assert "${TP:-1}" in done.stderr, done
    assert "or with the default it names (${VAR:-default}, ${VAR:=default})" in done.stderr
    assert "empty string" not in done.stderr
