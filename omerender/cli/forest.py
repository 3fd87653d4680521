"""``tree`` and ``graph``: the inheritance forest in the terminal, and as Mermaid, DOT, JSON or SVG."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import click

from omerender.cli.common import (
    STDOUT_HINT,
    F,
    build_options,
    controller_config_option,
    guard,
    lock_file_option,
    model_metadata_option,
    namespace_option,
    output_option,
    paths_argument,
    report,
    search_path_option,
    stdin,
    strict_option,
    with_report_options,
)
from omerender.errors import EXIT_FINDINGS, EXIT_USAGE
from omerender.output.formats import GRAPH_FORMATS

if TYPE_CHECKING:
    from omerender.pipeline import BuildOptions

DOT_TIMEOUT_SECONDS = 300
view_options = [
    click.option(
        "--runtime",
        metavar="RUNTIME",
        help="Only this runtime's subtree: NAME (a ServingRuntime in -n, else a ClusterServingRuntime) or NAMESPACE/NAME.",
    ),
    click.option("--isvc", metavar="ISVC", help="Only this InferenceService's chain: NAME (in -n) or NAMESPACE/NAME."),
    click.option("--collapse-isvcs", is_flag=True, help="Show each runtime's InferenceServices as one count."),
    click.option(
        "--used-only",
        is_flag=True,
        help="Leave out runtimes no InferenceService uses (keeping the chains above those it uses).",
    ),
]


def with_view_options(fn: F) -> F:
    for option in reversed(view_options):
        fn = option(fn)
    return fn


def _options(
    namespace: str,
    max_file_size: int,
    validate: str,
    strict: bool,
    lock_file: str | None,
    model_metadata: str | None,
    controller_config: str | None,
) -> BuildOptions:
    """What tree and graph build with: the shared options, and no Kubernetes schema check (the forest's shape
    does not depend on it)."""
    return build_options(
        namespace=namespace,
        max_file_size=max_file_size,
        validate=validate,
        strict=strict,
        lock_file=lock_file,
        model_metadata=model_metadata,
        controller_config=controller_config,
        kube_version=None,
    )


def _forest(
    paths: tuple[str, ...],
    search_path: tuple[str, ...],
    options: BuildOptions,
    reporting: tuple[tuple[str, ...], str | None, int | None, int],
    view: tuple[str | None, str | None, bool, bool],
) -> tuple[Any, bool]:
    """Build, report the diagnostics, and return the forest to show and whether anything is broken."""
    from omerender.forest.model import forest
    from omerender.forest.select import (
        chain,
        collapse_isvcs,
        find_isvc,
        find_runtime,
        namespaces_holding,
        subtree,
        used_only,
    )
    from omerender.pipeline import build

    runtime, isvc, collapse, used = view
    if runtime and isvc:
        raise click.UsageError("give --runtime or --isvc, not both")
    namespace = options.namespace
    if not options.lock_file:
        from omerender.lifecycle.lock import default_path

        options.lock_file = default_path(list(paths))
    result = build(list(paths) + list(search_path), options, stdin)
    report(result.diagnostics, *reporting)
    whole = forest(result)
    shown = whole
    if runtime:
        found = find_runtime(whole, runtime, namespace)
        if found is None:
            elsewhere = [] if "/" in runtime else namespaces_holding(whole, runtime)
            hint = f"; it exists in namespace {', '.join(elsewhere)}: pass -n {elsewhere[0]}" if elsewhere else ""
            hint += f" (or write {elsewhere[0]}/{runtime})" if elsewhere else ""
            raise click.BadParameter(f"no runtime {runtime} (namespace {namespace}){hint}", param_hint="'--runtime'")
        shown = subtree(whole, found)
    if isvc:
        found = find_isvc(whole, isvc, namespace)
        if found is None:
            raise click.BadParameter(f"no InferenceService {isvc} (namespace {namespace})", param_hint="'--isvc'")
        shown = chain(whole, found)
    if used:
        shown = used_only(shown)
    if collapse:
        shown = collapse_isvcs(shown)
    return shown, result.failed or whole.broken


def use_color(choice: str) -> bool:
    """``auto``: only on a terminal, and never when ``NO_COLOR`` is set (https://no-color.org)."""
    if choice != "auto":
        return choice == "always"
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


@click.command()
@paths_argument
@namespace_option
@with_view_options
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="auto: colour only on a terminal and without NO_COLOR.",
)
@lock_file_option
@model_metadata_option
@controller_config_option
@strict_option
@search_path_option
@with_report_options
@guard
def tree(
    paths: tuple[str, ...],
    namespace: str,
    runtime: str | None,
    isvc: str | None,
    collapse_isvcs: bool,
    used_only: bool,
    color: str,
    lock_file: str | None,
    model_metadata: str | None,
    search_path: tuple[str, ...],
    report_format: tuple[str, ...],
    report_file: str | None,
    max_errors: int | None,
    verbose: int,
    max_file_size: int,
    controller_config: str | None = None,
    strict: bool = False,
    validate: str = "strict",
) -> None:
    """Print the runtime inheritance forest as a tree.

    Profiles and other root runtimes, their children, and the InferenceServices that use each
    runtime (auto-selected ones marked).
    A broken link shows its InheritanceReady reason (ParentNotFound, InheritanceCycle, MaxDepthExceeded)
    where the missing parent would hang. Exit 1 when any chain is broken (as `status` does).
    """
    from omerender.forest.text import render

    options = _options(namespace, max_file_size, validate, strict, lock_file, model_metadata, controller_config)
    shown, failed = _forest(
        paths,
        search_path,
        options,
        (report_format, report_file, max_errors, verbose),
        (runtime, isvc, collapse_isvcs, used_only),
    )
    colored = use_color(color)
    click.echo(render(shown, colored), nl=False, color=colored)  # click would strip the escapes off a pipe
    if failed:
        sys.exit(EXIT_FINDINGS)


def svg(dot_text: str) -> str:
    """Graphviz's rendering of ``dot_text``; exit 2 when ``dot`` is not installed or refuses it."""
    program = shutil.which("dot")
    if program is None:
        click.echo(
            "omerender: -o svg needs Graphviz's `dot` on PATH (Debian/Ubuntu: apt-get install graphviz); "
            "or use -o dot and render it elsewhere",
            err=True,
        )
        sys.exit(EXIT_USAGE)
    try:
        done = subprocess.run(
            [program, "-Tsvg"], input=dot_text.encode(), capture_output=True, timeout=DOT_TIMEOUT_SECONDS, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        click.echo(f"omerender: -o svg: running {program} failed: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    if done.returncode != 0:
        click.echo(f"omerender: -o svg: {program} failed: {done.stderr.decode(errors='replace').strip()}", err=True)
        sys.exit(EXIT_USAGE)
    return done.stdout.decode(errors="replace")


@click.command()
@paths_argument
@namespace_option
@output_option(
    list(GRAPH_FORMATS),
    "mermaid",
    "mermaid: a flowchart for markdown; dot: Graphviz; json: nodes and edges (schemas/forest.schema.json); "
    "svg: Graphviz's dot renders it.",
    STDOUT_HINT,
)
@with_view_options
@lock_file_option
@model_metadata_option
@controller_config_option
@strict_option
@search_path_option
@with_report_options
@guard
def graph(
    paths: tuple[str, ...],
    namespace: str,
    output: str,
    runtime: str | None,
    isvc: str | None,
    collapse_isvcs: bool,
    used_only: bool,
    lock_file: str | None,
    model_metadata: str | None,
    search_path: tuple[str, ...],
    report_format: tuple[str, ...],
    report_file: str | None,
    max_errors: int | None,
    verbose: int,
    max_file_size: int,
    controller_config: str | None = None,
    strict: bool = False,
    validate: str = "strict",
) -> None:
    """Draw the inheritance forest: Mermaid, DOT, JSON or SVG.

    Grouped by namespace; broken links and disabled profiles styled apart.
    Edges run from a runtime to each runtime that inherits from it and to each InferenceService that
    uses it. Exit 1 when any chain is broken; 2 for -o svg without Graphviz.
    """
    if output == "svg" and shutil.which("dot") is None:
        svg("")  # exits 2 before any work
    options = _options(namespace, max_file_size, validate, strict, lock_file, model_metadata, controller_config)
    shown, failed = _forest(
        paths,
        search_path,
        options,
        (report_format, report_file, max_errors, verbose),
        (runtime, isvc, collapse_isvcs, used_only),
    )
    text = GRAPH_FORMATS[output](shown)
    if output == "svg":
        text = svg(text)
    click.echo(text, nl=False)
    if failed:
        sys.exit(EXIT_FINDINGS)


COMMANDS = (tree, graph)
