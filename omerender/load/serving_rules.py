"""The serving checks' own rules in ``.omerender.yaml``: exemptions and per-check severity (docs/serving-checks.md).

``serving-check-exemptions`` lists, each with its reason, the checks not to report for an InferenceService or a
runtime (by kind, name and, optionally, namespace); ``serving-check-severity`` gives a check's findings another
severity (error, warning or info). No other route takes them (the settings registry's ``FILE_ONLY_KEYS``): the
settings file reader skips them, and a build that runs the serving checks reads them here, each problem an error
at its line, as the file's other keys are. ``volume-mount-undefined`` is the API server's rule: no exemption or
severity applies to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import yaml

from omerender import codes
from omerender.diagnostics import ERROR, Diagnostic, Severity
from omerender.load.bounded import Budget, ReadProblem, parse_bounded, read_text
from omerender.names import clip
from omerender.settings import FILE_ONLY_KEYS, SERVING_CHECK_MODES

EXEMPTIONS, SEVERITY = "serving-check-exemptions", "serving-check-severity"
KINDS = ("InferenceService", "ClusterServingRuntime", "ServingRuntime")
FIELDS = ("kind", "namespace", "name", "codes", "reason")
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
MAX_EXEMPTIONS = 10_000
assert set(FILE_ONLY_KEYS) == {EXEMPTIONS, SEVERITY}


@dataclass(frozen=True)
class Exemption:
    kind: str
    name: str
    namespace: str | None  # None: every namespace
    codes: frozenset[str]
    reason: str
    where: str  # FILE:LINE of the entry, for the note a silenced finding becomes


@dataclass(frozen=True)
class ServingPolicy:
    """How a build runs the serving checks: ``mode`` (the serving-checks setting) and the file's rules."""

    mode: str = "on"
    severity: Mapping[str, Severity] = field(default_factory=dict)
    exemptions: tuple[Exemption, ...] = ()
    gpu_memory: float | None = None  # the gpu-memory setting (GiB per GPU), for gpu-memory-fit

    def __post_init__(self) -> None:
        assert self.mode in SERVING_CHECK_MODES


def _problem(path: str, node: yaml.Node, message: str) -> Diagnostic:
    return Diagnostic(path, node.start_mark.line + 1, node.start_mark.column + 1, ERROR, message, codes.SETTINGS)


def _known_code(path: str, node: yaml.Node, key: str) -> Diagnostic | None:
    code = node.value if isinstance(node, yaml.ScalarNode) else None
    if code in codes.UNSILENCEABLE:
        return _problem(
            path, node, f"{key}: {code} is the API server's rule (the pod is refused): it cannot be exempted or relaxed"
        )
    if code not in codes.SERVING_CHECKS:
        shown = clip(str(code)) if isinstance(code, str) else "a non-string"
        return _problem(
            path, node, f"{key}: {shown!r} is no serving check; known: {', '.join(sorted(codes.SERVING_CHECKS))}"
        )
    return None


def _text(node: yaml.Node) -> str | None:
    return node.value if isinstance(node, yaml.ScalarNode) and node.tag.endswith(":str") else None


def _exemption(path: str, node: yaml.Node) -> Exemption | list[Diagnostic]:
    where = f"{EXEMPTIONS} entry"
    if not isinstance(node, yaml.MappingNode):
        return [_problem(path, node, f"{where}: expected a mapping of {', '.join(FIELDS)}")]
    values: dict[str, yaml.Node] = {}
    problems: list[Diagnostic] = []
    for key, value in node.value:
        name = key.value if isinstance(key, yaml.ScalarNode) else None
        if name not in FIELDS:
            problems.append(
                _problem(path, key, f"{where}: unknown field {clip(str(name))!r}; known: {', '.join(FIELDS)}")
            )
        else:
            values[name] = value
    for required in ("kind", "name", "codes", "reason"):
        if required not in values:
            problems.append(_problem(path, node, f"{where}: {required} is required"))
    kind = _text(values["kind"]) if "kind" in values else None
    if "kind" in values and kind not in KINDS:
        problems.append(_problem(path, values["kind"], f"{where}: kind must be one of {', '.join(KINDS)}"))
    name = _text(values["name"]) if "name" in values else None
    if "name" in values and not name:
        problems.append(_problem(path, values["name"], f"{where}: name must be a non-empty string"))
    namespace = _text(values["namespace"]) if "namespace" in values else None
    if "namespace" in values and (not namespace or kind == "ClusterServingRuntime"):
        problems.append(
            _problem(path, values["namespace"], f"{where}: namespace must be a non-empty string, for a namespaced kind")
        )
    reason = _text(values["reason"]) if "reason" in values else None
    if "reason" in values and not (reason or "").strip():
        problems.append(_problem(path, values["reason"], f"{where}: reason must say why the check does not apply"))
    found: set[str] = set()
    listed = values.get("codes")
    if listed is not None:
        if not isinstance(listed, yaml.SequenceNode) or not listed.value:
            problems.append(_problem(path, listed, f"{where}: codes must be a non-empty list of serving checks"))
        else:
            for item in listed.value:
                problem = _known_code(path, item, f"{where} codes")
                if problem is not None:
                    problems.append(problem)
                else:
                    found.add(str(item.value))
    if problems:
        return problems
    assert kind is not None and name is not None and reason is not None
    line = node.start_mark.line + 1
    return Exemption(kind, name, namespace, frozenset(found), reason.strip(), f"{path}:{line}")


def _severity(path: str, node: yaml.Node) -> tuple[dict[str, Severity], list[Diagnostic]]:
    if not isinstance(node, yaml.MappingNode):
        return {}, [_problem(path, node, f"{SEVERITY}: expected a mapping of serving check to error, warning or info")]
    found: dict[str, Severity] = {}
    problems: list[Diagnostic] = []
    for key, value in node.value:
        problem = _known_code(path, key, SEVERITY)
        text = _text(value)
        if problem is not None:
            problems.append(problem)
        elif text not in SEVERITIES:
            problems.append(_problem(path, value, f"{SEVERITY} {key.value}: expected error, warning or info"))
        else:
            found[str(key.value)] = next(s for s in SEVERITIES if s == text)
    return found, problems


def read(path: str, mode: str, budget: Budget | None = None) -> tuple[ServingPolicy, list[Diagnostic]]:
    """The policy of a run: ``mode`` and the rules the settings file at ``path`` holds, with their problems."""
    try:
        text = read_text(path, budget or Budget(), "settings file")
        documents = list(parse_bounded(text, budget or Budget()))
    except (ReadProblem, yaml.YAMLError):
        return ServingPolicy(mode), []  # the settings file reader has reported it, and stopped the run
    node = documents[0].node if documents else None
    if not isinstance(node, yaml.MappingNode):
        return ServingPolicy(mode), []
    severity: dict[str, Severity] = {}
    exemptions: list[Exemption] = []
    problems: list[Diagnostic] = []
    for key, value in node.value:
        if key.value == SEVERITY:
            severity, found = _severity(path, value)
            problems += found
        elif key.value == EXEMPTIONS:
            if not isinstance(value, yaml.SequenceNode):
                problems.append(_problem(path, value, f"{EXEMPTIONS}: expected a list of exemptions"))
                continue
            for item in value.value[:MAX_EXEMPTIONS]:
                made = _exemption(path, item)
                if isinstance(made, Exemption):
                    exemptions.append(made)
                else:
                    problems += made
    return ServingPolicy(mode, severity, tuple(exemptions)), problems
