"""The commands' use cases called as the CLI calls them, for tests of behaviour (``omerender.commands``).

Each helper makes the request from ``Settings`` (keyword arguments: the settings' fields, as ``namespace=`` or
``search_path=(...)``) and returns the ``Outcome``; ``said`` gives the lines the CLI would print on stderr for it
(the diagnostics as the text report writes them, then the notes), and the ``*_data``/``*_text`` helpers the
payload in a ``-o`` format. CliRunner stays for the CLI's own contract: options, exit codes, output placement.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from omerender.changes.relock import LockVerdict
from omerender.commands import build as build_command
from omerender.commands import diff as diff_command
from omerender.commands import effective as effective_command
from omerender.commands import factor as factor_command
from omerender.commands import forest as forest_command
from omerender.commands import lock as lock_command
from omerender.commands import status as status_command
from omerender.commands.outcome import Outcome, Verdict
from omerender.diagnostics import one_line
from omerender.errors import OmerenderError
from omerender.factor.run import FactorResult
from omerender.forest.model import Forest
from omerender.lifecycle.settle import Effective
from omerender.output.formats import DIFF_FORMATS, EFFECTIVE_FORMATS, GRAPH_FORMATS, STATUS_FORMATS, StatusView
from omerender.result import BuildResult
from omerender.settings import Settings

PathLike = str | Path


def _paths(paths: Sequence[PathLike] | PathLike) -> list[str]:
    return [str(paths)] if isinstance(paths, str | Path) else [str(p) for p in paths]


def effective(paths: Sequence[PathLike] | PathLike, isvc: str, **given: Any) -> Outcome[Effective]:
    return effective_command.run(
        effective_command.EffectiveRequest.from_settings(Settings(**given), _paths(paths), isvc)
    )


def effective_data(outcome: Outcome[Effective], show_origin: bool = False) -> dict[str, Any]:
    """The record as ``effective -o json`` prints it."""
    assert outcome.payload is not None, said(outcome)
    return json.loads(EFFECTIVE_FORMATS["json"](outcome.payload, show_origin))


def effective_text(outcome: Outcome[Effective], show_origin: bool = False, fmt: str = "table") -> str:
    assert outcome.payload is not None, said(outcome)
    return EFFECTIVE_FORMATS[fmt](outcome.payload, show_origin)


def lock(paths: Sequence[PathLike] | PathLike, *roll_forward: str, **given: Any) -> Outcome[LockVerdict]:
    request = lock_command.LockRequest.from_settings(Settings(**given), _paths(paths), roll_forward)
    return lock_command.run(request)


def diff(
    paths: Sequence[PathLike] = (),
    *,
    old: Sequence[PathLike] = (),
    new: Sequence[PathLike] = (),
    git_ref: str | None = None,
    **given: Any,
) -> Outcome[diff_command.Diffed]:
    request = diff_command.DiffRequest.from_settings(
        Settings(**given), _paths(paths), old=_paths(old), new=_paths(new), git_ref=git_ref
    )
    return diff_command.run(request)


def diff_text(outcome: Outcome[diff_command.Diffed], fmt: str = "text") -> str:
    """The report as ``diff -o FMT`` prints it (markdown with the picture of the affected subtree)."""
    assert outcome.payload is not None, said(outcome)
    if fmt == "markdown":
        from omerender.forest.blast import picture
        from omerender.output.diff_view import format_markdown

        diffed = outcome.payload
        return format_markdown(diffed.report, picture(diffed.report, diffed.new), diffed.unbuilt)
    return DIFF_FORMATS[fmt](outcome.payload.report, outcome.payload.unbuilt)


def diff_data(outcome: Outcome[diff_command.Diffed]) -> dict[str, Any]:
    return json.loads(diff_text(outcome, "json"))


def forest(
    paths: Sequence[PathLike] | PathLike, view: forest_command.View = forest_command.View(), **given: Any
) -> Outcome[Forest]:
    request = forest_command.ForestRequest.from_settings(Settings(**given), _paths(paths), view)
    return forest_command.run(request)


def graph_text(outcome: Outcome[Forest], fmt: str = "mermaid") -> str:
    """The forest as ``graph -o FMT`` prints it (``svg`` aside: Graphviz draws the DOT text)."""
    assert outcome.payload is not None, said(outcome)
    return GRAPH_FORMATS[fmt](outcome.payload)


def tree_text(outcome: Outcome[Forest], colored: bool = False) -> str:
    """The forest as ``tree`` prints it."""
    from omerender.forest.text import render

    assert outcome.payload is not None, said(outcome)
    return render(outcome.payload, colored)


def factor(
    paths: Sequence[PathLike] | PathLike, choices: factor_command.Choices, **given: Any
) -> Outcome[factor_command.Factored]:
    request = factor_command.FactorRequest.from_settings(Settings(**given), _paths(paths), choices)
    return factor_command.run(request)


def factor_text(outcome: Outcome[factor_command.Factored], fmt: str = "table", diffs: bool = False) -> str:
    """What ``factor -o FMT`` prints (with ``--diff``: then the unified diffs)."""
    from omerender.factor.report import FACTOR_FORMATS, unified_diffs

    result = factored(outcome)
    return FACTOR_FORMATS[fmt](result.report) + (unified_diffs(result.originals, result.files) if diffs else "")


@dataclass(frozen=True)
class Shown:
    """A use case's outcome as the CLI shows it: its exit code, stdout and stderr (``said``)."""

    exit_code: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return f"exit {self.exit_code}\n--- stdout\n{self.stdout}--- stderr\n{self.stderr}"


def factor_shown(
    paths: Sequence[PathLike] | PathLike,
    choices: factor_command.Choices,
    fmt: str = "table",
    diffs: bool = False,
    **given: Any,
) -> Shown:
    """``factor`` run with ``choices`` and the settings, shown as the CLI shows it (``-o FMT``, ``--diff``)."""
    outcome = factor(paths, choices, **given)
    stdout = factor_text(outcome, fmt, diffs) if outcome.verdict is Verdict.OK else ""
    return Shown(outcome.verdict.exit_code, stdout, said(outcome))


def factored(outcome: Outcome[factor_command.Factored]) -> FactorResult:
    """The result of a factor that ran and passed."""
    assert outcome.verdict is Verdict.OK and outcome.payload is not None, said(outcome)
    assert outcome.payload.result is not None
    return outcome.payload.result


def built(paths: Sequence[PathLike] | PathLike, **given: Any) -> BuildResult:
    """The build ``omerender build PATHS`` makes with these settings (``commands.build.run``), rendered here."""
    outcome = build_command.run(build_command.BuildRequest.from_settings(Settings(**given), _paths(paths)))
    assert outcome.payload is not None, said(outcome)
    result = outcome.payload.result
    assert isinstance(result, BuildResult), "rendered by workers: the test's tree is too large"
    return result


def status(paths: Sequence[PathLike] | PathLike, **given: Any) -> Outcome[StatusView]:
    request = status_command.StatusRequest.from_settings(Settings(**given), _paths(paths), stdin=lambda: b"")
    return status_command.run(request)


def status_text(outcome: Outcome[StatusView], fmt: str = "table") -> str:
    """The view as ``status -o FMT`` prints it."""
    assert outcome.payload is not None, said(outcome)
    return STATUS_FORMATS[fmt](outcome.payload)


def shown(result: BuildResult) -> list[str]:
    """The build's diagnostics as the text report prints them by default (notes only under ``-v``)."""
    return [d.text() for d in result.diagnostics if d.severity != "info"]


def said(outcome: Outcome[Any]) -> str:
    """What the CLI prints on stderr for ``outcome`` (``-v`` aside): factor's lines before the diagnostics, the
    diagnostics as the text report writes them, the notes, the usage problem's message, and the line the guard
    says for factor's failure."""
    done = outcome.payload if isinstance(outcome.payload, factor_command.Factored) else None
    lines = [note.line() for note in done.before] if done is not None else []
    lines += [d.text() for d in outcome.diagnostics if d.severity != "info"]
    lines += [note.line() for note in outcome.notes]
    lines += [outcome.problem.message] if outcome.problem is not None else []
    if done is not None and isinstance(done.failure, OmerenderError):
        lines.append(f"omerender: error: {one_line(str(done.failure))}")
    elif done is not None and done.failure is not None:
        lines.append(f"omerender: error: {done.failure.filename}: {done.failure.strerror or done.failure}")
    return "".join(line + "\n" for line in lines)
