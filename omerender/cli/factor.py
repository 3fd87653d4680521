"""``factor``: turn flat runtimes into profiles and thin children, proving nothing rendered changes."""

from __future__ import annotations

from dataclasses import dataclass

import click

from omerender.cli.guard import guard
from omerender.cli.options import settings_options
from omerender.cli.own_options import own_options
from omerender.cli.params import STDOUT_HINT, output_option, paths_argument
from omerender.cli.present import exit_with, refuse, report_outcome, say
from omerender.factor.report import FACTOR_FORMATS
from omerender.settings import Settings


@dataclass(frozen=True)
class FactorFlags:
    """factor's own options, as typed (``commands.factor.Choices`` says what each means)."""

    in_place: bool
    dry_run: bool
    show_diff: bool
    force: bool
    profiles_dir: str | None
    profile_name: tuple[str, ...]
    convert_auto_selected: bool
    no_class_profiles: bool
    cluster_profiles: bool


@click.command(short_help="Extract shared runtime settings into profiles (inherit-from).")
@paths_argument
@click.option(
    "--in-place", is_flag=True, help="Rewrite the input files that change, each atomically; add the profiles."
)
@click.option("--dry-run", is_flag=True, help="Write nothing; print the report (and with --diff the diffs).")
@click.option("--diff", "show_diff", is_flag=True, help="Also print a unified diff of every file changed or added.")
@output_option(list(FACTOR_FORMATS), "table", "Report format: table or json.", STDOUT_HINT)
@click.option("--force", is_flag=True, help="With --output-dir: replace a DIR that is not empty.")
@click.option(
    "--profiles-dir",
    type=click.Path(file_okay=False),
    help="Folder for the new profile files [default: profiles/ where every build reading their children reads them: "
    "beside the kustomization listing them, in their search path or app].",
)
@click.option(
    "--profile-name",
    multiple=True,
    metavar="DEFAULT=NAME",
    help="Name the profile factor would call DEFAULT-profile NAME-profile instead (repeatable).",
)
@click.option(
    "--convert-auto-selected",
    is_flag=True,
    help="Also turn auto-selected runtimes into children, with autoSelect: false; refused when an "
    "InferenceService relies on OME selecting one of them.",
)
@click.option("--no-class-profiles", is_flag=True, help="Only engine profiles: no GPU-class profiles below them.")
@click.option(
    "--cluster-profiles",
    is_flag=True,
    help="Give ServingRuntimes ClusterServingRuntime profiles too [default: a ServingRuntime profile in their "
    "namespace]; refused when a runtime elsewhere in the repository has its name.",
)
@settings_options("factor")
@guard
@own_options(FactorFlags)
def factor(paths: tuple[str, ...], settings: Settings, options: FactorFlags) -> None:
    """Turn flat runtimes in PATHS into profiles and thin children that inherit from them.

    Runtimes sharing an engine (runner image repository, multi-node or not, components) get a
    profile holding what they all share; each becomes a child that keeps its name, file, comments
    and what differs. Before writing, factor proves that every runtime's merged spec and every
    rendered object stay the same, byte for byte; if not, it writes nothing and exits 1.
    Auto-selected runtimes (autoSelect: true) stay flat: OME renders them without inheritance.
    """
    from omerender.commands.factor import Choices, FactorRequest, run  # the core: only when the command runs (start-up)
    from omerender.factor.report import unified_diffs

    choices = Choices(
        in_place=options.in_place,
        dry_run=options.dry_run,
        force=options.force,
        profiles_dir=options.profiles_dir,
        profile_names=options.profile_name,
        class_profiles=not options.no_class_profiles,
        convert_auto_selected=options.convert_auto_selected,
        cluster_profiles=options.cluster_profiles,
    )
    outcome = run(FactorRequest.from_settings(settings, paths, choices))
    done = outcome.payload
    ran = done is not None and done.result is not None
    say(done.before if done is not None else ())
    if ran:  # nothing is reported when factor was refused before it read anything
        report_outcome(outcome, settings)
    refuse(outcome.problem)
    if done is not None and done.failure is not None:
        raise done.failure  # the guard's line and exit code, after the diagnostics
    exit_with(outcome.verdict)
    assert done is not None and done.result is not None
    click.echo(FACTOR_FORMATS[settings.output or "table"](done.result.report), nl=False)
    if options.show_diff:
        click.echo(unified_diffs(done.result.originals, done.result.files), nl=False)


COMMANDS = (factor,)
