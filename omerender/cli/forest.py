"""``tree`` and ``graph``: the inheritance forest in the terminal, and as Mermaid, DOT, JSON or SVG."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

from omerender.cli.guard import F, guard, stdin
from omerender.cli.options import settings_options
from omerender.cli.own_options import own_options
from omerender.cli.params import STDOUT_HINT, output_option, paths_argument
from omerender.cli.present import exit_with, refuse, report_outcome
from omerender.errors import EXIT_USAGE
from omerender.output.formats import GRAPH_FORMATS
from omerender.settings import Settings

if TYPE_CHECKING:
    from omerender.commands.outcome import Outcome
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


@dataclass(frozen=True)
class ViewOptions:
    """What ``tree`` and ``graph`` show of the forest (``commands.forest.View``)."""

    runtime: str | None
    isvc: str | None
    collapse_isvcs: bool
    used_only: bool


@dataclass(frozen=True)
class TreeOptions(ViewOptions):
    color: str


def _forest(paths: tuple[str, ...], settings: Settings, options: ViewOptions) -> Outcome[Forest]:
    """The forest ``options`` select, its build's diagnostics reported (a selection of nothing: a usage error)."""
    from omerender.commands.forest import ForestRequest, View, run  # the core: only when the command runs (start-up)

    view = View(options.runtime, options.isvc, options.collapse_isvcs, options.used_only)
    outcome = run(ForestRequest.from_settings(settings, paths, view, stdin))
    if outcome.builds:  # not when the options were refused before anything was read
        report_outcome(outcome, settings)
    refuse(outcome.problem)
    return outcome


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
@own_options(TreeOptions)
def tree(paths: tuple[str, ...], settings: Settings, options: TreeOptions) -> None:
    """Print the runtime inheritance forest as a tree.

    Profiles and other root runtimes, their children, and the InferenceServices that use each
    runtime (auto-selected ones marked).
    A broken link shows its InheritanceReady reason (ParentNotFound, InheritanceCycle, MaxDepthExceeded)
    where the missing parent would hang. Exit 1 when any chain is broken (as `status` does), but for one
    only a --search-path holds that nothing under PATHS uses (drawn, and a warning, as `build` says).
    """
    from omerender.forest.text import render

    outcome = _forest(paths, settings, options)
    assert outcome.payload is not None
    colored = use_color(options.color)
    click.echo(render(outcome.payload, colored), nl=False, color=colored)  # click would strip the escapes off a pipe
    exit_with(outcome.verdict)


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
@own_options(ViewOptions)
def graph(paths: tuple[str, ...], settings: Settings, options: ViewOptions) -> None:
    """Draw the inheritance forest: Mermaid, DOT, JSON or SVG.

    Grouped by namespace; broken links and disabled profiles styled apart.
    Edges run from a runtime to each runtime that inherits from it and to each InferenceService that
    uses it. Exit 1 when any chain is broken, but for one only a --search-path holds that nothing under
    PATHS uses (drawn, and a warning, as `build` says); 2 for -o svg without Graphviz.
    """
    output = settings.output or "mermaid"
    if output == "svg" and shutil.which("dot") is None:
        svg("")  # exits 2 before any work
    outcome = _forest(paths, settings, options)
    assert outcome.payload is not None
    text = GRAPH_FORMATS[output](outcome.payload)
    if output == "svg":
        text = svg(text)
    click.echo(text, nl=False)
    exit_with(outcome.verdict)


COMMANDS = (tree, graph)
