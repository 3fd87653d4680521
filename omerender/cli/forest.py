"""``tree`` and ``graph``: the inheritance forest in the terminal, and as Mermaid, DOT, JSON or SVG."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING

import click

from omerender.cli.common import STDOUT_HINT, F, guard, output_option, paths_argument, report_settings, stdin
from omerender.cli.options import settings_options
from omerender.errors import EXIT_FINDINGS, EXIT_USAGE
from omerender.output.formats import GRAPH_FORMATS
from omerender.settings import Settings

if TYPE_CHECKING:
    from omerender.forest.model import Forest

DOT_TIMEOUT_SECONDS = 300
view_options = [
    click.option(
        "--runtime",
        metavar="RUNTIME",
        help="Only this runtime's subtree: NAME (a ServingRuntime in -n, else a ClusterServingRuntime) or "
        "NAMESPACE/NAME.",
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


def _forest(
    paths: tuple[str, ...], settings: Settings, view: tuple[str | None, str | None, bool, bool]
) -> tuple[Forest, bool]:
    """Build (without the Kubernetes schema check: the forest's shape does not depend on it), report the
    diagnostics, and return the forest to show and whether anything is broken."""
    from omerender.cli.build import cores
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
    from omerender.lifecycle.lock import default_path
    from omerender.pipeline import build, options_from

    runtime, isvc, collapse, used = view
    if runtime and isvc:
        raise click.UsageError("give --runtime or --isvc, not both")
    namespace = settings.namespace
    lock = settings.lock_file or default_path(list(paths))  # PATHS place it, not the search paths
    options = options_from(settings, kube_version=None, lock_file=lock, parse_jobs=cores())
    result = build([*paths, *settings.search_path], options, stdin)
    report_settings(result.diagnostics, settings, result)
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
@with_view_options
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="auto: colour only on a terminal and without NO_COLOR.",
)
@settings_options("tree")
@guard
def tree(
    paths: tuple[str, ...],
    runtime: str | None,
    isvc: str | None,
    collapse_isvcs: bool,
    used_only: bool,
    color: str,
    settings: Settings,
) -> None:
    """Print the runtime inheritance forest as a tree.

    Profiles and other root runtimes, their children, and the InferenceServices that use each
    runtime (auto-selected ones marked).
    A broken link shows its InheritanceReady reason (ParentNotFound, InheritanceCycle, MaxDepthExceeded)
    where the missing parent would hang. Exit 1 when any chain is broken (as `status` does).
    """
    from omerender.forest.text import render

    shown, failed = _forest(paths, settings, (runtime, isvc, collapse_isvcs, used_only))
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
@output_option(
    list(GRAPH_FORMATS),
    "mermaid",
    "mermaid: a flowchart for markdown; dot: Graphviz; json: nodes and edges (schemas/forest.schema.json); "
    "svg: Graphviz's dot renders it.",
    STDOUT_HINT,
)
@with_view_options
@settings_options("graph")
@guard
def graph(
    paths: tuple[str, ...],
    runtime: str | None,
    isvc: str | None,
    collapse_isvcs: bool,
    used_only: bool,
    settings: Settings,
) -> None:
    """Draw the inheritance forest: Mermaid, DOT, JSON or SVG.

    Grouped by namespace; broken links and disabled profiles styled apart.
    Edges run from a runtime to each runtime that inherits from it and to each InferenceService that
    uses it. Exit 1 when any chain is broken; 2 for -o svg without Graphviz.
    """
    output = settings.output or "mermaid"
    if output == "svg" and shutil.which("dot") is None:
        svg("")  # exits 2 before any work
    shown, failed = _forest(paths, settings, (runtime, isvc, collapse_isvcs, used_only))
    text = GRAPH_FORMATS[output](shown)
    if output == "svg":
        text = svg(text)
    click.echo(text, nl=False)
    if failed:
        sys.exit(EXIT_FINDINGS)


COMMANDS = (tree, graph)
