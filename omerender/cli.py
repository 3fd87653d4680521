"""The click layer: parse options, call the core, print, and map results to exit codes.

Exit codes: 0 success (warnings allowed), 1 findings, 2 usage error, 3 internal error.
"""

from __future__ import annotations

import functools
import sys
from typing import Any, Callable, TypeVar

import click

from omerender import __version__

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


def _output_path(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    folder = meta.get("namespace") or "_cluster"
    return f"{folder}/{str(obj.get('kind', '')).lower()}-{meta.get('name', '')}.yaml"


paths_argument = click.argument("paths", nargs=-1, required=True, type=click.Path(allow_dash=True))
namespace_option = click.option(
    "-n", "--namespace", default="default", show_default=True, help="Namespace for namespaced objects that do not set one."
)
report_options = [
    click.option("--report-format", type=click.Choice(["text", "json", "github", "sarif"]), default="text", show_default=True, help="How diagnostics are reported."),
    click.option("--report-file", type=click.Path(dir_okay=False), help="Write diagnostics here instead of stderr."),
    click.option("--max-errors", type=click.IntRange(min=0), help="Print at most N diagnostics."),
    click.option("-v", "--verbose", count=True, help="Also report informational notes (e.g. why a runtime was selected)."),
    click.option("--max-file-size", type=click.IntRange(min=1), default=10 * 1024 * 1024, show_default=True, help="Refuse input files larger than this many bytes."),
]


def with_report_options(fn: F) -> F:
    for option in reversed(report_options):
        fn = option(fn)
    return fn


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="omerender")
def main() -> None:
    """Resolve OME runtime inheritance offline and render what the OME controller would create.

    Exit codes: 0 success (warnings allowed), 1 findings, 2 usage error, 3 internal error.
    """


@main.command()
@paths_argument
@namespace_option
@click.option("-o", "--output-dir", type=click.Path(file_okay=False), help="Write one file per object into DIR instead of stdout.")
@click.option("--status-file", type=click.Path(dir_okay=False), help="Also write runtime status as a v1 List (.json for JSON, else YAML).")
@with_report_options
@_guard
def build(paths: tuple[str, ...], namespace: str, output_dir: str | None, status_file: str | None, report_format: str, report_file: str | None, max_errors: int | None, verbose: int, max_file_size: int) -> None:
    """Render the objects the OME controller creates for every InferenceService in PATHS."""
    from omerender.pipeline import BuildOptions, build as run_build
    from omerender.status import status_list
    from omerender.writer import write_dir, write_file
    from omerender.yamlio import dump_one, dump_stream

    result = run_build(list(paths), BuildOptions(namespace=namespace, max_file_bytes=max_file_size), _stdin)
    _report(result.diagnostics, report_format, report_file, max_errors, verbose)
    if result.failed:
        sys.exit(EXIT_FINDINGS)
    if status_file:
        status = status_list(result.universe, result.chains)
        if status_file.endswith(".json"):
            import json

            write_file(status_file, json.dumps(status, indent=2, sort_keys=True) + "\n")
        else:
            write_file(status_file, dump_one(status))
    if output_dir:
        write_dir(output_dir, {_output_path(o): dump_one(o) for o in result.objects})
    else:
        click.echo(dump_stream(result.objects), nl=False)


@main.command()
@paths_argument
@namespace_option
@click.option("-o", "--output", type=click.Choice(["table", "yaml", "json"]), default="table", show_default=True)
@with_report_options
@_guard
def status(paths: tuple[str, ...], namespace: str, output: str, report_format: str, report_file: str | None, max_errors: int | None, verbose: int, max_file_size: int) -> None:
    """Show every runtime's inheritance chain and its InheritanceReady condition."""
    from omerender.diagnostics import has_errors, sorted_unique
    from omerender.inherit import resolve_all
    from omerender.loader import LoadOptions, load
    from omerender.status import status_failed, status_list, table
    from omerender.universe import index
    from omerender.yamlio import dump_one

    loaded = load(list(paths), LoadOptions(namespace=namespace, max_file_bytes=max_file_size), _stdin)
    universe, duplicates = index(loaded.objects)
    chains, problems = resolve_all(universe)
    diagnostics = sorted_unique(loaded.diagnostics + duplicates + problems)
    _report(diagnostics, report_format, report_file, max_errors, verbose)
    listing = status_list(universe, chains)
    if output == "table":
        click.echo(table(listing), nl=False)
    elif output == "json":
        import json

        click.echo(json.dumps(listing, indent=2, sort_keys=True))
    else:
        click.echo(dump_one(listing), nl=False)
    if status_failed(universe, chains) or has_errors(diagnostics):
        sys.exit(EXIT_FINDINGS)
