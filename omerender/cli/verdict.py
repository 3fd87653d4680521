"""How a run ends: ``--fail-on-warning``'s verdict and the one-line summary at ``-v``, for every command.

``report`` counts what it reports and the builds count what they read and emit, into one ``Tally`` per
invocation (held by the root click context); ``concluded`` wraps a command and, when it ends, prints the
summary under ``-v`` and turns a passing run with warnings into exit 1 under ``--fail-on-warning``. Neither
changes what is written: the summary goes to stderr, after the report, and never into a machine-readable
report on stderr. It adds the time taken only when stderr is a terminal: a log, a file or a pipe gets the same
bytes on every run (the golden cases compare them).
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import click

from omerender.errors import EXIT_FINDINGS

if TYPE_CHECKING:
    from omerender.diagnostics import Diagnostic
    from omerender.result import Resolved
    from omerender.settings import Settings

TALLY_KEY = "omerender.tally"


@dataclass
class Tally:
    """What one invocation reported and read; ``None``: the command does not count that."""

    errors: int = 0
    warnings: int = 0
    runtimes: int | None = None
    lent_runtimes: int = 0  # read only from a search path: they resolve chains, they are not the run's own
    isvcs: int | None = None
    objects: int | None = None
    machine_stderr: bool = False  # a machine-readable report went to stderr: no summary line after it
    aborted: bool = False  # the run ended on an error line (a write failed, an internal error): no summary
    started: float = field(default_factory=time.monotonic)

    def summary(self, seconds: float | None) -> str:
        """``omerender: 207 runtimes (+12 from the search paths), 148 InferenceServices, 412 objects, 3 errors, 5
        warnings`` and, given
        ``seconds``, `` in 1.2 s``."""
        lent = f" (+{self.lent_runtimes:,} from the search paths)" if self.lent_runtimes else ""
        counts = [
            _plural(self.runtimes, "runtime") + lent,
            _plural(self.isvcs, "InferenceService"),
            _plural(self.objects, "object"),
            _plural(self.errors, "error"),
            _plural(self.warnings, "warning"),
        ]
        took = "" if seconds is None else f" in {seconds:.1f} s"
        return f"omerender: {', '.join(c for c in counts if c)}{took}"


def _plural(count: int | None, noun: str) -> str:
    if count is None:
        return ""
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def tally() -> Tally:
    """This invocation's tally (a fresh one outside a click command)."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return Tally()
    found = ctx.find_root().meta.setdefault(TALLY_KEY, Tally())
    assert isinstance(found, Tally)
    return found


def count_reported(diagnostics: Iterable[Diagnostic], machine_stderr: bool = False) -> None:
    found = tally()
    for d in diagnostics:
        found.errors += d.severity == "error"
        found.warnings += d.severity == "warning"
    found.machine_stderr = found.machine_stderr or machine_stderr


def count_read(result: Resolved) -> None:
    """The runtimes and InferenceServices a build read (the last build counted: diff's new side)."""
    found = tally()
    runtimes = result.universe.all_runtimes()
    found.lent_runtimes = sum(1 for r in runtimes if result.lent(r))
    found.runtimes = len(runtimes) - found.lent_runtimes
    found.isvcs = len(result.universe.isvcs)


def count_emitted(objects: int) -> None:
    tally().objects = objects


def _on_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def concluded(settings: Settings) -> Iterator[None]:
    """Run the command, then: the summary under ``-v``; exit 1 for warnings under ``--fail-on-warning`` where
    the command would exit 0 (its own code otherwise: an error, diff's changes)."""
    code: Any = 0
    try:
        yield
    except SystemExit as exc:
        code = exc.code
    try:
        found = tally()
        if settings.verbose and not found.machine_stderr and not found.aborted:
            click.echo(found.summary(time.monotonic() - found.started if _on_terminal() else None), err=True)
        if code in (0, None) and settings.fail_on_warning and found.warnings:
            noun = "warning" if found.warnings == 1 else "warnings"
            click.echo(f"omerender: error: {found.warnings} {noun} reported, and --fail-on-warning is set", err=True)
            code = EXIT_FINDINGS
    except MemoryError:  # out of memory after the command ended: its own verdict and message stand
        code = EXIT_FINDINGS if code in (0, None) and settings.fail_on_warning else code
    if code not in (0, None):
        sys.exit(code)
