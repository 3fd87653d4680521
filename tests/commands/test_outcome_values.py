"""What a use case returns: its verdict maps to the exit codes the CLI promises, notes say themselves."""

from __future__ import annotations

from omerender.commands.outcome import Level, Note, Outcome, Verdict
from omerender.errors import EXIT_FINDINGS, EXIT_TREE_BROKEN, EXIT_USAGE


def test_each_verdict_is_its_exit_code() -> None:
    codes = {v: v.exit_code for v in Verdict}
    assert codes == {
        Verdict.OK: 0,
        Verdict.FINDINGS: EXIT_FINDINGS,
        Verdict.USAGE: EXIT_USAGE,
        Verdict.TREE_BROKEN: EXIT_TREE_BROKEN,
    }
    assert (EXIT_FINDINGS, EXIT_USAGE, EXIT_TREE_BROKEN) == (1, 2, 4)


def test_notes_are_said_as_omerender_lines() -> None:
    assert Note("InferenceService a not found").line() == "omerender: InferenceService a not found"
    assert Note("older schemas", Level.WARNING).line() == "omerender: warning: older schemas"
    assert Note("cannot", Level.ERROR).line() == "omerender: error: cannot"


def test_an_outcome_fails_on_any_verdict_but_ok() -> None:
    shown: Outcome[str] = Outcome("text")
    assert not shown.failed and shown.payload == "text" and shown.diagnostics == [] and shown.builds == ()
    assert Outcome[str](verdict=Verdict.FINDINGS).failed
    assert Outcome[str](verdict=Verdict.TREE_BROKEN).failed
