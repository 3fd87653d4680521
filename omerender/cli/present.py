"""Saying what a use case returned (``commands.outcome``): usage problems as click's usage errors (exit 2), notes
on stderr, the diagnostics reported, and the exit code of the verdict."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

import click

from omerender.cli.report import report_settings
from omerender.commands.outcome import Note, Outcome, UsageProblem, Verdict
from omerender.settings import Settings


def resolve_kube_version(given: str | None, label: str = "--kube-version") -> str | None:
    """``commands.request.kube_check`` said: its warnings on stderr, its problem a usage error (exit 2); returns
    the installed release's ``major.minor`` to check with, or None to skip the check."""
    from omerender.commands.request import kube_check

    check = kube_check(given, label)
    refuse(check.problem)
    say(check.notes)
    return check.version


def refuse_output_in_input(inputs: list[str], outputs: list[tuple[str, str | None]], allowable: bool = True) -> None:
    from omerender.commands.request import output_in_input

    refuse(output_in_input(inputs, outputs, allowable))


def refuse(problem: UsageProblem | None) -> None:
    """A usage problem as click's usage error (exit 2): naming its option when it is about one."""
    if problem is None:
        return
    if problem.option:
        raise click.BadParameter(problem.message, param_hint=f"'{problem.option}'")
    raise click.UsageError(problem.message)


def say(notes: Iterable[Note]) -> None:
    """Each note on stderr, one line each."""
    for note in notes:
        click.echo(note.line(), err=True)


def refuse_reports_in_input(settings: Settings, inputs: list[str], command: str) -> None:
    """Usage errors, before anything is read: two reports to one file, or a report file that is an input or a YAML
    file inside an input folder (the next run would read it), unless ``--allow-output-in-input``."""
    from omerender.commands.request import reports_in_input

    refuse(reports_in_input(settings, inputs, command))


def report_outcome(outcome: Outcome[Any], settings: Settings) -> None:
    """The outcome's diagnostics reported with the run's report settings (its builds' subjects for JUnit and
    GitLab), then its notes."""
    report_settings(outcome.diagnostics, settings, *outcome.builds, elsewhere=outcome.elsewhere)
    say(outcome.notes)


def exit_with(verdict: Verdict) -> None:
    """End the command with the verdict's exit code; return on success (the command's ``concluded`` ends it)."""
    if verdict is not Verdict.OK:
        sys.exit(verdict.exit_code)
