"""The diagnostics report of every command: each ``--report-format`` to its file or stderr, counted for ``-v``."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import click

from omerender import __version__
from omerender.cli.verdict import count_read, count_reported
from omerender.errors import UsageError
from omerender.gitops.confine import root_of
from omerender.output.overlap import named_twice
from omerender.output.repo_paths import RepoRoot
from omerender.settings import Settings, report_targets

if TYPE_CHECKING:
    from omerender.diagnostics import Diagnostic
    from omerender.output.ci_reports import Subject
    from omerender.result import Resolved


ON_FILES = ("github", "sarif", "gitlab")  # the reports whose findings a CI system puts on the files they name
KEEP_SUPPRESSED = ("json", "sarif")
"""The reports that list a silenced finding without ``-v`` (marked suppressed): a record of what was silenced.
JUnit and GitLab Code Quality have no way to say a finding is suppressed, so they never list one."""
DROP_SUPPRESSED = ("junit", "gitlab")


def listed_in(fmt: str, diagnostics: list[Diagnostic], verbose: int) -> list[Diagnostic]:
    """What report ``fmt`` lists: notes only at ``-v``, except a silenced finding, always in JSON and SARIF and
    never in JUnit or GitLab's report."""
    if fmt in DROP_SUPPRESSED:
        return [d for d in diagnostics if d.suppression is None and (d.severity != "info" or verbose > 0)]
    keep = fmt in KEEP_SUPPRESSED
    return [d for d in diagnostics if d.severity != "info" or verbose > 0 or (keep and d.suppression is not None)]


def report(
    diagnostics: list[Diagnostic],
    formats: tuple[str, ...],
    report_file: str | None,
    max_errors: int | None,
    verbose: int,
    subjects: Callable[[], Sequence[Subject]] = tuple,
    elsewhere: str | None = None,
) -> None:
    """Every report asked for: each ``FMT=FILE`` to its file, the one bare FMT (text if none) to ``report_file``
    or stderr. ``subjects`` gives the runtimes and InferenceServices, called only when ``junit`` or ``gitlab``
    is asked for. ``elsewhere``: the prefix of paths naming files of another revision (``diff --against``'s
    ``REF:``), left out of the reports that annotate files of the checked-out tree (github, sarif, gitlab)."""
    from omerender.output.reporters import render_report  # only when a report is made (start-up)

    targets = report_targets(formats)
    bare = [fmt for fmt, file in targets if file is None] or ["text"]
    count_reported(diagnostics, machine_stderr=bare[0] != "text" and report_file is None)
    named = [(fmt, file) for fmt, file in targets if file is not None]
    twice = named_twice(report_file, formats)
    if twice:
        raise UsageError(twice)
    cases = subjects() if any(fmt in ("junit", "gitlab") for fmt, _ in targets) else ()
    ci_log = os.environ.get("GITHUB_ACTIONS") == "true"  # file names must not start workflow commands there
    repo = repo_root() if any(fmt not in ("text", "json") for fmt, _ in [(bare[0], None), *named]) else None
    for fmt, file in [(bare[0], report_file), *named]:
        shown = listed_in(fmt, diagnostics, verbose)
        listed = (
            shown
            if elsewhere is None or fmt not in ON_FILES
            else [d for d in shown if not d.path.startswith(elsewhere)]
        )
        text = render_report(
            fmt, listed, max_errors=max_errors, tool_version=__version__, subjects=cases, ci_log=ci_log, repo=repo
        )
        if file:
            from omerender.output.writer import write_file  # its writer threads, only for a report file

            write_file(file, text)
        elif text:
            click.echo(text, err=True, nl=False)


def repo_root() -> RepoRoot | None:
    """Where this run is: its folder and the repository root above it (the nearest folder holding ``.git``),
    for the reports CI systems read; None when the working folder is gone."""
    try:
        cwd = os.getcwd()
    except OSError:
        return None
    return RepoRoot(cwd, root_of(cwd, ""))


def subjects_of(*results: Resolved) -> Callable[[], Sequence[Subject]]:
    """The runtimes and InferenceServices of ``results`` for the junit report, read only if it is asked for."""

    def read() -> Sequence[Subject]:
        from omerender.output.ci_reports import subjects_of as read_subjects  # JUnit and GitLab only: XML

        return [subject for result in results for subject in read_subjects(result)]

    return read


def report_settings(
    diagnostics: list[Diagnostic], settings: Settings, *results: Resolved, elsewhere: str | None = None
) -> None:
    """``report`` with the run's report settings; ``results``: the builds whose subjects a junit report lists
    (the last one is what ``-v``'s summary counts); ``elsewhere``: as ``report`` takes it."""
    if results:
        count_read(results[-1])
    report(
        diagnostics,
        settings.report_format,
        settings.report_file,
        settings.max_errors,
        settings.verbose,
        subjects_of(*results),
        elsewhere,
    )
