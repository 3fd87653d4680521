"""Commands about runtimes over time: ``effective``, ``lock`` and ``diff`` (registered on ``cli.main``)."""

from __future__ import annotations

import sys
from typing import Any

import click

from omerender import codes
from omerender.cli.common import (
    STDOUT_HINT,
    OutputFormat,
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
    subjects_of,
    with_report_options,
)
from omerender.errors import EXIT_FINDINGS, EXIT_TREE_BROKEN, EXIT_USAGE
from omerender.output.formats import DIFF_FORMATS, EFFECTIVE_FORMATS


def _search_roots(search_path: tuple[str, ...]) -> Any:
    """A predicate: the object was read from a --search-path (so it only resolves, as with build)."""
    from omerender.output.emit import under

    return under(list(search_path))


def _within(path: str, roots: list[str]) -> str | None:
    """The first of ``roots`` that is ``path`` or a folder holding it (both resolved), else None."""
    import os

    real = os.path.realpath(path)
    for root in roots:
        top = os.path.realpath(root)
        if real == top or real.startswith(top.rstrip(os.sep) + os.sep):
            return root
    return None


def _isvc_key(name: str, namespace: str) -> str:
    return name if "/" in name else f"{namespace}/{name}"


@click.command(short_help="Show the runtime an InferenceService uses, and its drift.")
@click.argument("isvc", metavar="ISVC")
@paths_argument
@namespace_option
@output_option(
    list(EFFECTIVE_FORMATS),
    "table",
    "Output format: table, or yaml and json, which add the chain (root first) and the merged spec.",
    STDOUT_HINT,
)
@click.option(
    "--show-origin", is_flag=True, help="Name the runtime in the chain (or the InferenceService) that set each field."
)
@lock_file_option
@model_metadata_option
@controller_config_option
@search_path_option
@with_report_options
@strict_option
@guard
def effective(
    isvc: str,
    paths: tuple[str, ...],
    namespace: str,
    output: str,
    show_origin: bool,
    lock_file: str | None,
    model_metadata: str | None,
    controller_config: str | None,
    search_path: tuple[str, ...],
    report_format: tuple[str, ...],
    report_file: str | None,
    max_errors: int | None,
    verbose: int,
    max_file_size: int,
    strict: bool = False,
    validate: str = "strict",
) -> None:
    """Show the runtime InferenceService ISVC uses: kind, name, revision, pinned or following, drift.

    ISVC is NAME (in the -n namespace) or NAMESPACE/NAME. Exit 1 when it is not found or no
    revision of its runtime resolves. Like `kubectl ome runtime effective ISVC -n NAMESPACE`. With --show-origin, fields the
    InferenceService sets on its components are listed under the runtime config they override.
    """
    from omerender.diagnostics import sorted_unique
    from omerender.lifecycle.lock import default_path
    from omerender.pipeline import build

    options = build_options(
        namespace=namespace,
        max_file_size=max_file_size,
        validate=validate,
        strict=strict,
        lock_file=lock_file or default_path(list(paths)),
        model_metadata=model_metadata,
        controller_config=controller_config,
    )
    result = build(list(paths) + list(search_path), options, stdin)
    key = _isvc_key(isvc, namespace)
    record = result.lifecycle.records.get(key)
    searched = record is not None and _search_roots(search_path)(record.isvc)
    files = {result.lifecycle.path, *((model_metadata,) if model_metadata else ())}
    config_codes = (codes.CONTROLLER_CONFIG, codes.CONTROLLER_CONFIG_UNKNOWN, codes.CONTROLLER_CONFIG_POD_ONLY)
    config_problems = [d for d in result.diagnostics if d.code in config_codes]
    files |= {d.path for d in config_problems}  # a refused controller configuration stops OME's controller
    key_namespace, _, key_name = key.partition("/")
    present = result.universe.isvcs.get((key_namespace, key_name))
    if record is None and present is not None:  # there, but its model or runtime cannot be resolved
        files.add(present.path)
    if record is not None and not searched:
        files |= {record.isvc.path, *(r.path for r in (record.live.runtimes if record.live is not None else ()))}
        model_ref = record.isvc.spec.get("model")
        model = (
            result.universe.model_named(str(model_ref.get("name")), record.isvc.namespace)
            if isinstance(model_ref, dict)
            else None
        )
        if model is not None:
            files.add(model.path)
    shown = [d for d in result.diagnostics if d.path in files]
    report(sorted_unique(shown + result.load_errors), report_format, report_file, max_errors, verbose)
    if result.load_errors:
        click.echo(
            f"omerender: {len(result.load_errors)} input error(s) above: the answer would come from a partial set of "
            "objects, so none is given",
            err=True,
        )
        sys.exit(EXIT_FINDINGS)
    if record is None or searched:
        elsewhere = (
            [] if "/" in isvc else sorted(n for n, name in result.universe.isvcs if name == isvc and n != namespace)
        )
        if searched and record is not None:
            where = f" (only on a --search-path, {record.isvc.path})"
        elif present is not None:
            click.echo(
                f"omerender: InferenceService {key} ({present.path}:{present.at()[0]}) cannot be resolved: its model "
                "or runtime is missing or broken (the errors above say which), so no runtime answers for it",
                err=True,
            )
            sys.exit(EXIT_FINDINGS)
        else:
            where = "" if elsewhere else " (or not valid)"
        click.echo(f"omerender: InferenceService {key} not found{where} in {' '.join(paths)}", err=True)
        if elsewhere:
            click.echo(
                f"omerender: it exists in namespace {', '.join(elsewhere)}: "
                f"pass -n {elsewhere[0]} (or write {elsewhere[0]}/{isvc})",
                err=True,
            )
        sys.exit(EXIT_FINDINGS)
    click.echo(EFFECTIVE_FORMATS[output](record, show_origin), nl=False)
    if record.revision is None or any(d.severity == "error" for d in config_problems):
        sys.exit(EXIT_FINDINGS)


@click.command(name="lock", short_help="Record each InferenceService's runtime revision in the lock file.")
@paths_argument
@namespace_option
@click.option(
    "--roll-forward",
    "roll_forward",
    multiple=True,
    metavar="ISVC",
    help="Move an autoSync: false InferenceService (name or namespace/name) to the live merged spec. Repeatable.",
)
@click.option(
    "--keep-last-good",
    is_flag=True,
    help="Keep the locked snapshot of InferenceServices whose runtime chain is broken instead of refusing.",
)
@click.option("--check", is_flag=True, help="Write nothing; exit 1 when the lock file is not up to date.")
@lock_file_option
@model_metadata_option
@controller_config_option
@search_path_option
@with_report_options
@strict_option
@guard
def lock_command(
    paths: tuple[str, ...],
    namespace: str,
    roll_forward: tuple[str, ...],
    keep_last_good: bool,
    check: bool,
    lock_file: str | None,
    model_metadata: str | None,
    controller_config: str | None,
    search_path: tuple[str, ...],
    report_format: tuple[str, ...],
    report_file: str | None,
    max_errors: int | None,
    verbose: int,
    max_file_size: int,
    strict: bool = False,
    validate: str = "strict",
) -> None:
    """Record each InferenceService's runtime, revision, chain and merged-spec snapshot in the lock file.

    autoSync: false InferenceServices keep their locked revision until --roll-forward names them;
    revisions a pin still needs are kept, others dropped. Nothing is written when the build has errors.
    A snapshot edited by hand (or missing) is dropped and InferenceServices that follow their live
    runtime are re-recorded; a pinned one is an error until --roll-forward names it (or the lock
    file is restored), so that what it runs never changes silently.
    """
    from omerender.lifecycle.lock import default_path
    from omerender.lifecycle.settle import relocked
    from omerender.output.writer import write_file
    from omerender.pipeline import build

    keys = tuple(_isvc_key(name, namespace) for name in roll_forward)
    options = build_options(
        namespace=namespace,
        max_file_size=max_file_size,
        validate=validate,
        strict=strict,
        lock_file=lock_file or default_path(list(paths)),
        keep_last_good=keep_last_good,
        roll_forward=keys,
        model_metadata=model_metadata,
        controller_config=controller_config,
    )
    result = build(list(paths) + list(search_path), options, stdin)
    recoverable = result.lifecycle.lock.recoverable if result.lifecycle.lock is not None else {}
    result.diagnostics = [recoverable.get(d, d) for d in result.diagnostics]  # re-recording below fixes these
    report(result.diagnostics, report_format, report_file, max_errors, verbose)
    searched = _search_roots(search_path)
    records = {k: r for k, r in result.lifecycle.records.items() if not searched(r.isvc)}
    for key in keys:
        if key not in records:
            raise click.UsageError(f"--roll-forward {key}: no such InferenceService")
        if records[key].sync == "revision":
            raise click.UsageError(
                f"--roll-forward {key}: it is pinned by spec.runtime.revision; change that field instead"
            )
        if records[key].sync == "live":
            click.echo(
                f"omerender: {key} follows its live runtime (autoSync: true); --roll-forward changes nothing", err=True
            )
    if result.failed:
        click.echo(
            f"omerender: {result.lifecycle.path} not written: fix the errors above (or use --keep-last-good for broken chains)",
            err=True,
        )
        sys.exit(EXIT_FINDINGS)
    text = relocked(result, records, searched)
    path = result.lifecycle.path
    if text == result.lifecycle.lock_text:
        click.echo(f"{path} is up to date", err=True)
        return
    if check:
        click.echo(f"omerender: {path} is not up to date; run `omerender lock`", err=True)
        sys.exit(EXIT_FINDINGS)
    write_file(path, text)
    click.echo(f"wrote {path}", err=True)


def _relabel(diagnostics: list[Any], scratch: str, label: str) -> list[Any]:
    import dataclasses

    return [
        dataclasses.replace(d, path=label + d.path[len(scratch) :].lstrip("/")) if d.path.startswith(scratch) else d
        for d in diagnostics
    ]


def _sides(paths: list[str], search_path: tuple[str, ...], against: list[str] | None) -> tuple[list[str], list[str]]:
    """The inputs of one side of a diff and the roots whose objects only resolve (not compared).

    ``paths`` are the diffed paths of the working tree; ``against`` the same paths extracted at
    GIT_REF (or None). A --search-path inside a diffed path is already read with it (at GIT_REF for
    the old side); any other is read from the working tree, as given.
    """
    inputs = list(against if against is not None else paths)
    roots: list[str] = []
    for given in search_path:
        holder = _within(given, paths)
        if holder is None:
            inputs.append(given)
            roots.append(given)
        elif against is None:
            roots.append(given)
        else:
            import os

            rel = os.path.relpath(os.path.realpath(given), os.path.realpath(holder))
            roots.append(os.path.normpath(os.path.join(against[paths.index(holder)], rel)))
    return inputs, roots


def _two_sides(paths: tuple[str, ...], old: tuple[str, ...], new: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """The roots of each side: ``OLD NEW``, or every --old and every --new (not both forms)."""
    if old or new:
        if paths or not old or not new:
            raise click.UsageError("give --old PATH and --new PATH (each repeatable), or OLD NEW, not both")
        return list(old), list(new)
    if len(paths) != 2:
        raise click.UsageError("give two paths, OLD and NEW, or --against GIT_REF with the paths to compare")
    return [paths[0]], [paths[1]]


def _searched_isvcs(result: Any, roots: list[str]) -> set[str]:
    from omerender.lifecycle.lock import isvc_key

    inside = _search_roots(tuple(roots))
    return {isvc_key(i) for i in result.universe.isvcs.values() if inside(i)}


@click.command(short_help="Show which runtimes and InferenceServices change between trees.")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--against", "git_ref", metavar="GIT_REF", help="Compare PATHS with the same paths at GIT_REF (instead of OLD NEW)."
)
@click.option(
    "--old",
    "old_tree",
    multiple=True,
    type=click.Path(),
    metavar="PATH",
    help="A root of the old side (repeatable; with --new, instead of OLD NEW).",
)
@click.option(
    "--new",
    "new_tree",
    multiple=True,
    type=click.Path(),
    metavar="PATH",
    help="A root of the new side (repeatable; with --old, instead of OLD NEW).",
)
@namespace_option
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
@model_metadata_option
@controller_config_option
@search_path_option
@with_report_options
@strict_option
@guard
def diff(
    paths: tuple[str, ...],
    git_ref: str | None,
    old_tree: tuple[str, ...],
    new_tree: tuple[str, ...],
    namespace: str,
    output: str,
    legacy_format: str | None,
    model_metadata: str | None,
    controller_config: str | None,
    search_path: tuple[str, ...],
    report_format: tuple[str, ...],
    report_file: str | None,
    max_errors: int | None,
    verbose: int,
    max_file_size: int,
    strict: bool = False,
    validate: str = "strict",
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
    old side). InferenceServices found there are not compared.
    """
    import tempfile

    from omerender.lifecycle.diff import changed, compare
    from omerender.lifecycle.gitref import GitError, paths_at
    from omerender.lifecycle.lock import default_path
    from omerender.pipeline import BuildOptions, build

    def options(lock_file: str) -> BuildOptions:
        return build_options(
            namespace=namespace,
            max_file_size=max_file_size,
            validate=validate,
            strict=strict,
            lock_file=lock_file,
            model_metadata=model_metadata,
            controller_config=controller_config,
        )

    with tempfile.TemporaryDirectory(prefix="omerender-diff-") as scratch:
        if git_ref is not None and (old_tree or new_tree):
            raise click.UsageError("--against compares PATHS with GIT_REF: it takes no --old or --new")
        if git_ref is not None:
            if not paths:
                raise click.UsageError("--against GIT_REF needs the paths to compare")
            try:
                extracted = paths_at(list(paths), git_ref, scratch)
            except GitError as exc:
                click.echo(f"omerender: --against {git_ref}: {exc}", err=True)
                sys.exit(EXIT_USAGE)
            (old_paths, old_roots), (new_paths, new_roots) = (
                _sides(list(paths), search_path, extracted),
                _sides(list(paths), search_path, None),
            )
            old_lock, new_lock = default_path(extracted), default_path(list(paths))
        else:
            old_given, new_given = _two_sides(paths, old_tree, new_tree)
            (old_paths, old_roots), (new_paths, new_roots) = (
                _sides(old_given, search_path, None),
                _sides(new_given, search_path, None),
            )
            old_lock, new_lock = default_path(old_given), default_path(new_given)
        old, new = build(old_paths, options(old_lock), stdin), build(new_paths, options(new_lock), stdin)
        hidden = _searched_isvcs(old, old_roots) | _searched_isvcs(new, new_roots)
        diagnostics = _relabel(old.diagnostics, scratch, f"{git_ref}:") if git_ref else old.diagnostics
    shown = sorted(set(diagnostics) | set(new.diagnostics), key=lambda d: (d.path, d.line, d.col))
    sides = subjects_of(new) if git_ref else lambda: [*subjects_of(old)(), *subjects_of(new)()]
    report(shown, report_format, report_file, max_errors, verbose, sides)
    comparison = compare(old, new, hidden)
    fmt = legacy_format or output
    if fmt == "markdown":  # with the picture of the affected subtree, which needs the new build
        from omerender.forest.blast import picture
        from omerender.output.diff_view import format_markdown

        click.echo(format_markdown(comparison, picture(comparison, new)), nl=False)
    else:
        click.echo(DIFF_FORMATS[fmt](comparison), nl=False)
    if old.failed or new.failed:
        sys.exit(EXIT_TREE_BROKEN)
    sys.exit(EXIT_FINDINGS if changed(comparison) else 0)


COMMANDS = (effective, lock_command, diff)
