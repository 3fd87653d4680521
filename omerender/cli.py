"""The click layer: parse options, call the core, print, and map results to exit codes.

Exit codes: 0 success (warnings allowed), 1 findings, 2 usage error, 3 internal error.
"""

from __future__ import annotations

import functools
import sys
from typing import Any, Callable, TypeVar

import click

from omerender import __version__

DEFAULT_KUBE_VERSION = "1.37"  # = kube_validate.DEFAULT_KUBE_VERSION, not imported: start-up (tests/integrations/test_startup.py)

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
F = TypeVar("F", bound=Callable[..., Any])


def _guard(fn: F) -> F:
    """Turn anything unexpected into one line on stderr and exit 3, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort, SystemExit):
            raise
        except KeyboardInterrupt:
            click.echo("omerender: interrupted", err=True)
            sys.exit(130)
        except Exception as exc:  # noqa: BLE001 - the one place internal errors become exit 3
            click.echo(f"omerender: internal error: {type(exc).__name__}: {exc}", err=True)
            sys.exit(EXIT_INTERNAL)

    return wrapper  # type: ignore[return-value]


def _stdin() -> bytes:
    return sys.stdin.buffer.read()


def _report(diagnostics: list[Any], fmt: str, report_file: str | None, max_errors: int | None, verbose: int) -> None:
    from omerender.reporters import render_report

    shown = [d for d in diagnostics if d.severity != "info" or verbose > 0]
    text = render_report(fmt, shown, max_errors=max_errors, tool_version=__version__)
    if report_file:
        from omerender.writer import write_file

        write_file(report_file, text)
    elif text:
        click.echo(text, err=True, nl=False)


def _kube_version(given: str | None) -> str | None:
    """``--kube-version``: an installed release's ``major.minor``, or None for 'none'."""
    from omerender.kube_validate import KubeVersionError, resolve_version

    if given is None or given.strip().lower() in ("none", "off", ""):
        return None
    from omerender.kube_validate import available_versions

    if not available_versions() and given == DEFAULT_KUBE_VERSION:
        click.echo("omerender: warning: kubernetes-validate is not installed, so rendered objects are not checked against Kubernetes schemas", err=True)
        return None
    try:
        return resolve_version(given)
    except KubeVersionError as exc:
        raise click.BadParameter(str(exc), param_hint="'--kube-version'") from None


def _refuse_output_in_input(inputs: list[str], outputs: list[tuple[str, str | None]]) -> None:
    from omerender.overlap import conflicts

    problems = conflicts(inputs, outputs)
    if problems:
        raise click.UsageError("; ".join(problems))


paths_argument = click.argument("paths", nargs=-1, required=True, type=click.Path(allow_dash=True))
namespace_option = click.option(
    "-n", "--namespace", default="default", show_default=True, help="Namespace for namespaced objects that do not set one."
)
report_options = [
    click.option("--report-format", type=click.Choice(["text", "json", "github", "sarif"]), default="text", show_default=True, help="How diagnostics are reported."),
    click.option("--report-file", type=click.Path(dir_okay=False), help="Write diagnostics here instead of stderr."),
    click.option("--max-errors", type=click.IntRange(min=0), help="Print at most N diagnostics, then how many were left out [default: all]."),
    click.option("-v", "--verbose", count=True, help="Also report informational notes (e.g. why a runtime was selected)."),
    click.option("--max-file-size", type=click.IntRange(min=1), default=10 * 1024 * 1024, show_default=True, help="Refuse input files larger than this many bytes."),
]


def with_report_options(fn: F) -> F:
    for option in reversed(report_options):
        fn = option(fn)
    return fn


EMIT_KINDS = ("rendered", "flattened", "passthrough", "inputs")  # omerender.emit.KINDS, kept here so --help stays light
gitops_options = [  # docs/integrations.md
    click.option("--emit", type=click.Choice(EMIT_KINDS), multiple=True, default=("rendered",), show_default=True, help="What to print (repeatable): rendered objects, flattened runtimes, passthrough (non-OME) objects, inputs (OME objects as given)."),
    click.option("--search-path", multiple=True, type=click.Path(), help="Also read PATH (a file or folder) to resolve parents and models; nothing found there is emitted (repeatable)."),
    click.option("--check", is_flag=True, help="Write nothing: validate only, or with -o exit 1 when DIR differs from what would be written."),
    click.option("--fail-on-change", is_flag=True, help="With -o: write DIR, then exit 1 if that changed it (pre-commit's fixer convention)."),
    click.option("--kustomization", is_flag=True, help="With -o: also write a kustomization.yaml listing the files (for kustomize and Flux)."),
    click.option("--flux-substitute-disabled", is_flag=True, help="Annotate OME-derived objects with kustomize.toolkit.fluxcd.io/substitute: disabled."),
    click.option("--fail-empty/--no-fail-empty", default=False, show_default=True, help="Exit 1 when nothing would be emitted (argocd-generate turns this on)."),
]


def with_gitops_options(fn: F) -> F:
    for option in reversed(gitops_options):
        fn = option(fn)
    return fn


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="omerender")
def main() -> None:
    """Resolve OME runtime inheritance offline and render what the OME controller would create.

    Exit codes: 0 success (warnings allowed), 1 findings, 2 usage error, 3 internal error.
    diff has its own: see omerender diff --help.
    """


@main.command()
@paths_argument
@namespace_option
@click.option("-o", "--output-dir", type=click.Path(file_okay=False), help="Write one file per object into DIR instead of stdout.")
@click.option("--status-file", type=click.Path(dir_okay=False), help="Also write runtime status as a v1 List (.json for JSON, else YAML).")
@click.option("--keep-last-good", is_flag=True, help="Render InferenceServices whose runtime chain is broken from their locked snapshot, with a warning each.")
@click.option("--lock-file", type=click.Path(dir_okay=False), help="The lock file [default: omerender.lock in the first PATH directory].")
@click.option("--model-metadata", type=click.Path(dir_okay=False), help="YAML file of model-agent fields (modelFormat, modelFramework, modelArchitecture, quantization, modelParameterSize) for models that lack them; see README.")
@click.option("--strict", is_flag=True, help="Unknown fields in OME objects are errors (as kubectl's default field validation makes them), not warnings.")
@click.option("--kube-version", default=DEFAULT_KUBE_VERSION, show_default=True, help="Validate rendered objects against this Kubernetes release's schemas; 'none' skips the check.")
@click.option("--allow-output-in-input", is_flag=True, help="Allow --output-dir or --status-file inside (or holding) an input path.")
@with_report_options
@with_gitops_options
@_guard
def build(paths: tuple[str, ...], namespace: str, output_dir: str | None, status_file: str | None, report_format: str, report_file: str | None, max_errors: int | None, verbose: int, max_file_size: int, emit: tuple[str, ...] = ("rendered",), search_path: tuple[str, ...] = (), check: bool = False, fail_on_change: bool = False, kustomization: bool = False, flux_substitute_disabled: bool = False, fail_empty: bool = False, keep_last_good: bool = False, lock_file: str | None = None, model_metadata: str | None = None, strict: bool = False, kube_version: str | None = DEFAULT_KUBE_VERSION, allow_output_in_input: bool = False) -> None:
    """Render the objects the OME controller creates for every InferenceService in PATHS."""
    from omerender.cli_output import OutputOptions, emitted, finish
    from omerender.pipeline import BuildOptions, build as run_build
    from omerender.status import status_list
    from omerender.writer import write_file
    from omerender.yamlio import dump_one

    out = OutputOptions(emit, search_path, check, fail_on_change, kustomization, flux_substitute_disabled, fail_empty)
    out.validate(output_dir)
    kube = _kube_version(kube_version)
    if not allow_output_in_input:
        _refuse_output_in_input(list(paths) + list(search_path), [("--output-dir", None if check else output_dir), ("--status-file", status_file), ("--report-file", report_file)])
    result = run_build(list(paths) + list(search_path), BuildOptions(namespace=namespace, max_file_bytes=max_file_size, keep_last_good=keep_last_good, lock_file=lock_file, model_metadata=model_metadata, strict=strict, kube_version=kube), _stdin)
    selection = emitted(result, out)
    _report(result.diagnostics, report_format, report_file, max_errors, verbose)
    if result.failed:
        sys.exit(EXIT_FINDINGS)
    if status_file:
        from omerender.lock import last_chains

        status = status_list(result.universe, result.chains, last_chains(result.lifecycle.lock, result.universe.all_runtimes()))
        if status_file.endswith(".json"):
            import json

            write_file(status_file, json.dumps(status, indent=2, sort_keys=True) + "\n")
        else:
            write_file(status_file, dump_one(status))
    finish(selection, result, output_dir, out)


@main.command()
@paths_argument
@namespace_option
@click.option("-o", "--output", type=click.Choice(["table", "yaml", "json"]), default="table", show_default=True)
@click.option("--lock-file", type=click.Path(dir_okay=False), help="Where the last chains that resolved are kept [default: omerender.lock in the first PATH directory].")
@click.option("--strict", is_flag=True, help="Unknown fields in OME objects are errors, not warnings.")
@with_report_options
@_guard
def status(paths: tuple[str, ...], namespace: str, output: str, lock_file: str | None, report_format: str, report_file: str | None, max_errors: int | None, verbose: int, max_file_size: int, strict: bool = False) -> None:
    """Show every runtime's inheritance chain and its InheritanceReady condition.

    A broken chain shows the last chain that resolved, from the lock file, as OME's status keeps it.
    """
    from omerender.pipeline import BuildOptions, status as run_status
    from omerender.status import table
    from omerender.yamlio import dump_one

    options = BuildOptions(namespace=namespace, max_file_bytes=max_file_size, lock_file=lock_file, strict=strict, kube_version=None)
    listing, diagnostics, failed = run_status(list(paths), options, _stdin)
    _report(diagnostics, report_format, report_file, max_errors, verbose)
    if output == "table":
        click.echo(table(listing), nl=False)
    elif output == "json":
        import json

        click.echo(json.dumps(listing, indent=2, sort_keys=True))
    else:
        click.echo(dump_one(listing), nl=False)
    if failed:
        sys.exit(EXIT_FINDINGS)


from omerender.cli_lifecycle import COMMANDS as _LIFECYCLE_COMMANDS  # noqa: E402 - needs the helpers above

for _command in _LIFECYCLE_COMMANDS:
    main.add_command(_command)


@main.command("argocd-generate")
@click.argument("paths", nargs=-1, type=click.Path())
@click.pass_context
@_guard
def argocd_generate(ctx: click.Context, paths: tuple[str, ...]) -> None:
    """Argo CD plugin generate: build PATHS (default .) with the settings Argo CD passes.

    Reads ARGOCD_APP_PARAMETERS, ARGOCD_ENV_OMERENDER_*, ARGOCD_APP_NAMESPACE and KUBE_VERSION
    (docs/integrations.md). Prints only objects, and fails rather than print nothing.
    """
    import os

    from omerender.argocd import SettingsError, settings_from_env

    try:
        settings = settings_from_env(os.environ)
    except SettingsError as exc:
        raise click.UsageError(str(exc)) from None
    options: dict[str, Any] = {
        "paths": paths or (".",), "namespace": settings.namespace, "emit": settings.emit, "search_path": settings.search_paths,
        "fail_empty": not settings.allow_empty, "max_errors": settings.max_errors,
    }
    if settings.kube_version:
        from omerender.kube_validate import KubeVersionError, resolve_version

        try:  # Argo CD always passes its cluster's version: an older one is checked with the oldest schemas
            options["kube_version"] = resolve_version(settings.kube_version, clamp_older=True)
        except KubeVersionError as exc:
            raise click.UsageError(f"KUBE_VERSION: {exc}") from None
    ctx.invoke(build, **options)


@main.command()
@click.argument("config", required=False, type=click.Path(exists=True, dir_okay=False))
@_guard
def krm(config: str | None) -> None:
    """KRM function: a ResourceList on stdin, one on stdout (kpt fn eval --exec, kustomize --enable-exec).

    With CONFIG, act as a kustomize exec generator plugin: read the functionConfig from CONFIG and
    print the emitted objects as a plain stream (docs/integrations.md).
    """
    from pathlib import Path

    import yaml

    from omerender.krm import KrmError, parse_config, process
    from omerender.loader import LoadOptions, load
    from omerender.yamlio import dump_one, dump_stream, parse_documents

    try:
        text = Path(config).read_text(encoding="utf-8") if config else _stdin().decode("utf-8")
        documents = [d.data for d in parse_documents(text)]
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise click.UsageError(f"cannot read {'CONFIG' if config else 'the ResourceList on stdin'}: {' '.join(str(exc).split())}") from None
    first = documents[0] if documents else None
    resource_list = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [], "functionConfig": first} if config else first
    try:
        settings = parse_config(resource_list.get("functionConfig") if isinstance(resource_list, dict) else None)
        loaded = load(list(settings.paths), LoadOptions(namespace=settings.namespace)) if settings.paths else None
        extra = (loaded.objects, loaded.diagnostics) if loaded else ([], [])
        output, failed = process(resource_list, settings, extra, place_rendered=not config)
    except KrmError as exc:
        raise click.UsageError(str(exc)) from None
    if not config:
        click.echo(dump_one(output), nl=False)
    else:
        for result in output.get("results", []):
            click.echo(f"{result.get('file', {}).get('path', '-')}: {result['severity']}: {result['message']}", err=True)
        if not failed:
            click.echo(dump_stream(output["items"]), nl=False)
    if failed:
        sys.exit(EXIT_FINDINGS)
