"""--report-format junit and gitlab, validated against a JUnit XML schema and GitLab's Code Quality fields,
and several reports from one run (--report-format FMT=FILE, repeatable)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
import xmlschema

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CASE = ROOT / "tests" / "cases" / "reject-request-above-limit" / "input"


@pytest.fixture
def findings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The request-above-limit case (two errors in the child runtime) plus a warning in the same file."""
    shutil.copytree(CASE, tmp_path / "input")
    path = tmp_path / "input" / "all.yaml"
    text = path.read_text(encoding="utf-8")
    runner = text.index("    runner:\n", text.index("name: child"))
    path.write_text(text[:runner] + "    runer: {}\n" + text[runner:], encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_junit_is_valid_and_has_one_case_per_runtime_and_isvc(run_cli, findings):
    done = run_cli("build", "input", "--validate=warn", "--report-format", "junit=report.xml", "-o", "name")
    assert done.exit_code == 1, done
    xml = (findings / "report.xml").read_text(encoding="utf-8")
    schema = xmlschema.XMLSchema(str(HERE / "junit.xsd"))
    schema.validate(xml)
    tree = schema.to_dict(xml)
    [suite] = tree["testsuite"]
    cases = {(c["@classname"], c["@name"]): c for c in suite["testcase"]}
    kinds = {kind for kind, _ in cases}
    assert {"ServingRuntime", "InferenceService"} <= kinds, cases.keys()
    failed = [key for key, c in cases.items() if "failure" in c]
    assert failed == [("ServingRuntime", "demo/child")] and suite["@failures"] == 1, failed
    assert {("ClusterServingRuntime", "profile"), ("InferenceService", "demo/llama")} <= cases.keys()
    [failure] = [cases[key]["failure"] for key in failed]
    assert failure["@type"] == "request-above-limit" and failure["$"].count("error: [request-above-limit]") == 2
    assert "unknown-field" in cases[failed[0]]["system-out"]
    assert suite["@tests"] == len(cases)
    assert done.stderr.count(": error: ") == 2  # the text report still goes to stderr


def test_gitlab_code_quality_is_valid(run_cli, findings):
    done = run_cli("build", "input", "--validate=warn", "--report-format", "gitlab=cq.json", "-o", "name")
    assert done.exit_code == 1, done
    issues = json.loads((findings / "cq.json").read_text(encoding="utf-8"))
    jsonschema.validate(issues, json.loads((HERE / "codequality.schema.json").read_text(encoding="utf-8")))
    assert sorted(i["severity"] for i in issues) == ["critical", "critical", "minor"]
    assert len({i["fingerprint"] for i in issues}) == 3
    assert {i["location"]["path"] for i in issues} == {"input/all.yaml"}
    again = run_cli("build", "input", "--validate=warn", "--report-format", "gitlab=cq2.json", "-o", "name")
    assert again.exit_code == 1 and (findings / "cq2.json").read_text() == (findings / "cq.json").read_text()


def test_several_reports_in_one_run(run_cli, findings):
    done = run_cli(
        "build", "input", "--validate=warn", "-o", "name",
        "--report-format", "junit=j.xml", "--report-format", "gitlab=g.json", "--report-format", "json",
        "--report-file", "r.json",
    )  # fmt: skip
    assert done.exit_code == 1 and done.stderr == "", done
    assert (findings / "j.xml").read_text().startswith("<?xml")
    assert json.loads((findings / "g.json").read_text())[0]["check_name"]
    assert json.loads((findings / "r.json").read_text())["summary"]["errors"] == 2
    old_form = run_cli(
        "build", "input", "--validate=warn", "-o", "name", "--report-format", "json", "--report-file", "old.json"
    )
    assert old_form.exit_code == 1 and json.loads((findings / "old.json").read_text())["summary"]["errors"] == 2


@pytest.mark.parametrize(
    "args",
    [
        ["--report-format", "json", "--report-format", "sarif"],
        ["--report-format", "junit=a.xml", "--report-format", "gitlab=a.xml"],
        ["--report-format", "nope"],
        ["--report-format", "junit="],
        ["--report-format", "junit=a.xml", "--report-file", "a.xml"],
    ],
)
def test_ambiguous_report_requests_are_usage_errors(run_cli, findings, args):
    done = run_cli("build", "input", "--validate=warn", "-o", "name", *args)
    assert done.exit_code == 2 and done.stdout == "", done
    assert not (findings / "a.xml").exists()


def test_diff_writes_junit_for_both_sides(run_cli, tmp_path):
    demo = ROOT / "fixtures" / "llama-demo"
    done = run_cli("diff", str(demo), str(demo), "--report-format", f"junit={tmp_path / 'j.xml'}")
    assert done.exit_code == 0, done
    xml = (tmp_path / "j.xml").read_text()
    xmlschema.XMLSchema(str(HERE / "junit.xsd")).validate(xml)
    assert 'tests="3" failures="0"' in xml


def test_junit_lists_a_search_path_runtime_only_when_a_finding_is_in_it(run_cli, tmp_path, monkeypatch):
    demo = ROOT / "fixtures" / "llama-demo"
    (tmp_path / "app").mkdir()
    (tmp_path / "platform").mkdir()
    for name, folder in (("runtime.yaml", "app"), ("isvc.yaml", "app"), ("profile.yaml", "platform")):
        shutil.copy(demo / name, tmp_path / folder / name)
    shutil.copy(demo / "model.yaml", tmp_path / "platform" / "model.yaml")
    monkeypatch.chdir(tmp_path)

    def cases() -> set[tuple[str, str]]:
        done = run_cli("build", "app", "--search-path", "platform", "--validate=warn", "--report-format", "junit=j.xml")
        assert done.exit_code == 0, done
        xml = (tmp_path / "j.xml").read_text(encoding="utf-8")
        xmlschema.XMLSchema(str(HERE / "junit.xsd")).validate(xml)
        [suite] = xmlschema.XMLSchema(str(HERE / "junit.xsd")).to_dict(xml)["testsuite"]
        return {(c["@classname"], c["@name"]) for c in suite["testcase"]}

    own = {
        ("ServingRuntime", "llama-demo/sglang-llama-3-2-3b"),
        ("InferenceService", "llama-demo/llama-3-2-3b-instruct"),
    }
    assert cases() == own  # not the profile it only read
    profile = tmp_path / "platform" / "profile.yaml"
    profile.write_text(profile.read_text(encoding="utf-8").replace("spec:\n", "spec:\n  colour: blue\n", 1))
    assert cases() == own | {("ClusterServingRuntime", "sglang-profile")}  # a finding in it: its case says so
