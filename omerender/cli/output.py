"""CLI layer for what ``build`` emits and where: stdout, ``--output-dir``, ``--check``, ``--fail-on-change``.

This module may print and exit (it is part of the CLI); the choices themselves live in ``emit``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from omerender.output.emit import Selection
    from omerender.pipeline import BuildResult

EXIT_FINDINGS = 1
KUSTOMIZATION = "kustomization.yaml"
MAX_DIFF_LINES = 200
"""``--check`` shows at most this many lines of unified diff; the rest are counted."""


@dataclass(frozen=True)
class OutputOptions:
    emit: tuple[str, ...] = ("rendered",)
    search_paths: tuple[str, ...] = ()
    check: bool = False
    fail_on_change: bool = False
    kustomization: bool = False
    flux_substitute_disabled: bool = False
    fail_empty: bool = False
    fmt: str = "yaml"

    def validate(self, output_dir: str | None, output: str | None = None) -> None:
        """Raise click.UsageError (exit 2) for combinations that cannot work."""
        from omerender.output.emit import kinds_problem

        problem = kinds_problem(self.emit)
        if problem:
            raise click.UsageError(problem)
        if output_dir and output not in (None, "yaml"):
            raise click.UsageError(
                f"--output-dir writes one YAML file per object; -o {output} is for stdout: choose one"
            )
        if self.kustomization and not output_dir:
            raise click.UsageError("--kustomization needs --output-dir")
        if self.fail_on_change and not output_dir:
            raise click.UsageError("--fail-on-change needs --output-dir")
        if self.check and self.fail_on_change:
            raise click.UsageError("--check never writes; --fail-on-change writes: choose one")


def emitted(result: BuildResult, options: OutputOptions, output_dir: str | None = None) -> Selection:
    """The objects to print; their diagnostics (Flux substitution, output paths) join ``result.diagnostics``."""
    from omerender.diagnostics import INFO, WARNING, sorted_unique
    from omerender.output.clashes import files_for
    from omerender.output.emit import EmitOptions, rendered_sources, select, under
    from omerender.pipeline import collector_paused

    in_search_path = under(list(options.search_paths))
    with collector_paused():  # one object per rendered one, and no cycles
        selection = select(
            result,
            EmitOptions(
                kinds=tuple(dict.fromkeys(options.emit)) or ("rendered",),
                owned=lambda obj: not in_search_path(obj),
                renders=lambda obj: not in_search_path(obj),
                flux_substitute_disabled=options.flux_substitute_disabled,
                substitution_severity=WARNING if options.kustomization else INFO,
            ),
        )
    if output_dir:
        selection.files, problems = files_for(selection.pairs, lambda body: rendered_sources(result, body))
        selection.diagnostics.extend(problems)
    result.diagnostics = sorted_unique(result.diagnostics + selection.diagnostics)
    return selection


def _fail_if_empty(selection: Selection, result: BuildResult, options: OutputOptions) -> None:
    if not options.fail_empty or selection.pairs:
        return
    ome = sum(1 for _ in result.universe.all_runtimes()) + len(result.universe.isvcs)
    held = f"the inputs hold {ome} OME runtimes and InferenceServices but " if ome else ""
    click.echo(
        f"omerender: error: {held}nothing was emitted (--emit {','.join(options.emit)}); an empty manifest would make "
        "Argo CD prune the application (allow it with --no-fail-empty, or the allow-empty parameter)",
        err=True,
    )
    sys.exit(EXIT_FINDINGS)


CHUNK_CHARS = 1 << 20


def write_stream(objects: list[Any], fmt: str = "yaml") -> None:
    """The objects as one YAML stream (or ``-o json``'s List) on stdout, written in chunks as they are produced.

    Called only once every check has passed, so nothing is written for a build that fails.
    """
    from omerender.load.yamlwrite import Writer
    from omerender.output.jsonwrite import list_pieces
    from omerender.pipeline import collector_paused

    pending: list[str] = []
    size = 0
    with collector_paused():  # writing makes millions of short-lived strings and no cycles
        for text in Writer().documents(objects) if fmt == "yaml" else list_pieces(objects):
            pending.append(text)
            size += len(text)
            if size >= CHUNK_CHARS:
                click.echo("".join(pending), nl=False)
                pending, size = [], 0
        if pending:
            click.echo("".join(pending), nl=False)


def finish(
    selection: Selection, result: BuildResult, output_dir: str | None, options: OutputOptions, ctx: click.Context
) -> None:
    """Print or write the selection, or compare it with ``output_dir``; exits 1 on a difference."""
    from omerender.load.yamlio import dump_each, dump_one
    from omerender.output.emit import kustomization
    from omerender.output.formats import BUILD_FORMATS
    from omerender.pipeline import collector_paused

    _fail_if_empty(selection, result, options)
    if not output_dir:
        if not options.check:
            if options.fmt in ("yaml", "json"):
                write_stream(selection.objects, options.fmt)  # the same text as BUILD_FORMATS[fmt], in chunks
            else:
                click.echo(BUILD_FORMATS[options.fmt](selection.objects), nl=False)
        return
    with collector_paused():  # one writer for every file: each scalar and key is formatted once
        files = dict(zip(selection.files, dump_each(list(selection.files.values())), strict=True))
    if options.kustomization:
        files[KUSTOMIZATION] = dump_one(kustomization(list(files)))
    from omerender.output.outdir import changed_files, unified_diff

    changed = changed_files(output_dir, files) if options.check or options.fail_on_change else []
    shown = unified_diff(output_dir, files, changed, MAX_DIFF_LINES) if options.check and changed else ""
    if not options.check:
        from omerender.output.writer import write_dir

        write_dir(output_dir, files)
    if changed:
        if options.check:
            from omerender.cli.common import command_line

            head = (
                f"{output_dir} is out of date: {len(changed)} file(s) differ; to regenerate it, run:\n"
                f"  {command_line(ctx, drop=('--check',))}"
            )
        else:
            head = f"{output_dir} was regenerated: {len(changed)} file(s) changed; review and commit them"
        click.echo(f"omerender: {head}", err=True)
        for rel in changed[:20]:
            click.echo(f"  {rel}", err=True)
        if len(changed) > 20:
            click.echo(f"  ... and {len(changed) - 20} more", err=True)
        if options.check:
            click.echo(shown, err=True, nl=False)
        sys.exit(EXIT_FINDINGS)
