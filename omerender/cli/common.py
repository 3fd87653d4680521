"""What every command shares: exit codes, the one guard, the report helper and every shared option, defined once."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from omerender import __version__
from omerender.diagnostics import one_line
from omerender.errors import OmerenderError

DEFAULT_KUBE_VERSION = (
    "1.37"  # = kube_validate.DEFAULT_KUBE_VERSION, not imported: start-up (tests/integrations/test_startup.py)
)

EXIT_OK, EXIT_INTERNAL = 0, 3  # EXIT_FINDINGS (1) and EXIT_USAGE (2) come with the errors they mean
F = TypeVar("F", bound=Callable[..., Any])


def guard(fn: F) -> F:
    """Turn anything unexpected into one line on stderr and exit 3, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort, SystemExit):
            raise
        except OmerenderError as exc:
            click.echo(f"omerender: error: {one_line(str(exc))}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("omerender: interrupted", err=True)
            sys.exit(130)
        except Exception as exc:  # noqa: BLE001 - the one place internal errors become exit 3
            click.echo(f"omerender: internal error: {type(exc).__name__}: {exc}", err=True)
            sys.exit(EXIT_INTERNAL)

    return wrapper  # type: ignore[return-value]


def validator_cache_dir() -> str | None:
    """Where compiled schema validators are kept: $OMERENDER_CACHE_DIR (empty: nowhere), else the user cache."""
    given = os.environ.get("OMERENDER_CACHE_DIR")
    if given is not None:
        return given or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return str(Path(base) / "omerender" / "validators")


def stdin() -> bytes:
    return sys.stdin.buffer.read()


def report(diagnostics: list[Any], fmt: str, report_file: str | None, max_errors: int | None, verbose: int) -> None:
    from omerender.output.reporters import render_report

    shown = [d for d in diagnostics if d.severity != "info" or verbose > 0]
    text = render_report(fmt, shown, max_errors=max_errors, tool_version=__version__)
    if report_file:
        from omerender.output.writer import write_file

        write_file(report_file, text)
    elif text:
        click.echo(text, err=True, nl=False)


def resolve_kube_version(given: str | None) -> str | None:
    """``--kube-version``: an installed release's ``major.minor``, or None for 'none'."""
    from omerender.verify.kube_schema import KubeVersionError, resolve_version

    if given is None or given.strip().lower() in ("none", "off", ""):
        return None
    from omerender.verify.kube_schema import available_versions

    if not available_versions() and given == DEFAULT_KUBE_VERSION:
        click.echo(
            "omerender: warning: kubernetes-validate is not installed, so rendered objects are not checked against Kubernetes schemas",
            err=True,
        )
        return None
    try:
        return resolve_version(given)
    except KubeVersionError as exc:
        raise click.BadParameter(str(exc), param_hint="'--kube-version'") from None


def refuse_output_in_input(inputs: list[str], outputs: list[tuple[str, str | None]]) -> None:
    from omerender.output.overlap import conflicts

    problems = conflicts(inputs, outputs)
    if problems:
        raise click.UsageError("; ".join(problems))


paths_argument = click.argument("paths", nargs=-1, required=True, type=click.Path(allow_dash=True))
namespace_option = click.option(
    "-n",
    "--namespace",
    default="default",
    show_default=True,
    help="Namespace for namespaced objects that do not set one.",
)
report_options = [
    click.option(
        "--report-format",
        type=click.Choice(["text", "json", "github", "sarif"]),
        default="text",
        show_default=True,
        help="How diagnostics are reported.",
    ),
    click.option("--report-file", type=click.Path(dir_okay=False), help="Write diagnostics here instead of stderr."),
    click.option(
        "--max-errors",
        type=click.IntRange(min=0),
        help="Print at most N diagnostics, then how many were left out [default: all].",
    ),
    click.option(
        "-v", "--verbose", count=True, help="Also report informational notes (e.g. why a runtime was selected)."
    ),
    click.option(
        "--max-file-size",
        type=click.IntRange(min=1),
        default=10 * 1024 * 1024,
        show_default=True,
        help="Refuse input files larger than this many bytes.",
    ),
]


def with_report_options(fn: F) -> F:
    for option in reversed(report_options):
        fn = option(fn)
    return fn


EMIT_KINDS = (
    "rendered",
    "flattened",
    "passthrough",
    "inputs",
)  # omerender.output.emit.KINDS, kept here so --help stays light
gitops_options = [  # docs/integrations.md
    click.option(
        "--emit",
        type=click.Choice(EMIT_KINDS),
        multiple=True,
        default=("rendered",),
        show_default=True,
        help="What to print (repeatable): rendered objects, flattened runtimes, passthrough (non-OME) objects, inputs (OME objects as given).",
    ),
    click.option(
        "--check",
        is_flag=True,
        help="Write nothing: validate only, or with -o exit 1 when DIR differs from what would be written.",
    ),
    click.option(
        "--fail-on-change",
        is_flag=True,
        help="With -o: write DIR, then exit 1 if that changed it (pre-commit's fixer convention).",
    ),
    click.option(
        "--kustomization",
        is_flag=True,
        help="With -o: also write a kustomization.yaml listing the files (for kustomize and Flux).",
    ),
    click.option(
        "--flux-substitute-disabled",
        is_flag=True,
        help="Annotate OME-derived objects with kustomize.toolkit.fluxcd.io/substitute: disabled.",
    ),
    click.option(
        "--fail-empty/--no-fail-empty",
        default=False,
        show_default=True,
        help="Exit 1 when nothing would be emitted (argocd-generate turns this on).",
    ),
]


def with_gitops_options(fn: F) -> F:
    for option in reversed(gitops_options):
        fn = option(fn)
    return fn


lock_file_option = click.option(
    "--lock-file",
    type=click.Path(dir_okay=False),
    help="The lock file [default: omerender.lock in the first PATH directory].",
)
model_metadata_option = click.option(
    "--model-metadata",
    type=click.Path(dir_okay=False),
    help="YAML file of model-agent fields (modelFormat, modelFramework, modelArchitecture, quantization, modelParameterSize) for models that lack them; see README.",
)
controller_config_option = click.option(
    "--controller-config",
    type=click.Path(dir_okay=False),
    help="A file holding OME's inferenceservice-config ConfigMap (namespace ome) [default: the one in PATHS, else the "
    "values OME ships]; see README.",
)
search_path_option = click.option(
    "--search-path",
    multiple=True,
    type=click.Path(),
    help="Also read PATH (a file or folder), only to resolve parents and models: nothing found there is emitted, locked or compared (repeatable).",
)
strict_option = click.option(
    "--strict",
    is_flag=True,
    help="Unknown fields in OME objects are errors (as kubectl's default field validation makes them), not warnings.",
)
kube_version_option = click.option(
    "--kube-version",
    default=DEFAULT_KUBE_VERSION,
    show_default=True,
    help="Validate rendered objects against this Kubernetes release's schemas; 'none' skips the check.",
)
