"""``build`` and ``status``: render the objects, report the chains."""

from __future__ import annotations

import sys

import click

from omerender.cli.common import (
    DEFAULT_KUBE_VERSION,
    STDOUT_HINT,
    build_options,
    controller_config_option,
    guard,
    keep_to_exit,
    kube_version_option,
    lock_file_option,
    model_metadata_option,
    namespace_option,
    output_dir_option,
    output_option,
    paths_argument,
    refuse_output_in_input,
    report,
    resolve_kube_version,
    search_path_option,
    stdin,
    strict_option,
    subjects_of,
    with_gitops_options,
    with_report_options,
)
from omerender.errors import EXIT_FINDINGS
from omerender.output.formats import BUILD_FORMATS, STATUS_FORMATS


@click.command(short_help="Render what the OME controller creates for each InferenceService.")
@paths_argument
@namespace_option
@output_option(
    list(BUILD_FORMATS),
    None,
    "Output format: yaml (a stream, the default), json (a v1 List, as kubectl get -o json), name (kind.group/name).",
    "Did you mean --output-dir {value}?",
)
@output_dir_option
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
    report_format: tuple[str, ...],
    report_file: str | None,
    max_errors: int | None,
    verbose: int,
    max_file_size: int,
    output: str | None = None,
    emit: tuple[str, ...] = ("rendered",),
    search_path: tuple[str, ...] = (),
    check: bool = False,
    fail_on_change: bool = False,
    kustomization: bool = False,
    flux_substitute_disabled: bool = False,
    fail_empty: bool = False,
    fail_empty_input: bool = False,
    keep_last_good: bool = False,
    lock_file: str | None = None,
    model_metadata: str | None = None,
    controller_config: str | None = None,
    strict: bool = False,
    validate: str = "strict",
    kube_version: str | None = DEFAULT_KUBE_VERSION,
    allow_output_in_input: bool = False,
) -> None:
    """Render the objects the OME controller creates for every InferenceService in PATHS."""
    from omerender.cli.output import OutputOptions, emitted, finish
    from omerender.load.yamlio import dump_one
    from omerender.output.formats import dump_json
    from omerender.output.writer import write_file
    from omerender.pipeline import build as run_build
    from omerender.resolve.status import status_list

    out = OutputOptions(
        emit, search_path, check, fail_on_change, kustomization, flux_substitute_disabled, fail_empty, output or "yaml"
    )
    out.validate(output_dir, output)
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
        build_options(
            paths=paths,
            namespace=namespace,
            max_file_size=max_file_size,
            validate=validate,
            strict=strict,
            keep_last_good=keep_last_good,
            lock_file=lock_file,
            model_metadata=model_metadata,
            controller_config=controller_config,
            kube_version=kube,
            fail_empty_input=fail_empty_input,
        ),
        stdin,
    )
    keep_to_exit(result)
    from omerender.output.emit import cluster_selects

    result.diagnostics = cluster_selects(result.diagnostics, tuple(emit))
    selection = emitted(result, out, output_dir)
    keep_to_exit(selection)
    report(result.diagnostics, report_format, report_file, max_errors, verbose, subjects_of(result))
    if result.failed:
        sys.exit(EXIT_FINDINGS)
    if status_file:
        from omerender.lifecycle.lock import last_chains

        status = status_list(
            result.universe, result.chains, last_chains(result.lifecycle.lock, result.universe.all_runtimes())
        )
        if status_file.endswith(".json"):
            write_file(status_file, dump_json(status))
        else:
            write_file(status_file, dump_one(status))
    finish(selection, result, output_dir, out, click.get_current_context())


@click.command(short_help="Show each runtime's inheritance chain and InheritanceReady.")
@paths_argument
@namespace_option
@output_option(
    list(STATUS_FORMATS),
    "table",
    "Output format: table; wide (adds the last chain that resolved and FILE:LINE); yaml or json (a v1 List "
    "with status.inheritanceChain and the InheritanceReady condition); name (kind.group/name).",
    STDOUT_HINT,
)
@lock_file_option
@model_metadata_option
@controller_config_option
@strict_option
@kube_version_option
@with_report_options
@search_path_option
@guard
def status(
    paths: tuple[str, ...],
    namespace: str,
    output: str,
    lock_file: str | None,
    report_format: tuple[str, ...],
    report_file: str | None,
    max_errors: int | None,
    verbose: int,
    max_file_size: int,
    model_metadata: str | None = None,
    search_path: tuple[str, ...] = (),
    controller_config: str | None = None,
    strict: bool = False,
    validate: str = "strict",
    kube_version: str | None = DEFAULT_KUBE_VERSION,
) -> None:
    """Show every runtime's inheritance chain and its InheritanceReady condition.

    A broken chain shows the last chain that resolved, from the lock file, as OME's status keeps it.
    Runtimes read from a --search-path only resolve parents: they are not listed.
    """
    from omerender.output.emit import under
    from omerender.output.formats import STATUS_FORMATS as FORMATTERS
    from omerender.output.formats import StatusView
    from omerender.pipeline import status as run_status

    kube = resolve_kube_version(kube_version)
    options = build_options(
        paths=paths,
        namespace=namespace,
        max_file_size=max_file_size,
        validate=validate,
        strict=strict,
        lock_file=lock_file,
        kube_version=kube,
        model_metadata=model_metadata,
        controller_config=controller_config,
    )
    searched = under(list(search_path))
    result = run_status(list(paths) + list(search_path), options, stdin, lambda r: not searched(r))
    report(result.diagnostics, report_format, report_file, max_errors, verbose)
    click.echo(FORMATTERS[output](StatusView(result.listing, result.sources, result.last_resolved)), nl=False)
    if result.failed:
        sys.exit(EXIT_FINDINGS)


COMMANDS = (build, status)
