"""``build``: render what the OME controller creates, select what to emit, and deliver it.

``run`` builds and selects (``argocd-generate`` and the KRM function ``krm`` run it too, with their own
requests); ``deliver`` writes the status file and ``--output-dir``, or gives the pieces to print, once the CLI has
reported what ``run`` found and nothing failed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from omerender import codes
from omerender.changes.locks import by_lock
from omerender.commands import engine
from omerender.commands.engine import Given, Work
from omerender.commands.outcome import Level, Note, Outcome, UsageProblem, Verdict
from omerender.commands.request import Inputs, build_options, kube_check, lock_path, output_in_input, parse_jobs
from omerender.constants import STDIN
from omerender.diagnostics import WARNING, Diagnostic, has_errors, sorted_unique
from omerender.fanout import Workers
from omerender.lifecycle.lock import last_chains
from omerender.load.obj import Obj
from omerender.output.delivery import emit_options, empty_problem, text_shape, to_folder, usage_problem
from omerender.output.emit import EmitOptions, Selection, cluster_selects
from omerender.output.formats import BUILD_PIECES, dump_json
from omerender.output.prerendered import PrerenderedBuild
from omerender.output.writer import write_file
from omerender.resolve.status import status_list
from omerender.result import BuildOptions, BuildResult, Resolved
from omerender.settings import Settings
from omerender.yamlwrite import dump_one


def no_stdin(_limit: int = -1) -> bytes:
    """Standard input for a request that reads none: nothing."""
    return b""


@dataclass(frozen=True, kw_only=True)
class BuildRequest:
    """One build: the ``inputs`` read (or the objects ``given``, with the inputs read beside them), the core's
    ``options``, what to ``emit``, the ``settings`` that say where it goes, whether its objects get ``--output-dir``
    files (``files``) and the ``workers`` that may render. ``notes`` are said before it runs; a ``problem`` means
    it does not run (exit 2)."""

    inputs: Inputs
    settings: Settings
    options: BuildOptions
    emit: EmitOptions
    files: bool = False
    workers: Workers | None = None
    stdin: Callable[..., bytes] = no_stdin
    given: Given | None = None
    notes: tuple[Note, ...] = ()
    problem: UsageProblem | None = None

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        paths: Sequence[str],
        *,
        stdin: Callable[..., bytes] = no_stdin,
        kube_label: str = "--kube-version",
    ) -> BuildRequest:
        """The build of PATHS ``paths`` with ``settings``; ``kube_label`` names where the Kubernetes version came
        from (Argo CD's ``KUBE_VERSION``)."""
        inputs = Inputs.of(settings, paths)
        usage = usage_problem(settings, settings.output)
        kube = kube_check(settings.kube_version, kube_label)
        outputs = [
            ("--output-dir", None if settings.check else settings.output_dir),
            ("--status-file", settings.status_file),
        ]
        overlap = None if settings.allow_output_in_input else output_in_input(inputs.roots, outputs)
        return cls(
            inputs=inputs,
            settings=settings,
            options=build_options(settings, paths, kube_version=kube.version, parse_jobs=parse_jobs(settings)),
            emit=emit_options(settings, inputs.owned()),
            files=bool(settings.output_dir),
            workers=engine.workers_for(settings),
            stdin=stdin,
            notes=() if usage else kube.notes,  # the delivery's problem is found first: nothing else is said
            problem=UsageProblem(usage) if usage else kube.problem or overlap,
        )


@dataclass(frozen=True)
class Built:
    """What a build emits: its ``result`` (whole objects, or workers' stand-ins) and the ``selection`` of it."""

    result: BuildResult | PrerenderedBuild
    selection: Selection


def refused(problem: UsageProblem) -> Outcome[Built]:
    return Outcome(verdict=Verdict.USAGE, notes=[Note(problem.message, Level.ERROR)])


def run(request: BuildRequest) -> Outcome[Built]:
    """Build, select what to emit, and judge: findings (any error, the build's or the output's) fail the run."""
    if request.problem is not None:
        return refused(request.problem)
    shape = text_shape(request.settings)
    work = Work(
        request.inputs.roots, request.options, request.stdin, request.emit, shape, request.workers, request.given
    )
    result = engine.render(work)
    result.diagnostics = cluster_selects(result.diagnostics, tuple(request.settings.emit))
    result.diagnostics += unread_locks(result, request)
    selection = engine.emitted(result, request.emit, request.files)
    findings = sorted_unique(result.diagnostics + selection.diagnostics)  # the build's and the output's, once
    verdict = Verdict.FINDINGS if has_errors(findings) else Verdict.OK
    return Outcome(Built(result, selection), findings, verdict, builds=(result,))


def unread_locks(result: Resolved, request: BuildRequest) -> list[Diagnostic]:
    """A warning at each ``omerender.lock`` nearest above InferenceServices of this build that the build does not
    read (one lock a run: ``build apps`` reads ``apps/omerender.lock``, not ``apps/team-a/omerender.lock``): their pins
    do not hold here, though they do where the app is built alone (an Argo CD application of ``apps/team-a``)."""
    if request.settings.lock_file:
        return []
    paths = [p for p in request.inputs.paths if p != STDIN]
    own = lock_path(request.settings, paths)
    read = own if os.path.isfile(own) else f"{own}, which does not exist"
    out = []
    for lock, keys in sorted(by_lock(result, paths, own, lambda isvc: not request.inputs.owned()(isvc)).items()):
        message = (
            f"this build does not read this lock, so it does not pin the {len(keys)} InferenceService(s) below it "
            f"({', '.join(sorted(keys)[:3])}{', ...' if len(keys) > 3 else ''}): it reads {read} (one lock a run); "
            f"build their folder alone, as an Argo CD application of it does, or pass --lock-file {lock}"
        )
        out.append(Diagnostic(lock, 1, 1, WARNING, message, codes.LOCK_NOT_READ))
    return out


def write_status(result: Resolved, path: str, listed: Callable[[Obj], bool]) -> None:
    """``--status-file``: what ``status -o yaml`` (``-o json`` for a ``.json`` file) prints for the same inputs, the
    runtimes ``listed`` accepts (those a PATH holds: search-path runtimes only resolve parents)."""
    universe, chains = result.universe, result.chains
    status = status_list(universe, chains, last_chains(result.lifecycle.lock, universe.all_runtimes()), listed)
    write_file(path, dump_json(status) if path.endswith(".json") else dump_one(status))


def deliver(request: BuildRequest, built: Built, regenerate: str) -> Outcome[Iterator[str | bytes]]:
    """Where a build that passed goes: the status file, then ``--output-dir`` written or compared (``regenerate``:
    the command that would fix it), or the pieces of the ``-o`` format to print (none under ``--check``)."""
    settings = request.settings
    if settings.status_file:
        write_status(built.result, settings.status_file, request.inputs.owned())
    problem = empty_problem(built.selection, built.result, settings)
    if problem:
        return Outcome(verdict=Verdict.FINDINGS, notes=[Note(problem, Level.ERROR)])
    if not settings.output_dir:
        pieces = BUILD_PIECES[settings.output or "yaml"](built.selection.objects)
        return Outcome(None if settings.check else engine.printed(pieces))
    folder = to_folder(built.selection, settings, regenerate)
    return Outcome(
        notes=[Note(folder.text)] if folder.text else [], verdict=Verdict.FINDINGS if folder.failed else Verdict.OK
    )
