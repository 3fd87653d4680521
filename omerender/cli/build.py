"""``build`` and ``status``: render the objects, report the chains.

Each command makes its request from the settings, runs its use case (``omerender.commands``) and says the
outcome; the use case is imported when the command runs (start-up: ``--help`` loads every family).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

import click

from omerender.cli.guard import guard, stdin
from omerender.cli.options import settings_options
from omerender.cli.output import echo_pieces
from omerender.cli.params import STDOUT_HINT, command_line, output_option, paths_argument
from omerender.cli.present import exit_with, refuse, report_outcome, say
from omerender.cli.streams import keep_to_exit
from omerender.cli.verdict import count_emitted
from omerender.errors import WriteError
from omerender.output.formats import BUILD_FORMATS, STATUS_FORMATS
from omerender.settings import Settings

if TYPE_CHECKING:
    from omerender.commands.build import BuildRequest


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
    from omerender.commands.build import BuildRequest

    present_build(BuildRequest.from_settings(settings, paths, stdin=stdin))


@contextlib.contextmanager
def _folder_kept(settings: Settings) -> Iterator[None]:
    """Out of memory before ``--output-dir`` is swapped in says that the folder is as it was (after the swap,
    the writer says that it is new)."""
    try:
        yield
    except MemoryError:
        if not settings.output_dir or settings.check:
            raise
        folder = settings.output_dir
        raise WriteError(f"{folder}: cannot write: out of memory; {folder} is as it was") from None


def present_build(request: BuildRequest) -> None:
    """Run ``request`` (``build``, ``argocd-generate``): its notes, then the report, then what it delivers and its
    exit code. Nothing is printed or written for a build that fails."""
    from omerender.commands.build import deliver, run

    say(request.notes)
    refuse(request.problem)
    with _folder_kept(request.settings):
        outcome = run(request)
        keep_to_exit(outcome)  # what the process ends with is never freed object by object
        report_outcome(outcome, request.settings)
        if outcome.payload is None or outcome.failed:
            exit_with(outcome.verdict)
            return
        count_emitted(len(outcome.payload.selection.pairs))
        regenerate = command_line(click.get_current_context(), drop=("--check",))
        delivered = deliver(request, outcome.payload, regenerate)
        say(delivered.notes)
        if delivered.payload is not None:
            echo_pieces(delivered.payload)
        exit_with(delivered.verdict)


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
    from omerender.commands.status import StatusRequest, run

    request = StatusRequest.from_settings(settings, paths, stdin=stdin)
    say(request.notes)
    refuse(request.problem)
    outcome = run(request)
    report_outcome(outcome, settings)
    if outcome.payload is not None:
        click.echo(STATUS_FORMATS[settings.output or "table"](outcome.payload), nl=False)
    exit_with(outcome.verdict)


COMMANDS = (build, status)
