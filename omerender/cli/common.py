"""The names the command modules imported from here before it was split, kept while they move: the process
(``cli.streams``), the guard (``cli.guard``), the report (``cli.report``), outcomes said (``cli.present``) and
the shared click parameters (``cli.params``)."""

from __future__ import annotations

from omerender.cli.guard import EXIT_INTERNAL, F, guard, stdin
from omerender.cli.params import (
    ARGV_KEY,
    STDOUT_HINT,
    OutputFormat,
    command_line,
    folder_callback,
    namespace_callback,
    output_option,
    paths_argument,
)
from omerender.cli.present import (
    refuse,
    refuse_output_in_input,
    refuse_reports_in_input,
    resolve_kube_version,
    say,
)
from omerender.cli.report import repo_root, report, report_settings, subjects_of
from omerender.cli.streams import exit_hard, keep_to_exit

__all__ = [
    "ARGV_KEY",
    "EXIT_INTERNAL",
    "STDOUT_HINT",
    "F",
    "OutputFormat",
    "command_line",
    "exit_hard",
    "folder_callback",
    "guard",
    "keep_to_exit",
    "namespace_callback",
    "output_option",
    "paths_argument",
    "refuse",
    "refuse_output_in_input",
    "refuse_reports_in_input",
    "repo_root",
    "report",
    "report_settings",
    "resolve_kube_version",
    "say",
    "stdin",
    "subjects_of",
]
