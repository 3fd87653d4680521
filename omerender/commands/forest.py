"""``tree`` and ``graph``: the inheritance forest of the inputs, or the part of it a ``View`` selects.

The build skips the Kubernetes schema check (the forest's shape does not depend on it) and parses with every
core. A view is one runtime's subtree (``--runtime``: a ServingRuntime in the namespace, else a
ClusterServingRuntime, or NAMESPACE/NAME) or one InferenceService's chain (``--isvc``), not both; then only the
runtimes some InferenceService uses (``--used-only``) and each runtime's InferenceServices as one count
(``--collapse-isvcs``). A runtime or InferenceService the inputs do not hold is a usage problem, said after the
diagnostics (with the namespaces that hold a runtime of that name). The verdict fails when anything is broken but
a runtime or InferenceService only a search path holds that nothing under the PATHs uses (it is still drawn and
marked; its error is a warning, as in ``build``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from omerender.commands.outcome import Outcome, UsageProblem, Verdict
from omerender.commands.request import Inputs, build_options, parse_jobs
from omerender.forest.model import Forest, forest
from omerender.forest.select import (
    chain,
    collapse_isvcs,
    find_isvc,
    find_runtime,
    namespaces_holding,
    subtree,
    used_only,
)
from omerender.lifecycle.lock import isvc_key
from omerender.pipeline import build
from omerender.resolve.index import runtime_key
from omerender.resolve.unused import unused
from omerender.result import BuildOptions, BuildResult
from omerender.settings import Settings


@dataclass(frozen=True)
class View:
    """What part of the forest to show: ``runtime``'s subtree or ``isvc``'s chain (NAME or NAMESPACE/NAME),
    ``used_only`` runtimes, InferenceServices collapsed into counts."""

    runtime: str | None = None
    isvc: str | None = None
    collapse_isvcs: bool = False
    used_only: bool = False


@dataclass(frozen=True)
class ForestRequest:
    inputs: Inputs
    options: BuildOptions
    view: View = View()
    stdin: Callable[[], bytes] = lambda: b""

    @classmethod
    def from_settings(
        cls, settings: Settings, paths: Sequence[str], view: View = View(), stdin: Callable[[], bytes] = lambda: b""
    ) -> ForestRequest:
        options = build_options(settings, paths, kube_version=None, parse_jobs=parse_jobs(settings))
        return cls(Inputs.of(settings, paths), options, view, stdin)


def run(request: ForestRequest) -> Outcome[Forest]:
    """The forest to show (payload), the build's diagnostics, and FINDINGS when anything is broken."""
    view = request.view
    if view.runtime and view.isvc:
        return Outcome(verdict=Verdict.USAGE, problem=UsageProblem("give --runtime or --isvc, not both"))
    result = build(request.inputs.roots, request.options, request.stdin)
    outcome: Outcome[Forest] = Outcome(diagnostics=result.diagnostics, builds=(result,))
    whole = forest(result)
    shown = selected(whole, view, request.options.namespace)
    if isinstance(shown, UsageProblem):
        outcome.problem, outcome.verdict = shown, Verdict.USAGE
        return outcome
    outcome.payload = shown
    broken = whole.broken(_spared(request, result) if request.inputs.search_paths else frozenset())
    outcome.verdict = Verdict.FINDINGS if result.failed or broken else Verdict.OK
    return outcome


def _spared(request: ForestRequest, result: BuildResult) -> frozenset[str]:
    """The keys of the runtimes and InferenceServices whose breakage does not fail the command, as ``build`` makes
    their errors warnings (``resolve.unused``): read only from a search path, and used by nothing under the PATHs."""
    universe = result.universe
    runtimes, isvcs = universe.all_runtimes(), list(universe.isvcs.values())
    why = unused([*runtimes, *isvcs], universe, request.inputs.owned())
    return frozenset(
        [runtime_key(runtime) for runtime in runtimes if why(runtime)] + [isvc_key(isvc) for isvc in isvcs if why(isvc)]
    )


def selected(whole: Forest, view: View, namespace: str) -> Forest | UsageProblem:
    """The part of ``whole`` that ``view`` shows, or the usage problem of a runtime or InferenceService it
    names that is not there."""
    shown = whole
    if view.runtime:
        found = find_runtime(whole, view.runtime, namespace)
        if found is None:
            return _no_runtime(whole, view.runtime, namespace)
        shown = subtree(whole, found)
    if view.isvc:
        found = find_isvc(whole, view.isvc, namespace)
        if found is None:
            return UsageProblem(f"no InferenceService {view.isvc} (namespace {namespace})", "--isvc")
        shown = chain(whole, found)
    if view.used_only:
        shown = used_only(shown)
    if view.collapse_isvcs:
        shown = collapse_isvcs(shown)
    return shown


def _no_runtime(whole: Forest, runtime: str, namespace: str) -> UsageProblem:
    elsewhere = [] if "/" in runtime else namespaces_holding(whole, runtime)
    hint = f"; it exists in namespace {', '.join(elsewhere)}: pass -n {elsewhere[0]}" if elsewhere else ""
    hint += f" (or write {elsewhere[0]}/{runtime})" if elsewhere else ""
    return UsageProblem(f"no runtime {runtime} (namespace {namespace}){hint}", "--runtime")
