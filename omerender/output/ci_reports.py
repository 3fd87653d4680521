"""Reports CI systems read natively: a JUnit XML test report and GitLab's Code Quality JSON.

* ``junit``: one test case per InferenceService and per runtime of the build (``Subject``), failed when an
  error is located in its document; diagnostics located nowhere in a subject get one case per file.
  Warnings and notes are the case's ``system-out``. The layout is the one Ant's JUnit task wrote and
  Jenkins, GitLab and GitHub test reporters read (``testsuites/testsuite/testcase/failure``).
* ``gitlab``: a JSON array of issues with ``description``, ``check_name``, ``fingerprint`` (SHA-256 of the
  finding, stable between runs), ``severity`` (``info``, ``minor``, ``major``, ``critical``, ``blocker``)
  and ``location.path`` with ``location.lines.begin``, the fields GitLab's Code Quality report reads.

Both are deterministic: subjects and diagnostics keep the order given (sorted by the caller).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from omerender.diagnostics import Diagnostic, Severity
from omerender.output.formats import dump_json

if TYPE_CHECKING:
    from omerender.result import BuildResult

CODE_QUALITY_SEVERITY: dict[Severity, str] = {"error": "critical", "warning": "minor", "info": "info"}
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")  # what XML 1.0 cannot hold


@dataclass(frozen=True)
class Subject:
    """What one JUnit test case stands for: a runtime or InferenceService document of the input."""

    kind: str
    name: str  # namespace/name, or name for a cluster-scoped runtime
    path: str
    line: int  # where its document starts


def _xml_text(text: str) -> str:
    return _NOT_XML.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), text)


def _owner(d: Diagnostic, starts: dict[str, list[Subject]]) -> Subject | None:
    """The subject whose document holds ``d``: in its file, the last one starting at or before its line."""
    found = None
    for subject in starts.get(d.path, ()):
        if subject.line <= max(d.line, 1):
            found = subject
    return found


def render_junit(diagnostics: Sequence[Diagnostic], subjects: Sequence[Subject], tool_version: str) -> str:
    starts: dict[str, list[Subject]] = {}
    for subject in sorted(subjects, key=lambda s: (s.path, s.line)):
        starts.setdefault(subject.path, []).append(subject)
    cases: dict[tuple[str, str], list[Diagnostic]] = {(s.kind, s.name): [] for s in subjects}
    files: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        owner = _owner(d, starts)
        if owner is None:
            files.setdefault(d.path, []).append(d)
        else:
            cases[(owner.kind, owner.name)].append(d)
    where = {(s.kind, s.name): s.path for s in subjects}
    rows = [(kind, name, where[kind, name], found) for (kind, name), found in sorted(cases.items())]
    rows += [("file", path, path, found) for path, found in sorted(files.items())]
    failures = sum(1 for *_, found in rows if any(d.severity == "error" for d in found))
    counts = {"tests": str(len(rows)), "failures": str(failures), "errors": "0", "skipped": "0"}
    from xml.etree import ElementTree as ET  # here: only a JUnit report pays for it at start-up

    root = ET.Element("testsuites", {"name": "omerender", **counts})
    suite = ET.SubElement(root, "testsuite", {"name": "omerender", **counts})
    ET.SubElement(ET.SubElement(suite, "properties"), "property", {"name": "toolVersion", "value": tool_version})
    for kind, name, path, found in rows:
        case = ET.SubElement(suite, "testcase", {"classname": _xml_text(kind), "name": _xml_text(name)})
        case.set("file", _xml_text(path))
        errors = [d for d in found if d.severity == "error"]
        if errors:
            first = errors[0]
            failure = ET.SubElement(case, "failure", {"message": _xml_text(first.message), "type": first.code})
            failure.text = _xml_text("".join(d.text() + "\n" for d in errors))
        others = [d for d in found if d.severity != "error"]
        if others:
            ET.SubElement(case, "system-out").text = _xml_text("".join(d.text() + "\n" for d in others))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _fingerprint(d: Diagnostic) -> str:
    finding = json.dumps([d.path, d.line, d.col, d.code, d.message], ensure_ascii=False)
    return hashlib.sha256(finding.encode("utf-8")).hexdigest()


def render_gitlab(diagnostics: Sequence[Diagnostic]) -> str:
    issues = [
        {
            "description": d.message,
            "check_name": d.code or "omerender",
            "fingerprint": _fingerprint(d),
            "severity": CODE_QUALITY_SEVERITY[d.severity],
            "location": {"path": d.path, "lines": {"begin": max(d.line, 1)}},
        }
        for d in diagnostics
    ]
    return dump_json(issues)


def subjects_of(result: BuildResult) -> list[Subject]:
    """Every runtime and InferenceService a build read, where its document starts."""
    objects = [*result.universe.all_runtimes(), *result.universe.isvcs.values()]
    out = []
    for obj in objects:
        name = f"{obj.namespace}/{obj.name}" if obj.namespace and obj.kind != "ClusterServingRuntime" else obj.name
        line = obj.at()[0] if obj.source is not None else 1
        out.append(Subject(obj.kind, name, obj.path, line))
    return out
