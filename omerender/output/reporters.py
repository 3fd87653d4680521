"""Reporters: pure functions that turn sorted diagnostics into report text.

Nothing here prints or exits; the CLI writes the returned string. Every format is
deterministic byte for byte: the input order is kept, JSON keys are sorted, and the output
ends with a newline (the text report of no diagnostics is the empty string).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict
from urllib.parse import quote

from omerender import codes
from omerender.constants import PROJECT_URL
from omerender.diagnostics import BY_ANNOTATION, BY_SETTINGS, Diagnostic, Severity, Suppression, SuppressionKind
from omerender.output.formats import dump_json
from omerender.output.repo_paths import RepoRoot, is_pseudo, plain
from omerender.settings import REPORT_FORMATS

if TYPE_CHECKING:  # ci_reports (JUnit's XML, GitLab's fingerprints) is imported by the two formats that use it
    from omerender.output.ci_reports import Subject

REPORT_VERSION: Literal[1] = 1
TOOL_NAME = "omerender"
INFORMATION_URI = PROJECT_URL
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
FALLBACK_CODE = codes.FALLBACK
"""Rule id of a SARIF result whose diagnostic carries no code (SARIF tools expect one)."""
SRCROOT = "%SRCROOT%"
"""SARIF's ``uriBaseId`` of a path relative to the repository root (the base CodeQL and GitHub use)."""

_GITHUB_COMMAND: dict[Severity, str] = {"error": "error", "warning": "warning", "info": "notice"}
_SARIF_LEVEL: dict[Severity, str] = {"error": "error", "warning": "warning", "info": "note"}


_SARIF_SUPPRESSION: dict[SuppressionKind, str] = {BY_ANNOTATION: "inSource", BY_SETTINGS: "external"}
"""SARIF 2.1.0 section 3.35.2: ``inSource`` is a suppression written in the analysed artifact itself (an
ignore-check annotation in the manifest), ``external`` one kept elsewhere (an exemption in ``.omerender.yaml``)."""


class JsonSuppression(TypedDict):
    kind: SuppressionKind
    by: str
    reason: str
    severity: Severity


class JsonDiagnostic(TypedDict):
    path: str
    line: int
    column: int
    severity: Severity
    code: str
    message: str
    jsonPath: str
    suppressed: NotRequired[JsonSuppression]


class JsonSummary(TypedDict):
    errors: int
    warnings: int
    infos: int


class JsonReport(TypedDict):
    version: Literal[1]
    tool: str
    toolVersion: str
    summary: JsonSummary
    omitted: int
    diagnostics: list[JsonDiagnostic]


def render_report(
    fmt: str,
    diagnostics: list[Diagnostic],
    *,
    max_errors: int | None = None,
    tool_version: str,
    subjects: Sequence[Subject] = (),
    ci_log: bool = False,
    repo: RepoRoot | None = None,
) -> str:
    """Render ``diagnostics`` (already sorted) in format ``fmt``, one of ``settings.REPORT_FORMATS``.

    ``subjects``: the runtimes and InferenceServices of the input, each a test case of ``junit`` (and, in
    ``gitlab``, what tells two findings of one file apart). ``repo``: where the run is; ``github``, ``sarif``
    and ``gitlab`` give paths relative to its root, as CI systems resolve them (without it, as typed).

    ``max_errors`` caps how many diagnostics of any severity are listed, errors first, then warnings, then
    notes (each in the given order); the rest are counted and the report says how many were left out.
    ``None`` means no cap. ``ci_log`` (the caller runs in GitHub Actions) makes the text report unable to
    start a workflow command.
    """
    renderer = _RENDERERS.get(fmt)
    if renderer is None:
        msg = f"unknown report format {fmt!r}; expected one of {', '.join(REPORT_FORMATS)}"
        raise ValueError(msg)
    if max_errors is not None and max_errors < 0:
        msg = f"max_errors must be >= 0, got {max_errors}"
        raise ValueError(msg)
    shown = diagnostics if max_errors is None else sorted(diagnostics, key=_severity_first)[:max_errors]
    text = renderer(_Report(diagnostics, shown, max_errors, tool_version, tuple(subjects), repo))
    return no_workflow_commands(text) if ci_log and fmt == "text" else text


_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def _severity_first(d: Diagnostic) -> int:
    return _SEVERITY_ORDER.get(d.severity, 3)


@dataclass(frozen=True)
class _Report:
    """What every renderer needs: all diagnostics, the shown prefix and the cap."""

    everything: list[Diagnostic]
    shown: list[Diagnostic]
    max_errors: int | None
    tool_version: str
    subjects: tuple[Subject, ...] = ()
    repo: RepoRoot | None = None

    def repo_path(self, path: str) -> str:
        """``path`` as CI systems resolve it: relative to the repository root when it is inside it, else as
        typed (with forward slashes)."""
        inside = self.repo.relative(path) if self.repo else None
        return inside if inside is not None else plain(path)

    @property
    def omitted(self) -> int:
        return len(self.everything) - len(self.shown)

    def omitted_note(self) -> str:
        noun = "diagnostic" if self.omitted == 1 else "diagnostics"
        return f"{TOOL_NAME}: {self.omitted} more {noun} not shown (--max-errors {self.max_errors})"


def _dumps(document: object) -> str:
    return dump_json(document)


# -- text -----------------------------------------------------------------------------------


def text_line(d: Diagnostic) -> str:
    """The text report's line for ``d`` (see ``Diagnostic.text``)."""
    return d.text()


_OLD_COMMAND = "##["  # the older spelling of a GitHub Actions workflow command, read anywhere in a line
_OLD_COMMAND_ESCAPED = "#\\x23["  # what the text report shows instead: # escaped as one_line escapes
_COMMAND_AT_LINE_START = re.compile(r"(?:^|(?<=[\r\n]))(?=[^\S\r\n]*::)")
"""Where a line (the runner ends one at CR or LF) starts a workflow command: ``::`` after blanks."""


def no_workflow_commands(text: str) -> str:
    """``text`` whose lines cannot be read as GitHub workflow commands: a line that starts with ``::`` (after
    blanks: ``::stop-commands::``) gets ``./`` in front, which leaves a file name at its start the same file,
    and ``##[`` (``##[error]``, ``##[add-mask]``), which the runner reads anywhere in a line, shows as
    ``#\\x23[``."""
    return _COMMAND_AT_LINE_START.sub("./", text.replace(_OLD_COMMAND, _OLD_COMMAND_ESCAPED))


def _render_text(report: _Report) -> str:
    lines = [text_line(d) for d in report.shown]
    if report.omitted:
        lines.append(report.omitted_note())
    return "".join(line + "\n" for line in lines)


# -- json -----------------------------------------------------------------------------------


def _build_json(report: _Report) -> JsonReport:
    def count(severity: Severity) -> int:
        return sum(1 for d in report.everything if d.severity == severity)

    return {
        "version": REPORT_VERSION,
        "tool": TOOL_NAME,
        "toolVersion": report.tool_version,
        "summary": {"errors": count("error"), "warnings": count("warning"), "infos": count("info")},
        "omitted": report.omitted,
        "diagnostics": [_json_diagnostic(d) for d in report.shown],
    }


def _json_diagnostic(d: Diagnostic) -> JsonDiagnostic:
    """One diagnostic; a silenced finding (severity info) also says what silenced it, why, and the severity it
    would have had under ``suppressed``."""
    out: JsonDiagnostic = {
        "path": d.path,
        "line": d.line,
        "column": d.col,
        "severity": d.severity,
        "code": d.code,
        "message": d.message,
        "jsonPath": d.json_path,
    }
    if d.suppression is not None:
        why = d.suppression
        out["suppressed"] = {"kind": why.kind, "by": why.by, "reason": why.reason, "severity": why.severity}
    return out


def _render_json(report: _Report) -> str:
    return _dumps(_build_json(report))


# -- github ---------------------------------------------------------------------------------


def escape_data(value: str) -> str:
    """Escape a workflow command's message: ``%`` first, then CR and LF."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """Escape a workflow command property value: as data, plus ``:`` and ``,``."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def _github_line(d: Diagnostic, path: str) -> str:
    title = f"{TOOL_NAME} {d.code}" if d.code else TOOL_NAME
    props = {"file": path, "line": str(d.line), "col": str(d.col), "title": title}
    if d.line <= 0:  # no location: the file itself (a missing path)
        del props["line"], props["col"]
    rendered = ",".join(f"{key}={escape_property(value)}" for key, value in props.items())
    return f"::{_GITHUB_COMMAND[d.severity]} {rendered}::{escape_data(d.message)}"


def _render_github(report: _Report) -> str:
    lines = [_github_line(d, report.repo_path(d.path)) for d in report.shown]
    if report.omitted:
        lines.append(f"::notice::{escape_data(report.omitted_note())}")
    return "".join(line + "\n" for line in lines)


# -- sarif ----------------------------------------------------------------------------------


def sarif_uri(path: str) -> str:
    """A relative URI reference for ``path``: forward slashes, percent-encoded, no ``./``."""
    return quote(plain(path), safe="/")


def _artifact(path: str, report: _Report) -> dict[str, str]:
    """Where a result is: relative to the repository root (``uriBaseId`` %SRCROOT%) when it is inside it, else
    an absolute ``file`` URI (GitHub displays only those two kinds); ``<stdin>`` stays a bare relative name."""
    inside = report.repo.relative(path) if report.repo else (None if path.startswith(("/", "\\")) else plain(path))
    if is_pseudo(path):
        return {"uri": sarif_uri(path)}
    if inside is not None:
        return {"uri": sarif_uri(inside), "uriBaseId": SRCROOT}
    absolute = report.repo.absolute(path) if report.repo else plain(path)
    return {"uri": "file://" + quote(absolute, safe="/")}


def _sarif_result(d: Diagnostic, report: _Report) -> dict[str, object]:
    # GitHub requires a region on every location: a finding without one (a missing path) points at line 1
    region = {"startLine": d.line, "startColumn": max(d.col, 1)} if d.line > 0 else {"startLine": 1}
    physical: dict[str, object] = {"artifactLocation": _artifact(d.path, report), "region": region}
    result: dict[str, object] = {
        "ruleId": d.code or FALLBACK_CODE,
        "level": _SARIF_LEVEL[d.severity if d.suppression is None else d.suppression.severity],
        "message": {"text": d.message},
        "locations": [{"physicalLocation": physical}],
    }
    if d.suppression is not None:
        result["suppressions"] = [_sarif_suppression(d.suppression)]
    return result


def _sarif_suppression(why: Suppression) -> dict[str, str]:
    """A silenced finding's ``suppressions`` entry (SARIF 2.1.0 section 3.35), its result at the level the finding
    would have had: a SARIF reader hides a suppressed result itself. GitHub code scanning reads
    ``suppressions[].status``: ``accepted`` turns the alert to Closed ("SARIF support for code scanning", the
    ``result`` object's table: docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/
    sarif-support-for-code-scanning), so a silenced finding uploaded from CI is kept on record as a closed alert
    rather than dropped or opened. The justification is the reason the annotation or exemption gives (none when
    empty)."""
    entry = {"kind": _SARIF_SUPPRESSION[why.kind], "status": "accepted"}
    if why.reason:
        entry["justification"] = why.reason
    return entry


def _sarif_rule(rule_id: str) -> dict[str, object]:
    """A SARIF rule from the code catalogue: the descriptions, help and ``helpUri`` GitHub requires or shows."""
    info = codes.describe(rule_id)
    full = codes.full_description(rule_id)
    uri = codes.help_uri(rule_id)
    return {
        "id": rule_id,
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": full},
        "help": {"text": f"{full} See {uri}", "markdown": f"{full} [Documentation]({uri})"},
        "helpUri": uri,
        "defaultConfiguration": {"level": _SARIF_LEVEL[info.severity]},
    }


def _render_sarif(report: _Report) -> str:
    rule_ids = sorted({d.code or FALLBACK_CODE for d in report.shown})
    driver = {
        "name": TOOL_NAME,
        "version": report.tool_version,
        "informationUri": INFORMATION_URI,
        "rules": [_sarif_rule(rule_id) for rule_id in rule_ids],
    }
    run = {
        "tool": {"driver": driver},
        "columnKind": "unicodeCodePoints",
        "results": [_sarif_result(d, report) for d in report.shown],
        "properties": {"omitted": report.omitted},
    }
    return _dumps({"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]})


def _render_junit(report: _Report) -> str:
    from omerender.output.ci_reports import render_junit

    return render_junit(report.shown, report.subjects, report.tool_version)


def _render_gitlab(report: _Report) -> str:
    from omerender.output.ci_reports import render_gitlab

    return render_gitlab(report.shown, report.subjects, report.repo_path)


_RENDERERS: dict[str, Callable[[_Report], str]] = {
    "text": _render_text,
    "json": _render_json,
    "github": _render_github,
    "sarif": _render_sarif,
    "junit": _render_junit,
    "gitlab": _render_gitlab,
}
