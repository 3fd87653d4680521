"""``build`` and ``status``: render the objects, report the chains."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from omerender.cli.guard import guard, stdin
from omerender.cli.options import settings_options
from omerender.cli.params import STDOUT_HINT, output_option, paths_argument
from omerender.cli.present import refuse_output_in_input, resolve_kube_version
from omerender.cli.report import report_settings
from omerender.cli.streams import keep_to_exit
from omerender.errors import EXIT_FINDINGS
from omerender.output.formats import BUILD_FORMATS, STATUS_FORMATS
from omerender.settings import Settings

if TYPE_CHECKING:
    from omerender.fanout import Fanout
    from omerender.result import BuildResult


def _refuse_overlaps(paths: tuple[str, ...], settings: Settings) -> None:
    if not settings.allow_output_in_input:
        outputs = [("--output-dir", None if settings.check else settings.output_dir)]
        outputs += [("--status-file", settings.status_file)]  # the report files: cli.options, for every command
        refuse_output_in_input([*paths, *settings.search_path], outputs)


def _write_status(result: BuildResult, path: str) -> None:
    from omerender.lifecycle.lock import last_chains
    from omerender.load.yamlio import dump_one
    from omerender.output.formats import dump_json
    from omerender.output.writer import write_file
    from omerender.resolve.status import status_list

    lock = result.lifecycle.lock
    universe, chains = result.universe, result.chains
    status = status_list(universe, chains, last_chains(lock, universe.all_runtimes()))
    write_file(path, dump_json(status) if path.endswith(".json") else dump_one(status))


@click.command(short_help="Render what the OME controller creates for each InferenceService.")
@paths_argument
@output_option(
    list(BUILD_FORMATS),
    None,
    "Output format: yaml (a stream, the default), json (a v1 List, as kubectl get -o json), name (kind.group/name).",
    "Did you mean --output-dir {value}?",
)
@settings_options("build")
@guard
def build(paths: tuple[str, ...], settings: Settings) -> None:
    """Render the objects the OME controller creates for every InferenceService in PATHS."""
    from omerender.output.delivery import usage_problem

    problem = usage_problem(settings, settings.output)
    if problem:
        raise click.UsageError(problem)
    render(paths, settings, resolve_kube_version(settings.kube_version))


def cores() -> int:
    """``fanout.cores``, under its old name here (``commands.request.parse_jobs`` is the ``-j`` default)."""
    from omerender.fanout import cores as available

    return available()


def _fanout(settings: Settings, paths: tuple[str, ...]) -> Fanout | None:
    """The workers ``-j/--jobs`` asks for (None: this process): without it, one per core available, for a
    build of at least ``fanout.AUTO_LEAST`` InferenceServices."""
    from omerender.fanout import AUTO_LEAST
    from omerender.output.delivery import fanout

    if settings.jobs is not None:
        return fanout(settings, paths, settings.jobs, 2) if settings.jobs > 1 else None
    available = cores()
    return fanout(settings, paths, available, AUTO_LEAST) if available > 1 else None


def render(paths: tuple[str, ...], settings: Settings, kube: str | None) -> None:
    """Build PATHS with ``settings`` (``kube``: the Kubernetes version resolved), report, and deliver: what
    ``build`` and ``argocd-generate`` share. Out of memory before ``--output-dir`` is swapped in says that the
    folder is as it was (after the swap, the writer says that it is new)."""
    try:
        _render(paths, settings, kube)
    except MemoryError:
        if not settings.output_dir or settings.check:
            raise
        from omerender.errors import WriteError

        folder = settings.output_dir
        raise WriteError(f"{folder}: cannot write: out of memory; {folder} is as it was") from None


def _render(paths: tuple[str, ...], settings: Settings, kube: str | None) -> None:
    from omerender.cli.output import deliver
    from omerender.cli.verdict import count_emitted
    from omerender.diagnostics import has_errors, sorted_unique
    from omerender.output.delivery import emitted
    from omerender.pipeline import build as run_build
    from omerender.pipeline import options_from

    _refuse_overlaps(paths, settings)
    from omerender.lifecycle.lock import default_path
    from omerender.output.emit import cluster_selects

    lock = settings.lock_file or default_path(list(paths))  # PATHS place it, not the search paths
    jobs = settings.jobs if settings.jobs is not None else cores()
    options = options_from(settings, kube_version=kube, lock_file=lock, parse_jobs=jobs)
    fanout = _fanout(settings, paths)
    result = run_build([*paths, *settings.search_path], options, stdin, fanout=fanout)
    keep_to_exit(result)
    result.diagnostics = cluster_selects(result.diagnostics, tuple(settings.emit))
    selection = emitted(result, settings, paths)
    keep_to_exit(selection)
    findings = sorted_unique(result.diagnostics + selection.diagnostics)  # the build's and the output's, once
    report_settings(findings, settings, result)
    if has_errors(findings):
        sys.exit(EXIT_FINDINGS)
    count_emitted(len(selection.pairs))
    if settings.status_file:
        _write_status(result, settings.status_file)
    deliver(selection, result, settings, click.get_current_context())


@click.command(short_help="Show each runtime's inheritance chain and InheritanceReady.")
@paths_argument
@output_option(
    list(STATUS_FORMATS),
    "table",
    "Output format: table; wide (adds the last chain that resolved and FILE:LINE); yaml or json (a v1 List "
    "with status.inheritanceChain and the InheritanceReady condition); name (kind.group/name).",
    STDOUT_HINT,
)
@settings_options("status")
@guard
def status(paths: tuple[str, ...], settings: Settings) -> None:
    """Show every runtime's inheritance chain and its InheritanceReady condition.

    A broken chain shows the last chain that resolved, from the lock file, as OME's status keeps it.
    Runtimes read only from a --search-path (not from a PATH) resolve parents: they are not listed.
    """
    from omerender.lifecycle.lock import default_path
    from omerender.output.emit import only_searched
    from omerender.output.formats import STATUS_FORMATS as FORMATTERS
    from omerender.output.formats import StatusView
    from omerender.pipeline import options_from
    from omerender.pipeline import status as run_status

    lock = settings.lock_file or default_path(list(paths))
    options = options_from(settings, kube_version=resolve_kube_version(settings.kube_version), lock_file=lock)
    searched = only_searched(list(settings.search_path), list(paths))
    result = run_status([*paths, *settings.search_path], options, stdin, lambda r: not searched(r))
    report_settings(result.diagnostics, settings)
    view = StatusView(result.listing, result.sources, result.last_resolved)
    click.echo(FORMATTERS[settings.output or "table"](view), nl=False)
    if result.failed:
        sys.exit(EXIT_FINDINGS)


COMMANDS = (build, status)
