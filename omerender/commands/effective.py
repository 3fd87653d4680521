"""``effective``: the runtime one InferenceService uses, or why no answer is given.

The build reads the PATHS and the search paths with the lock beside the PATHS. Four rules refuse an answer
(exit 1, a line saying why): an input that could not be read (the answer would come from a partial set of
objects); an InferenceService that is there but cannot be resolved (its model or runtime is broken: its own
errors say which); one that is not there, or only on a search path (with a hint when it lives in another
namespace); and one that depends on what the API server would not store as written (an answer without it would
be wrong). Otherwise the payload is its ``Effective`` record, and the verdict fails when nothing renders or the
controller configuration is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from omerender.changes.sides import CONFIG_CODES, concerning, dropped_error
from omerender.commands.outcome import Note, Outcome, Verdict
from omerender.commands.request import Inputs, build_options
from omerender.constants import DEFAULT_KUBE_VERSION
from omerender.diagnostics import ERROR, Diagnostic, sorted_unique
from omerender.lifecycle.settle import Effective
from omerender.load.obj import Obj
from omerender.pipeline import build
from omerender.result import BuildOptions, BuildResult
from omerender.settings import Settings


@dataclass(frozen=True)
class EffectiveRequest:
    """Which InferenceService (``isvc``: NAME in ``namespace``, or NAMESPACE/NAME) in which inputs."""

    isvc: str
    inputs: Inputs
    options: BuildOptions
    stdin: Callable[[], bytes] = lambda: b""

    @classmethod
    def from_settings(
        cls, settings: Settings, paths: Sequence[str], isvc: str, stdin: Callable[[], bytes] = lambda: b""
    ) -> EffectiveRequest:
        options = build_options(settings, paths, kube_version=DEFAULT_KUBE_VERSION)
        return cls(isvc, Inputs.of(settings, paths), options, stdin)

    @property
    def key(self) -> str:
        """``namespace/name``."""
        return self.isvc if "/" in self.isvc else f"{self.options.namespace}/{self.isvc}"


def run(request: EffectiveRequest) -> Outcome[Effective]:
    """The InferenceService's record to show, or the notes saying why there is none."""
    result = build(request.inputs.roots, request.options, request.stdin)
    record = result.lifecycle.records.get(request.key)
    searched = record is not None and request.inputs.only_searched()(record.isvc)
    shown = concerning(result, None if searched else record, request.options.model_metadata)
    namespace, _, name = request.key.partition("/")
    present = result.universe.isvcs.get((namespace, name)) if record is None else None
    if present is not None:  # there, but its model or runtime cannot be resolved: its own errors say why
        shown += [d for d in result.diagnostics if d.path == present.path]
    outcome: Outcome[Effective] = Outcome(diagnostics=sorted_unique(shown + result.load_errors), builds=(result,))
    refusal = _refusal(request, result, record if not searched else None, present, shown)
    if refusal or record is None or searched:
        outcome.notes = refusal or _not_found(request, result, record)
        outcome.verdict = Verdict.FINDINGS
        return outcome
    outcome.payload = record
    config_refused = any(d.severity == ERROR and d.code in CONFIG_CODES for d in result.diagnostics)
    outcome.verdict = Verdict.FINDINGS if record.revision is None or config_refused else Verdict.OK
    return outcome


def _refusal(
    request: EffectiveRequest,
    result: BuildResult,
    record: Effective | None,
    present: Obj | None,
    shown: list[Diagnostic],
) -> list[Note]:
    """Why no answer is given although the build ran, in the order the rules are checked; [] when none refuses
    (``record`` None: the InferenceService is not there, which ``_not_found`` says)."""
    if result.load_errors:
        return [
            Note(
                f"{len(result.load_errors)} input error(s) above: the answer would come from a partial set of "
                "objects, so none is given"
            )
        ]
    if present is not None:
        return [
            Note(
                f"InferenceService {request.key} ({present.path}:{present.at()[0]}) cannot be resolved: its model "
                "or runtime is missing or broken (the errors above say which), so no runtime answers"
            )
        ]
    if record is None:
        return []
    wrong = dropped_error(shown)
    if wrong is None:
        return []
    return [  # an answer computed without what the user wrote would be wrong: every command exits 1
        Note(
            f"{request.key} depends on objects the API server would not store as written ({wrong.path}:"
            f"{wrong.line}): an answer without what they hold would be wrong, so none is given"
        )
    ]


def _not_found(request: EffectiveRequest, result: BuildResult, record: Effective | None) -> list[Note]:
    """The InferenceService is not there (or only on a search path, ``record``): say so, and name the
    namespaces that hold one of that name."""
    isvc, namespace = request.isvc, request.options.namespace
    elsewhere = [] if "/" in isvc else sorted(n for n, name in result.universe.isvcs if name == isvc and n != namespace)
    if record is not None:
        where = f" (only on a --search-path, {record.isvc.path})"
    else:
        where = "" if elsewhere else " (or not valid)"
    notes = [Note(f"InferenceService {request.key} not found{where} in {' '.join(request.inputs.paths)}")]
    if elsewhere:
        hint = f"pass -n {elsewhere[0]} (or write {elsewhere[0]}/{isvc})"
        notes.append(Note(f"it exists in namespace {', '.join(elsewhere)}: {hint}"))
    return notes
