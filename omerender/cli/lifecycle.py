"""Commands about runtimes over time: ``effective``, ``lock`` and ``diff`` (registered on ``cli.main``)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, NoReturn

import click

from omerender.cli.common import STDOUT_HINT, OutputFormat, guard, output_option, paths_argument, report_settings, stdin
from omerender.cli.options import settings_options
from omerender.constants import SyncMode
from omerender.errors import EXIT_FINDINGS, EXIT_TREE_BROKEN, EXIT_USAGE
from omerender.output.formats import DIFF_FORMATS, EFFECTIVE_FORMATS
from omerender.settings import Settings

if TYPE_CHECKING:
    from omerender.diagnostics import Diagnostic
    from omerender.lifecycle.settle import Effective
    from omerender.result import BuildResult


def _isvc_key(name: str, namespace: str) -> str:
    return name if "/" in name else f"{namespace}/{name}"


def _not_found(
    isvc: str, record: Effective | None, result: BuildResult, paths: tuple[str, ...], namespace: str
) -> NoReturn:
    """Say the InferenceService is not there (or only on a --search-path), hint its namespace, exit 1."""
    elsewhere = [] if "/" in isvc else sorted(n for n, name in result.universe.isvcs if name == isvc and n != namespace)
    if record is not None:
        where = f" (only on a --search-path, {record.isvc.path})"
    else:
        where = "" if elsewhere else " (or not valid)"
    click.echo(
        f"omerender: InferenceService {_isvc_key(isvc, namespace)} not found{where} in {' '.join(paths)}", err=True
    )
    if elsewhere:
        click.echo(
            f"omerender: it exists in namespace {', '.join(elsewhere)}: "
            f"pass -n {elsewhere[0]} (or write {elsewhere[0]}/{isvc})",
            err=True,
        )
    sys.exit(EXIT_FINDINGS)


def _refuse(message: str) -> NoReturn:
    """Say why no answer is given, on stderr, and exit 1 (findings)."""
    click.echo(f"omerender: {message}", err=True)
    sys.exit(EXIT_FINDINGS)


@click.command(short_help="Show the runtime an InferenceService uses, and its drift.")
@click.argument("isvc", metavar="ISVC")
@paths_argument
@output_option(
    list(EFFECTIVE_FORMATS),
    "table",
    "Output format: table, or yaml and json, which add the chain (root first) and the merged spec.",
    STDOUT_HINT,
)
@click.option(
    "--show-origin", is_flag=True, help="Name the runtime in the chain (or the InferenceService) that set each field."
)
@settings_options("effective")
@guard
def effective(isvc: str, paths: tuple[str, ...], show_origin: bool, settings: Settings) -> None:
    """Show the runtime InferenceService ISVC uses: kind, name, revision, pinned or following, drift.

    ISVC is NAME (in the -n namespace) or NAMESPACE/NAME. Exit 1 when it is not found or no
    revision of its runtime resolves. Like `kubectl ome runtime effective ISVC -n NAMESPACE`. With --show-origin,
    fields the InferenceService sets on its components are listed under the runtime config they override.
    """
    from omerender.changes.sides import CONFIG_CODES, concerning, dropped_error
    from omerender.diagnostics import ERROR, sorted_unique
    from omerender.lifecycle.lock import default_path
    from omerender.output.emit import only_searched
    from omerender.pipeline import build, options_from

    options = options_from(settings, lock_file=settings.lock_file or default_path(list(paths)))
    result = build([*paths, *settings.search_path], options, stdin)
    record = result.lifecycle.records.get(_isvc_key(isvc, settings.namespace))
    searched = record is not None and only_searched(list(settings.search_path), list(paths))(record.isvc)
    shown = concerning(result, None if searched else record, settings.model_metadata)
    key_namespace, _, key_name = _isvc_key(isvc, settings.namespace).partition("/")
    present = result.universe.isvcs.get((key_namespace, key_name)) if record is None else None
    if present is not None:  # there, but its model or runtime cannot be resolved: its own errors say why
        shown += [d for d in result.diagnostics if d.path == present.path]
    report_settings(sorted_unique(shown + result.load_errors), settings, result)
    if result.load_errors:
        _refuse(
            f"{len(result.load_errors)} input error(s) above: the answer would come from a partial set of "
            "objects, so none is given"
        )
    if present is not None:
        _refuse(
            f"InferenceService {key_namespace}/{key_name} ({present.path}:{present.at()[0]}) cannot be "
            "resolved: its model or runtime is missing or broken (the errors above say which), so no runtime answers"
        )
    if record is None or searched:
        _not_found(isvc, record, result, paths, settings.namespace)
    wrong = dropped_error(shown)
    if wrong is not None:  # an answer computed without what the user wrote would be wrong: every command exits 1
        _refuse(
            f"{_isvc_key(isvc, settings.namespace)} depends on objects the API server would not store "
            f"as written ({wrong.path}:{wrong.line}): an answer without what they hold would be wrong, so none is "
            "given"
        )
    click.echo(EFFECTIVE_FORMATS[settings.output or "table"](record, show_origin), nl=False)
    if record.revision is None or any(d.severity == ERROR and d.code in CONFIG_CODES for d in result.diagnostics):
        sys.exit(EXIT_FINDINGS)


def _check_roll_forward(keys: tuple[str, ...], records: dict[str, Effective]) -> None:
    for key in keys:
        if key not in records:
            raise click.UsageError(f"--roll-forward {key}: no such InferenceService")
        if records[key].sync == SyncMode.REVISION:
            raise click.UsageError(
                f"--roll-forward {key}: it is pinned by spec.runtime.revision; change that field instead"
            )
        if records[key].sync == SyncMode.LIVE:
            click.echo(
                f"omerender: {key} follows its live runtime (autoSync: true); --roll-forward changes nothing", err=True
            )


@click.command(name="lock", short_help="Record each InferenceService's runtime revision in the lock file.")
@paths_argument
@click.option(
    "--roll-forward",
    "roll_forward",
    multiple=True,
    metavar="ISVC",
    help="Move an autoSync: false InferenceService (name or namespace/name) to the live merged spec. Repeatable.",
)
@settings_options("lock")
@guard
def lock_command(paths: tuple[str, ...], roll_forward: tuple[str, ...], settings: Settings) -> None:
    """Record each InferenceService's runtime, revision, chain and merged-spec snapshot in the lock file.

    autoSync: false InferenceServices keep their locked revision until --roll-forward names them;
    revisions a pin still needs are kept, others dropped. Nothing is written when the build has errors.
    A snapshot edited by hand (or missing) is dropped and InferenceServices that follow their live
    runtime are re-recorded; a pinned one is an error until --roll-forward names it (or the lock
    file is restored), so that what it runs never changes silently.
    """
    from omerender.changes.relock import recorded, verdict
    from omerender.lifecycle.lock import default_path
    from omerender.output.emit import only_searched
    from omerender.output.writer import write_file
    from omerender.pipeline import build, options_from

    keys = tuple(_isvc_key(name, settings.namespace) for name in roll_forward)
    lock_file = settings.lock_file or default_path(list(paths))
    options = options_from(settings, lock_file=lock_file, roll_forward=keys, relock=True)  # re-recording fixes some
    result = build([*paths, *settings.search_path], options, stdin)
    report_settings(result.diagnostics, settings, result)
    searched = only_searched(list(settings.search_path), list(paths))  # as build and status: a PATH wins
    records = recorded(result, searched)
    _check_roll_forward(keys, records)
    if result.failed:
        click.echo(
            f"omerender: {result.lifecycle.path} not written: fix the errors above (or use --keep-last-good for "
            "broken chains)",
            err=True,
        )
        sys.exit(EXIT_FINDINGS)
    found = verdict(result, records, searched, settings.check)
    if found.text is not None:
        write_file(found.path, found.text)
    click.echo(found.message, err=True)
    if found.failed:
        sys.exit(EXIT_FINDINGS)


def _sides_built(
    given: tuple[list[str], list[str]], git_ref: str | None, settings: Settings, scratch: str
) -> tuple[BuildResult, BuildResult, set[str], list[Diagnostic]]:
    """Build the old and new side of the diff; the old one's diagnostics named ``GIT_REF:path``."""
    from omerender.changes.gitref import GitError, paths_at
    from omerender.changes.sides import others_files, relabel, searched_isvcs, sides
    from omerender.lifecycle.lock import default_path
    from omerender.output.emit import only_searched
    from omerender.pipeline import build, options_from

    old_given, new_given = given
    if git_ref is not None:
        try:
            extracted = paths_at(new_given, git_ref, scratch)
        except GitError as exc:
            click.echo(f"omerender: --against {git_ref}: {exc}", err=True)
            sys.exit(EXIT_USAGE)
        old_paths, old_in = extracted, sides(new_given, settings.search_path, extracted)
    else:
        old_paths, old_in = old_given, sides(old_given, settings.search_path, None)
    new_in = sides(new_given, settings.search_path, None)
    skip_old = others_files(settings.search_path, old_paths, new_given)
    skip_new = others_files(settings.search_path, new_given, old_paths)
    old = build(old_in[0], options_from(settings, lock_file=default_path(old_paths)), stdin, skip_old)
    new = build(new_in[0], options_from(settings, lock_file=default_path(new_given)), stdin, skip_new)
    # as build and status: what a side's PATH covers is that side's, even when a search path covers it too
    hidden = searched_isvcs(old, only_searched(old_in[1], old_paths))
    hidden |= searched_isvcs(new, only_searched(new_in[1], new_given))
    diagnostics = relabel(old.diagnostics, scratch, f"{git_ref}:") if git_ref else old.diagnostics
    return old, new, hidden, diagnostics


@click.command(short_help="Show which runtimes and InferenceServices change between trees.")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--against", "git_ref", metavar="GIT_REF", help="Compare PATHS with the same paths at GIT_REF (instead of OLD NEW)."
)
@click.option("--old", multiple=True, type=click.Path(), metavar="PATH", help="A root of the old side (repeatable).")
@click.option("--new", multiple=True, type=click.Path(), metavar="PATH", help="A root of the new side (repeatable).")
@output_option(
    list(DIFF_FORMATS),
    "text",
    "Output format: text, json (canonical, for tools) or markdown (for a pull-request comment).",
    STDOUT_HINT,
)
@click.option(
    "--format",
    "legacy_format",
    type=OutputFormat(list(DIFF_FORMATS), STDOUT_HINT),
    hidden=True,
    help="Old name of -o/--output, kept as an alias.",
)
@settings_options("diff")
@guard
def diff(
    paths: tuple[str, ...], git_ref: str | None, legacy_format: str | None, settings: Settings, **roots: Any
) -> None:
    """Which runtimes' merged specs change between OLD and NEW, and which InferenceServices roll out.

    \b
    omerender diff OLD NEW
    omerender diff --old PATH [--old PATH...] --new PATH [--new PATH...]
    omerender diff --against GIT_REF PATH...
    Exit 0: no change; 1: changes; 2: usage error (bad options, a bad git ref);
    4: a tree does not build (the report still lists what no longer renders).

    --model-metadata and --search-path apply to both sides; the --model-metadata file is always read
    from the working tree.
    A --search-path is read from the working tree, also for the GIT_REF side of --against, unless it
    lies inside one of the diffed PATHS: then each side reads it with that path (at GIT_REF for the
    old side). InferenceServices found only there (under no diffed PATH) are not compared.
    """

    from omerender.changes.diff import compare
    from omerender.changes.sides import two_sides
    from omerender.output.leftovers import scratch as scratch_folder

    given = two_sides(paths, roots["old"], roots["new"], git_ref)
    with scratch_folder("omerender-diff-") as scratch:  # what a killed diff left there is removed first
        old, new, hidden, diagnostics = _sides_built(given, git_ref, settings, scratch)
    shown = sorted(set(diagnostics) | set(new.diagnostics), key=lambda d: (d.path, d.line, d.col))
    report_settings(shown, settings, *((new,) if git_ref else (old, new)))
    comparison = compare(old, new, hidden)
    fmt = legacy_format or settings.output or "text"
    if fmt == "markdown":  # with the picture of the affected subtree, which needs the new build
        from omerender.forest.blast import picture
        from omerender.output.diff_view import format_markdown

        click.echo(format_markdown(comparison, picture(comparison, new)), nl=False)
    else:
        click.echo(DIFF_FORMATS[fmt](comparison), nl=False)
    if old.failed or new.failed:
        sys.exit(EXIT_TREE_BROKEN)
    sys.exit(EXIT_FINDINGS if comparison.changed else 0)


COMMANDS = (effective, lock_command, diff)
