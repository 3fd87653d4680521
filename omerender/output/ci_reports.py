"""Reports CI systems read natively: a JUnit XML test report and GitLab's Code Quality JSON.

* ``junit``: one test case per InferenceService and per runtime of the build's PATHS (``Subject``), failed when
  an error is located in its document; a runtime read only from a search path, which ``status`` does not list
  either, has a case only when a finding is in it; diagnostics located nowhere in a subject get one case per file.
  Warnings and notes are the case's ``system-out``. The layout is the one Ant's JUnit task wrote and
  Jenkins, GitLab and GitHub test reporters read (``testsuites/testsuite/testcase/failure``), within the
  schema Jenkins' xunit plugin validates against (junit-10.xsd: no ``file`` on a test case, no ``skipped``
  on ``testsuites``). Every ``time`` is ``0``: omerender does not time each runtime, and a measured time
  would make two runs over the same tree differ.
* ``gitlab``: a JSON array of issues with ``description``, ``check_name``, ``fingerprint``, ``severity``
  (``info``, ``minor``, ``major``, ``critical``, ``blocker``) and ``location.path`` (relative to the
  repository root) with ``location.lines.begin``, the fields GitLab's Code Quality report reads. GitLab
  keeps one issue per fingerprint and compares them between the base and the merge request, so the
  fingerprint leaves the line out: a finding that moves down a line is the same finding.

Both are deterministic: subjects and diagnostics keep the order given (sorted by the caller).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from omerender.diagnostics import ERROR, Diagnostic, Severity
from omerender.ome import CLUSTER_SERVING_RUNTIME
from omerender.output.formats import dump_json

if TYPE_CHECKING:
    from omerender.result import Resolved

CODE_QUALITY_SEVERITY: dict[Severity, str] = {"error": "critical", "warning": "minor", "info": "info"}
UNTIMED = "0"
"""JUnit's ``time`` of every case and suite: not measured, so that the report is the same on every run."""
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")  # what XML 1.0 cannot hold


@dataclass(frozen=True)
class Subject:
    """What one JUnit test case stands for: a runtime or InferenceService document of the input."""

    kind: str
    name: str  # namespace/name, or name for a cluster-scoped runtime
    path: str
    line: int  # where its document starts
    listed: bool = True  # False: read only from a search path, a JUnit case only when a finding is in it


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
    cases: dict[tuple[str, str], list[Diagnostic]] = {(s.kind, s.name): [] for s in subjects if s.listed}
    files: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        owner = _owner(d, starts)
        if owner is None:
            files.setdefault(d.path, []).append(d)
        else:
            cases.setdefault((owner.kind, owner.name), []).append(d)
    rows = [(kind, name, found) for (kind, name), found in sorted(cases.items())]
    rows += [("file", path, found) for path, found in sorted(files.items())]
    failures = sum(1 for *_, found in rows if any(d.severity == ERROR for d in found))
    counts = {"tests": str(len(rows)), "failures": str(failures), "errors": "0", "time": UNTIMED}
    from xml.etree import ElementTree as ET  # here: only a JUnit report pays for it at start-up

    root = ET.Element("testsuites", {"name": "omerender", **counts})
    suite = ET.SubElement(root, "testsuite", {"name": "omerender", **counts, "skipped": "0"})
    ET.SubElement(ET.SubElement(suite, "properties"), "property", {"name": "toolVersion", "value": tool_version})
    for kind, name, found in rows:
        attributes = {"classname": _xml_text(kind), "name": _xml_text(name), "time": UNTIMED}
        case = ET.SubElement(suite, "testcase", attributes)
        errors = [d for d in found if d.severity == ERROR]
        if errors:
            first = errors[0]
            failure = ET.SubElement(case, "failure", {"message": _xml_text(first.message), "type": first.code})
            failure.text = _xml_text("".join(d.text() + "\n" for d in errors))
        others = [d for d in found if d.severity != ERROR]
        if others:
            ET.SubElement(case, "system-out").text = _xml_text("".join(d.text() + "\n" for d in others))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _fingerprint(finding: list[str]) -> str:
    return hashlib.sha256(json.dumps(finding, ensure_ascii=False).encode("utf-8")).hexdigest()


def render_gitlab(
    diagnostics: Sequence[Diagnostic],
    subjects: Sequence[Subject] = (),
    repo_path: Callable[[str], str] = str,
) -> str:
    """The Code Quality issues; ``repo_path`` maps a path as typed to one relative to the repository root.

    A fingerprint is the SHA-256 of the path, the code, the JSON path and the document the finding is in
    (its runtime or InferenceService, when ``subjects`` holds it): stable when lines move. Two findings that
    still share one (the same code at the same field of one document) are told apart by their order.
    """
    starts: dict[str, list[Subject]] = {}
    for subject in sorted(subjects, key=lambda s: (s.path, s.line)):
        starts.setdefault(subject.path, []).append(subject)
    seen: dict[str, int] = {}
    issues = []
    for d in diagnostics:
        path = repo_path(d.path)
        owner = _owner(d, starts)
        finding = [path, d.code, d.json_path, f"{owner.kind}/{owner.name}" if owner else ""]
        fingerprint = _fingerprint(finding)
        seen[fingerprint] = seen.get(fingerprint, 0) + 1
        if seen[fingerprint] > 1:
            fingerprint = _fingerprint([*finding, str(seen[fingerprint])])
        issues.append(
            {
                "description": d.message,
                "check_name": d.code or "omerender",
                "fingerprint": fingerprint,
                "severity": CODE_QUALITY_SEVERITY[d.severity],
                "location": {"path": path, "lines": {"begin": max(d.line, 1)}},
            }
        )
    return dump_json(issues)


def subjects_of(result: Resolved) -> list[Subject]:
    """Every runtime and InferenceService a build read, where its document starts; what only a search path holds
    is not ``listed``."""
    objects = [*result.universe.all_runtimes(), *result.universe.isvcs.values()]
    out = []
    for obj in objects:
        name = f"{obj.namespace}/{obj.name}" if obj.namespace and obj.kind != CLUSTER_SERVING_RUNTIME else obj.name
        line = obj.at()[0] if obj.source is not None else 1
        out.append(Subject(obj.kind, name, obj.path, line, listed=not result.lent(obj)))
    return out
