"""What the run's policy does to a serving finding: silence it, change its severity, or leave it.

In order: a finding of an unsilenceable code (``codes.UNSILENCEABLE``) stays as it is. ``serving-check-severity``
sets its severity, and ``serving-checks: warn`` makes an error a warning. Then an
``ignore-check.omerender.io/<code>: "<reason>"`` annotation on the InferenceService or on any runtime of its chain,
or an exemption in ``.omerender.yaml`` naming one of them, turns it into a note that says what silenced it and
carries a ``Suppression`` (with the severity it would have had): the text report shows it at ``-v``, the JSON and
SARIF reports always list it, JUnit and GitLab's Code Quality report never do.

OME copies the InferenceService's annotations into its workloads' pod templates (``components/engine.go:213-232``,
``reconcilers/deployment/deployment_reconciler.go``), so one added there changes the pod template and rolls the GPU
pods; a runtime's own ``metadata.annotations`` are not copied (only its ``engineConfig.annotations`` are).
"""

from __future__ import annotations

import dataclasses

from omerender import codes
from omerender.diagnostics import BY_ANNOTATION, BY_SETTINGS, INFO, WARNING, Diagnostic, Severity, Suppression
from omerender.load.obj import Obj
from omerender.load.serving_rules import ServingPolicy
from omerender.names import clip
from omerender.ome import INFERENCE_SERVICE
from omerender.verify.serving.finding import Finding

PREFIX = "ignore-check.omerender.io/"


def _annotations(obj: Obj) -> dict[str, str]:
    annotations = obj.annotations
    if not annotations:
        return {}
    return {str(k): str(v) if v is not None else "" for k, v in annotations.items() if str(k).startswith(PREFIX)}


def annotated(obj: Obj) -> bool:
    """Whether ``obj`` has an ignore-check annotation."""
    return any(str(key).startswith(PREFIX) for key in obj.annotations)


def annotation_problems(obj: Obj) -> list[Diagnostic]:
    """An ignore-check annotation of ``obj`` with an empty reason, or naming no serving check (warnings, at the
    annotation)."""
    found = []
    for key, reason in _annotations(obj).items():
        code = key[len(PREFIX) :]
        who = _who(obj)
        if code in codes.UNSILENCEABLE:
            message = (
                f"{key} on {who}: {code} is the API server's rule (the pod is refused), so it cannot be "
                "silenced; fix the pod instead"
            )
        elif code not in codes.SERVING_CHECKS:
            message = (
                f"{clip(key)} on {who} names no serving check, so it silences nothing; known: "
                f"{', '.join(sorted(codes.SERVING_CHECKS))}"
            )
        elif not reason.strip():
            message = f'{key} on {who} gives no reason; write why {code} does not apply: {key}: "<reason>"'
        else:
            continue
        found.append(obj.diag(WARNING, message, "metadata", "annotations", key, code=codes.IGNORE_CHECK))
    return found


def _who(obj: Obj) -> str:
    return f"InferenceService {obj.name}" if obj.kind == INFERENCE_SERVICE else f"{obj.kind} {obj.name}"


def silenced_by(
    finding: Finding, sources: tuple[Obj, ...], policy: ServingPolicy, severity: Severity | None = None
) -> Suppression | None:
    """What silences ``finding`` for the InferenceService and chain ``sources``, or None; ``severity``: what the
    finding would be reported as otherwise (its own severity by default)."""
    if finding.code in codes.UNSILENCEABLE:
        return None
    was = severity or finding.severity
    key = PREFIX + finding.code
    for obj in sources:
        if key in obj.annotations:
            reason = clip(str(obj.annotations.get(key) or "").strip())
            return Suppression(BY_ANNOTATION, f"annotation {key} on {_who(obj)}", reason, was)
    for exemption in policy.exemptions:
        if finding.code not in exemption.codes:
            continue
        for obj in sources:
            if (
                obj.kind == exemption.kind
                and obj.name == exemption.name
                and (exemption.namespace is None or obj.namespace == exemption.namespace)
            ):
                return Suppression(BY_SETTINGS, f"the exemption at {exemption.where}", clip(exemption.reason), was)
    return None


def apply(finding: Finding, diagnostic: Diagnostic, sources: tuple[Obj, ...], policy: ServingPolicy) -> Diagnostic:
    """``diagnostic`` (``finding`` located) as the policy reports it: a silenced one is a note that carries its
    ``Suppression`` (what the JSON and SARIF reports list it with, at the severity it would have had)."""
    if finding.code in codes.UNSILENCEABLE:
        return diagnostic
    severity = policy.severity.get(finding.code, diagnostic.severity)
    if policy.mode == "warn" and severity == "error":
        severity = WARNING
    why = silenced_by(finding, sources, policy, severity)
    if why is not None:
        said = why.by + (f" ({why.reason})" if why.reason else "")
        message = f"silenced by {said}: {diagnostic.message}"
        return dataclasses.replace(diagnostic, severity=INFO, message=message, suppression=why)
    return diagnostic if severity == diagnostic.severity else dataclasses.replace(diagnostic, severity=severity)
