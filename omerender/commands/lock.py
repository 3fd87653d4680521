"""``lock``: record each InferenceService's runtime revision, chain and merged-spec snapshot in the lock file.

The build re-records the lock (``relock``: what re-recording fixes it words as warnings) and moves the
``--roll-forward`` InferenceServices to their live merged spec. Each of those must be there and not pinned by
``spec.runtime.revision`` (else a usage problem); one that follows its live runtime is moved by nothing (a note).
Nothing is written when the build has errors. Otherwise the verdict (``changes.relock``) says whether the lock is
up to date, out of date (``--check``: exit 1, nothing written) or written anew.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from omerender.changes.relock import LockVerdict, recorded, verdict
from omerender.commands.outcome import Note, Outcome, UsageProblem, Verdict
from omerender.commands.request import Inputs, build_options
from omerender.constants import DEFAULT_KUBE_VERSION, SyncMode
from omerender.diagnostics import count_errors
from omerender.lifecycle.settle import Effective
from omerender.output.writer import write_file
from omerender.pipeline import build
from omerender.result import BuildOptions
from omerender.settings import Settings


@dataclass(frozen=True)
class LockRequest:
    """The inputs to lock, the build's options (``relock``, and ``roll_forward``: namespace/name of each
    InferenceService to move to its live runtime) and ``check``: only say whether the lock is up to date."""

    inputs: Inputs
    options: BuildOptions
    check: bool = False
    stdin: Callable[[], bytes] = lambda: b""

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        paths: Sequence[str],
        roll_forward: Sequence[str] = (),
        stdin: Callable[[], bytes] = lambda: b"",
    ) -> LockRequest:
        """``roll_forward``: NAME (in ``-n``) or NAMESPACE/NAME each."""
        keys = tuple(name if "/" in name else f"{settings.namespace}/{name}" for name in roll_forward)
        options = build_options(settings, paths, kube_version=DEFAULT_KUBE_VERSION, roll_forward=keys, relock=True)
        return cls(Inputs.of(settings, paths), options, settings.check, stdin)


def run(request: LockRequest) -> Outcome[LockVerdict]:
    """Build, check the roll-forwards, and write the lock file when it changes (``--check``: never)."""
    result = build(request.inputs.roots, request.options, request.stdin)
    outcome: Outcome[LockVerdict] = Outcome(diagnostics=result.diagnostics, builds=(result,))
    searched = request.inputs.only_searched()  # as build and status: a PATH wins
    records = recorded(result, searched)
    outcome.notes, outcome.problem = roll_forward_checked(request.options.roll_forward, records)
    if outcome.problem is not None:
        outcome.verdict = Verdict.USAGE
        return outcome
    if result.failed:
        outcome.notes.append(Note(not_done(result.lifecycle.path, request.check, count_errors(result.diagnostics))))
        outcome.verdict = Verdict.FINDINGS
        return outcome
    found = verdict(result, records, searched, request.check)
    if found.text is not None:
        write_file(found.path, found.text)
    outcome.payload = found
    outcome.verdict = Verdict.FINDINGS if found.failed else Verdict.OK
    return outcome


def not_done(path: str, check: bool, errors: int) -> str:
    """Why the lock was neither checked (``--check``) nor written: the build failed, with ``errors`` errors."""
    failed = f"the build failed with {errors} error{'' if errors == 1 else 's'}"
    if check:
        return (
            f"{path} not checked: {failed}, so there is no render to compare it with; fix the errors above "
            "(or use --keep-last-good for broken chains)"
        )
    return f"{path} not written: {failed}; fix the errors above (or use --keep-last-good for broken chains)"


def roll_forward_checked(keys: Sequence[str], records: dict[str, Effective]) -> tuple[list[Note], UsageProblem | None]:
    """Each ``--roll-forward`` key in order: a usage problem at the first that is not there or is pinned by
    ``spec.runtime.revision``; a note for each before it that follows its live runtime (nothing to move)."""
    notes: list[Note] = []
    for key in keys:
        if key not in records:
            return notes, UsageProblem(f"--roll-forward {key}: no such InferenceService")
        if records[key].sync == SyncMode.REVISION:
            return notes, UsageProblem(
                f"--roll-forward {key}: it is pinned by spec.runtime.revision; change that field instead"
            )
        if records[key].sync == SyncMode.LIVE:
            notes.append(Note(f"{key} follows its live runtime (autoSync: true); --roll-forward changes nothing"))
    return notes, None
