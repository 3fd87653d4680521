"""``factor``: turn flat runtimes into profiles and thin children, proving nothing rendered changes."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from omerender.cli.common import (
    STDOUT_HINT,
    guard,
    output_option,
    paths_argument,
    refuse_output_in_input,
    report_settings,
    resolve_kube_version,
)
from omerender.cli.options import settings_options
from omerender.errors import EXIT_FINDINGS
from omerender.factor.report import FACTOR_FORMATS
from omerender.settings import Settings

if TYPE_CHECKING:
    from omerender.factor.run import FactorOptions, FactorResult


def _names(given: tuple[str, ...]) -> dict[str, str]:
    from omerender.names import DNS_1123_SUBDOMAIN

    names: dict[str, str] = {}
    for item in given:
        stem, sep, name = item.partition("=")
        name = name.removesuffix("-profile")
        if not sep or not stem or not DNS_1123_SUBDOMAIN.match(f"{name}-profile"):
            raise click.BadParameter(
                f"{item!r}: want DEFAULT=NAME, NAME a DNS subdomain", param_hint="'--profile-name'"
            )
        names[stem.removesuffix("-profile")] = name
    return names


def _refuse(paths: tuple[str, ...], settings: Settings, in_place: bool, dry_run: bool, force: bool) -> None:
    """Usage errors: the choice of where to write, stdin, and a DIR that is not empty or inside the inputs."""
    from omerender.factor import tree

    output_dir = settings.output_dir
    if sum((output_dir is not None, in_place, dry_run)) != 1:
        raise click.UsageError("give exactly one of --output-dir DIR, --in-place and --dry-run")
    if "-" in paths:
        raise click.UsageError("factor rewrites files, so it cannot read stdin ('-')")
    if force and output_dir is None:
        raise click.UsageError("--force goes with --output-dir")
    if output_dir is not None:
        refuse_output_in_input(list(paths), [("--output-dir", output_dir)], allowable=False)
        if not force and not tree.is_empty_dir(output_dir):
            raise click.UsageError(f"{output_dir} is not empty; use --force to replace it")
        try:
            tree.roots_of(list(paths))
        except tree.TreeError as exc:
            raise click.UsageError(str(exc)) from None


def _factored(paths: list[str], options: FactorOptions, settings: Settings) -> FactorResult:
    """factor's result, its diagnostics reported; exit 1 when it failed."""
    from omerender.factor.run import factor as run_factor

    result = run_factor(paths, options)
    report_settings(result.diagnostics, settings)
    if result.failed:
        sys.exit(EXIT_FINDINGS)
    return result


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
def factor(paths: tuple[str, ...], settings: Settings, **flags: Any) -> None:
    """Turn flat runtimes in PATHS into profiles and thin children that inherit from them.

    Runtimes sharing an engine (runner image repository, multi-node or not, components) get a
    profile holding what they all share; each becomes a child that keeps its name, file, comments
    and what differs. Before writing, factor proves that every runtime's merged spec and every
    rendered object stay the same, byte for byte; if not, it writes nothing and exits 1.
    Auto-selected runtimes (autoSelect: true) stay flat: OME renders them without inheritance.
    """
    from omerender.cli.build import cores
    from omerender.factor import journal, tree
    from omerender.factor.report import unified_diffs
    from omerender.factor.run import FactorOptions
    from omerender.pipeline import options_from

    _refuse(paths, settings, flags["in_place"], flags["dry_run"], flags["force"])
    options = FactorOptions(
        build=options_from(settings, kube_version=resolve_kube_version(settings.kube_version), parse_jobs=cores()),
        profiles_dir=flags["profiles_dir"],
        names=_names(flags["profile_name"]),
        deep=not flags["no_class_profiles"],
        convert_auto_selected=flags["convert_auto_selected"],
        search_paths=list(settings.search_path),
        cluster_profiles=flags["cluster_profiles"],
        settings_file=settings.config,
    )
    folder = journal.folder_of(list(paths))
    if flags["in_place"]:  # one lock from before the read until the change is in place
        with journal.holding(folder, [*paths, *options.search_paths]) as held:
            recovered = journal.recover(held)
            if recovered:
                click.echo(f"omerender: {recovered}", err=True)
            result = _factored(list(paths), options, settings)
            journal.write(held, result.files, result.originals)
    else:
        left = journal.pending(folder)
        if left:
            click.echo(
                f"omerender: warning: {left}: a killed factor --in-place left its "
                "journal; factor --in-place finishes it (once it has checked that it is this tree's)",
                err=True,
            )
        result = _factored(list(paths), options, settings)
        if settings.output_dir is not None:
            try:
                tree.write_tree(settings.output_dir, tree.mirror(list(paths), result.files))
            except tree.TreeError as exc:
                raise click.UsageError(str(exc)) from None
    click.echo(FACTOR_FORMATS[settings.output or "table"](result.report), nl=False)
    if flags["show_diff"]:
        click.echo(unified_diffs(result.originals, result.files), nl=False)


COMMANDS = (factor,)
