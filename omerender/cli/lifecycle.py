"""Commands about runtimes over time: ``effective``, ``lock`` and ``diff`` (registered on ``cli.main``)."""

from __future__ import annotations

from dataclasses import dataclass

import click

from omerender.cli.guard import guard, stdin
from omerender.cli.options import settings_options
from omerender.cli.own_options import own_options
from omerender.cli.params import STDOUT_HINT, OutputFormat, output_option, paths_argument
from omerender.cli.present import exit_with, refuse, report_outcome, say
from omerender.output.formats import DIFF_FORMATS, EFFECTIVE_FORMATS
from omerender.settings import Settings


@dataclass(frozen=True)
class EffectiveOptions:
    isvc: str
    show_origin: bool


@click.command(short_help="Show the runtime an InferenceService uses, and its drift.")
@click.argument("isvc", metavar="ISVC")
@paths_argument
@output_option(
    list(EFFECTIVE_FORMATS),
    "table",
    "Output format: table, or yaml and json, which add the chain (root first) and the merged spec.",
    STDOUT_HINT,
)
@click.option(
    "--show-origin", is_flag=True, help="Name the runtime in the chain (or the InferenceService) that set each field."
)
@settings_options("effective")
@guard
@own_options(EffectiveOptions)
def effective(paths: tuple[str, ...], settings: Settings, options: EffectiveOptions) -> None:
    """Show the runtime InferenceService ISVC uses: kind, name, revision, pinned or following, drift.

    ISVC is NAME (in the -n namespace) or NAMESPACE/NAME. Exit 1 when it is not found or no
    revision of its runtime resolves. Like `kubectl ome runtime effective ISVC -n NAMESPACE`. With --show-origin,
    fields the InferenceService sets on its components are listed under the runtime config they override.
    """
    from omerender.commands.effective import EffectiveRequest, run  # the core: only when the command runs (start-up)

    outcome = run(EffectiveRequest.from_settings(settings, paths, options.isvc, stdin))
    report_outcome(outcome, settings)
    if outcome.payload is not None:
        click.echo(EFFECTIVE_FORMATS[settings.output or "table"](outcome.payload, options.show_origin), nl=False)
    exit_with(outcome.verdict)


@dataclass(frozen=True)
class LockOptions:
    roll_forward: tuple[str, ...]


@click.command(name="lock", short_help="Record each InferenceService's runtime revision in the lock file.")
@paths_argument
@click.option(
    "--roll-forward",
    "roll_forward",
    multiple=True,
    metavar="ISVC",
    help="Move an autoSync: false InferenceService (name or namespace/name) to the live merged spec. Repeatable.",
)
@settings_options("lock")
@guard
@own_options(LockOptions)
def lock_command(paths: tuple[str, ...], settings: Settings, options: LockOptions) -> None:
    """Record each InferenceService's runtime, revision, chain and merged-spec snapshot in the lock file.

    autoSync: false InferenceServices keep their locked revision until --roll-forward names them;
    revisions a pin still needs are kept, others dropped. Nothing is written when the build has errors.
    A snapshot edited by hand (or missing) is dropped and InferenceServices that follow their live
    runtime are re-recorded; a pinned one is an error until --roll-forward names it (or the lock
    file is restored), so that what it runs never changes silently.
    """
    from omerender.commands.lock import LockRequest, run  # the core: only when the command runs (start-up)

    outcome = run(LockRequest.from_settings(settings, paths, options.roll_forward, stdin))
    report_outcome(outcome, settings)
    refuse(outcome.problem)
    if outcome.payload is not None:
        click.echo(outcome.payload.message, err=True)
    exit_with(outcome.verdict)


@dataclass(frozen=True)
class DiffOptions:
    git_ref: str | None
    old: tuple[str, ...]
    new: tuple[str, ...]
    legacy_format: str | None


@click.command(short_help="Show which runtimes and InferenceServices change between trees.")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--against", "git_ref", metavar="GIT_REF", help="Compare PATHS with the same paths at GIT_REF (instead of OLD NEW)."
)
@click.option("--old", multiple=True, type=click.Path(), metavar="PATH", help="A root of the old side (repeatable).")
@click.option("--new", multiple=True, type=click.Path(), metavar="PATH", help="A root of the new side (repeatable).")
@output_option(
    list(DIFF_FORMATS),
    "text",
    "Output format: text, json (canonical, for tools) or markdown (for a pull-request comment).",
    STDOUT_HINT,
)
@click.option(
    "--format",
    "legacy_format",
    type=OutputFormat(list(DIFF_FORMATS), STDOUT_HINT),
    hidden=True,
    help="Old name of -o/--output, kept as an alias.",
)
@settings_options("diff")
@guard
@own_options(DiffOptions)
def diff(paths: tuple[str, ...], settings: Settings, options: DiffOptions) -> None:
    """Which runtimes' merged specs change between OLD and NEW, and which InferenceServices roll out.

    \b
    omerender diff OLD NEW
    omerender diff --old PATH [--old PATH...] --new PATH [--new PATH...]
    omerender diff --against GIT_REF PATH...
    Exit 0: no change; 1: changes; 2: usage error (bad options, a bad git ref);
    4: a tree does not build (the report still lists what no longer renders).

    --model-metadata and --search-path apply to both sides; the --model-metadata file is always read
    from the working tree.
    A --search-path is read from the working tree, also for the GIT_REF side of --against, unless it
    lies inside one of the diffed PATHS: then each side reads it with that path (at GIT_REF for the
    old side). InferenceServices found only there (under no diffed PATH) are not compared.
    """
    from omerender.commands.diff import DiffRequest, run  # the core: only when the command runs (start-up)

    request = DiffRequest.from_settings(
        settings, paths, old=options.old, new=options.new, git_ref=options.git_ref, stdin=stdin
    )
    outcome = run(request)
    if outcome.payload is None:  # git could not extract GIT_REF: nothing was built
        say(outcome.notes)
        exit_with(outcome.verdict)
        return
    report_outcome(outcome, settings)
    fmt = options.legacy_format or settings.output or "text"
    if fmt == "markdown":  # with the picture of the affected subtree, which needs the new build
        from omerender.forest.blast import picture  # the picture only for markdown
        from omerender.output.diff_view import format_markdown

        report = outcome.payload.report
        click.echo(format_markdown(report, picture(report, outcome.payload.new)), nl=False)
    else:
        click.echo(DIFF_FORMATS[fmt](outcome.payload.report), nl=False)
    exit_with(outcome.verdict)


COMMANDS = (effective, lock_command, diff)
