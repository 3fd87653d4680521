"""``build`` and ``status``: render the objects, report the chains."""

from __future__ import annotations

import sys

import click

from omerender.cli.common import (
    DEFAULT_KUBE_VERSION,
    controller_config_option,
    guard,
    kube_version_option,
    lock_file_option,
    model_metadata_option,
    namespace_option,
    paths_argument,
    refuse_output_in_input,
    report,
    resolve_kube_version,
    search_path_option,
    stdin,
    strict_option,
    with_gitops_options,
    with_report_options,
)
from omerender.errors import EXIT_FINDINGS


@click.command()
@paths_argument
@namespace_option
@click.option(
    "-o", "--output-dir", type=click.Path(file_okay=False), help="Write one file per object into DIR instead of stdout."
)
@click.option(
    "--status-file",
    type=click.Path(dir_okay=False),
    help="Also write runtime status as a v1 List (.json for JSON, else YAML).",
)
@click.option(
    "--keep-last-good",
    is_flag=True,
    help="Render InferenceServices whose runtime chain is broken from their locked snapshot, with a warning each.",
)
@lock_file_option
@model_metadata_option
@controller_config_option
@strict_option
@kube_version_option
@click.option(
    "--allow-output-in-input",
    is_flag=True,
    help="Allow --output-dir or --status-file inside (or holding) an input path.",
)
@with_report_options
@with_gitops_options
@search_path_option
@guard
def build(
    paths: tuple[str, ...],
    namespace: str,
    output_dir: str | None,
    status_file: str | None,
    report_format: str,
    report_file: str | None,
    max_errors: int | None,
    verbose: int,
    max_file_size: int,
    emit: tuple[str, ...] = ("rendered",),
    search_path: tuple[str, ...] = (),
    check: bool = False,
    fail_on_change: bool = False,
    kustomization: bool = False,
    flux_substitute_disabled: bool = False,
    fail_empty: bool = False,
    keep_last_good: bool = False,
    lock_file: str | None = None,
    model_metadata: str | None = None,
    controller_config: str | None = None,
    strict: bool = False,
    kube_version: str | None = DEFAULT_KUBE_VERSION,
    allow_output_in_input: bool = False,
) -> None:
    """Render the objects the OME controller creates for every InferenceService in PATHS."""
    from omerender.cli.output import OutputOptions, emitted, finish
    from omerender.load.yamlio import dump_one
    from omerender.output.writer import write_file
    from omerender.pipeline import BuildOptions
    from omerender.pipeline import build as run_build
    from omerender.resolve.status import status_list

    out = OutputOptions(emit, search_path, check, fail_on_change, kustomization, flux_substitute_disabled, fail_empty)
    out.validate(output_dir)
    kube = resolve_kube_version(kube_version)
    if not allow_output_in_input:
        refuse_output_in_input(
            list(paths) + list(search_path),
            [
                ("--output-dir", None if check else output_dir),
                ("--status-file", status_file),
                ("--report-file", report_file),
            ],
        )
    result = run_build(
        list(paths) + list(search_path),
        BuildOptions(
            namespace=namespace,
            max_file_bytes=max_file_size,
            keep_last_good=keep_last_good,
            lock_file=lock_file,
            model_metadata=model_metadata,
            controller_config=controller_config,
            strict=strict,
            kube_version=kube,
        ),
        stdin,
    )
    selection = emitted(result, out)
    report(result.diagnostics, report_format, report_file, max_errors, verbose)
    if result.failed:
        sys.exit(EXIT_FINDINGS)
    if status_file:
        from omerender.lifecycle.lock import last_chains

        status = status_list(
            result.universe, result.chains, last_chains(result.lifecycle.lock, result.universe.all_runtimes())
        )
        if status_file.endswith(".json"):
            import json

            write_file(status_file, json.dumps(status, indent=2, sort_keys=True) + "\n")
        else:
            write_file(status_file, dump_one(status))
    finish(selection, result, output_dir, out)


@click.command()
@paths_argument
@namespace_option
@click.option("-o", "--output", type=click.Choice(["table", "yaml", "json"]), default="table", show_default=True)
@lock_file_option
@controller_config_option
@strict_option
@with_report_options
@guard
def status(
    paths: tuple[str, ...],
    namespace: str,
    output: str,
    lock_file: str | None,
    report_format: str,
    report_file: str | None,
    max_errors: int | None,
    verbose: int,
    max_file_size: int,
    controller_config: str | None = None,
    strict: bool = False,
) -> None:
    """Show every runtime's inheritance chain and its InheritanceReady condition.

    A broken chain shows the last chain that resolved, from the lock file, as OME's status keeps it.
    """
    from omerender.load.yamlio import dump_one
    from omerender.pipeline import BuildOptions
    from omerender.pipeline import status as run_status
    from omerender.resolve.status import table

    options = BuildOptions(
        namespace=namespace,
        max_file_bytes=max_file_size,
        lock_file=lock_file,
        strict=strict,
        kube_version=None,
        controller_config=controller_config,
    )
    listing, diagnostics, failed = run_status(list(paths), options, stdin)
    report(diagnostics, report_format, report_file, max_errors, verbose)
    if output == "table":
        click.echo(table(listing), nl=False)
    elif output == "json":
        import json

        click.echo(json.dumps(listing, indent=2, sort_keys=True))
    else:
        click.echo(dump_one(listing), nl=False)
    if failed:
        sys.exit(EXIT_FINDINGS)


COMMANDS = (build, status)
