"""What a command's use case returns: an ``Outcome`` holding its diagnostics, its payload and its ``Verdict``.

The CLI reports the diagnostics, says the notes, shows the payload with the ``-o`` format and exits with the
verdict's code. A usage problem found while making a request (``UsageProblem``) is a value too: the CLI turns
it into click's usage error (exit 2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, IntEnum
from typing import TYPE_CHECKING, Generic, TypeVar

from omerender.errors import EXIT_FINDINGS, EXIT_TREE_BROKEN, EXIT_USAGE

if TYPE_CHECKING:
    from omerender.diagnostics import Diagnostic
    from omerender.result import Resolved

P = TypeVar("P")


class Verdict(IntEnum):
    """How a command ended, as its exit code (3, an internal error, is an exception, never a verdict)."""

    OK = 0
    FINDINGS = EXIT_FINDINGS
    USAGE = EXIT_USAGE
    TREE_BROKEN = EXIT_TREE_BROKEN  # diff only: a side's tree does not build

    @property
    def exit_code(self) -> int:
        return int(self)


class Level(Enum):
    """How a note is said on stderr: ``omerender: TEXT``, ``omerender: warning: TEXT``, ``omerender: error: TEXT``."""

    PLAIN = ""
    WARNING = "warning: "
    ERROR = "error: "


@dataclass(frozen=True)
class Note:
    """A line for stderr that is not a located diagnostic (a refusal, a hint, what was written)."""

    text: str
    level: Level = Level.PLAIN

    def line(self) -> str:
        """The line as said: ``omerender: warning: TEXT``."""
        return f"omerender: {self.level.value}{self.text}"


@dataclass(frozen=True)
class UsageProblem:
    """The command line (or a setting) asks for what cannot work: exit 2 before anything is read.

    ``option``: the option it is about (``--kube-version``), which click's message names; None for a
    problem of several options together."""

    message: str
    option: str | None = None


@dataclass
class Outcome(Generic[P]):
    """A command's result: ``payload`` (what it shows; None when it shows nothing), the ``diagnostics`` to
    report, ``notes`` said after them, the ``verdict``, and the builds the reports describe (``builds``: the
    runtimes and InferenceServices a JUnit or GitLab report lists; the last one is what ``-v`` counts).
    ``elsewhere``: the prefix of the diagnostics about files of another revision (``diff --against``'s ``REF:``),
    which the reports that annotate files (github, sarif, gitlab) leave out.

    ``problem``: a usage problem found only once the inputs were read (``--runtime`` naming a runtime they do
    not hold): said after the diagnostics and notes, as click's usage error (verdict ``USAGE``)."""

    payload: P | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    verdict: Verdict = Verdict.OK
    notes: list[Note] = field(default_factory=list)
    builds: tuple[Resolved, ...] = ()
    problem: UsageProblem | None = None
    elsewhere: str | None = None  # diagnostics whose path starts with it name no file of the tree checked out

    @property
    def failed(self) -> bool:
        return self.verdict is not Verdict.OK
