"""``status``: every runtime's inheritance chain and InheritanceReady condition, as OME's status shows them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from omerender.commands.outcome import Level, Note, Outcome, UsageProblem, Verdict
from omerender.commands.request import Inputs, build_options, kube_check
from omerender.output.formats import StatusView
from omerender.pipeline import status
from omerender.result import BuildOptions
from omerender.settings import Settings


@dataclass(frozen=True, kw_only=True)
class StatusRequest:
    """The runtimes of ``inputs`` to show (those read only from a search path resolve parents, unlisted), read
    with ``options``; ``notes`` are said before it runs, a ``problem`` means it does not (exit 2)."""

    inputs: Inputs
    options: BuildOptions
    stdin: Callable[..., bytes]
    notes: tuple[Note, ...] = ()
    problem: UsageProblem | None = None

    @classmethod
    def from_settings(cls, settings: Settings, paths: Sequence[str], *, stdin: Callable[..., bytes]) -> StatusRequest:
        kube = kube_check(settings.kube_version)
        options = build_options(settings, paths, kube_version=kube.version)
        return cls(
            inputs=Inputs.of(settings, paths), options=options, stdin=stdin, notes=kube.notes, problem=kube.problem
        )


def run(request: StatusRequest) -> Outcome[StatusView]:
    """The status of every runtime a PATH holds; findings when a chain is broken or an input is in error."""
    if request.problem is not None:
        return Outcome(verdict=Verdict.USAGE, notes=[Note(request.problem.message, Level.ERROR)])
    found = status(request.inputs.roots, request.options, request.stdin, request.inputs.owned())
    view = StatusView(found.listing, found.sources, found.last_resolved)
    return Outcome(view, found.diagnostics, Verdict.FINDINGS if found.failed else Verdict.OK)
