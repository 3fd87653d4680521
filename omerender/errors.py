"""One base for every expected failure: the CLI's guard maps it to an exit code and one line on stderr.

A bug is anything else, and only a bug exits 3. A core module raises one of these when it cannot go on
(a file it cannot write, a bad git ref, unusable settings); problems found in the input are
Diagnostics, not exceptions.
"""

from __future__ import annotations

EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_TREE_BROKEN = 4
"""``diff`` only: one side's tree does not build (its report still lists what no longer renders)."""


class OmerenderError(Exception):
    """An expected failure with a message a user can act on; ``exit_code`` is 1 unless a subclass says 2."""

    exit_code = EXIT_FINDINGS


class UsageError(OmerenderError):
    """The command line, a setting or a reference given to the tool cannot be used (exit 2)."""

    exit_code = EXIT_USAGE


class WriteError(OmerenderError, OSError):
    """An output (file, folder, stdout) cannot be written; the message names the user's path (exit 1).

    It is an ``OSError`` too, so callers that handle OS failures keep working.
    """
