"""``factor``: flat runtimes turned into profiles and thin children, proved to render the same, then written.

Refused before anything is read (usage problems, ``refusal``): anything but exactly one of ``--output-dir DIR``,
``--in-place`` and ``--dry-run``; stdin; ``--force`` without ``--output-dir``; a DIR that is, holds or lies in an
input, or that is not empty without ``--force``; PATHS that would collide in DIR. Then a ``--kube-version`` that
cannot be used, and a ``--profile-name`` that is not DEFAULT=NAME with NAME a DNS subdomain (``profile_names``).

``--in-place`` holds the journal's lock (``factor.journal.holding``) from before the tree is read until the change
is in place: first a killed run's journal is finished or rolled back (``recover``; one that is not this tree's is
an error and nothing changes), then factor runs and its files are written as one journaled change. Without it, a
committed journal left in the tree is a warning (only ``--in-place`` finishes it), and ``--output-dir`` writes the
mirrored tree into DIR as ``build --output-dir`` writes a folder. docs/factor-journal.md holds every guarantee.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from omerender.commands.outcome import Level, Note, Outcome, UsageProblem, Verdict
from omerender.commands.request import build_options, kube_check, output_in_input, parse_jobs
from omerender.errors import OmerenderError
from omerender.factor import journal, tree
from omerender.factor.run import FactorOptions, FactorResult
from omerender.factor.run import factor as factored
from omerender.names import DNS_1123_SUBDOMAIN
from omerender.settings import Settings


@dataclass(frozen=True)
class Choices:
    """factor's own options: where the result goes (``in_place``, ``dry_run``, else the ``--output-dir``
    setting), ``force`` to replace a DIR that is not empty, and how profiles are made: their folder, names
    (DEFAULT=NAME each), GPU-class profiles below the engine ones, auto-selected runtimes converted, and cluster
    profiles for ServingRuntimes."""

    in_place: bool = False
    dry_run: bool = False
    force: bool = False
    profiles_dir: str | None = None
    profile_names: tuple[str, ...] = ()
    class_profiles: bool = True
    convert_auto_selected: bool = False
    cluster_profiles: bool = False


@dataclass(frozen=True)
class FactorRequest:
    """The PATHS to factor, ``output_dir`` (None: in place or a dry run, as ``choices`` say), and the options
    factor runs with, but for the two ``run`` checks after the refusals: ``kube_version`` as given (the options'
    is None until then) and the profile names (``choices.profile_names``)."""

    paths: tuple[str, ...]
    output_dir: str | None
    choices: Choices
    kube_version: str | None
    options: FactorOptions

    @classmethod
    def from_settings(cls, settings: Settings, paths: Sequence[str], choices: Choices = Choices()) -> FactorRequest:
        options = FactorOptions(
            # factor builds several roots (the PATHS, each app of the repository), each with the lock `build ROOT`
            # reads: --lock-file when given, else the root's own (factor places it per root)
            build=dataclasses.replace(
                build_options(settings, paths, kube_version=None, parse_jobs=parse_jobs(settings)),
                lock_file=settings.lock_file,
            ),
            profiles_dir=choices.profiles_dir,
            deep=choices.class_profiles,
            convert_auto_selected=choices.convert_auto_selected,
            search_paths=list(settings.search_path),
            cluster_profiles=choices.cluster_profiles,
            settings_file=settings.config,
        )
        return cls(tuple(paths), settings.output_dir, choices, settings.kube_version, options)


@dataclass(frozen=True)
class Factored:
    """What ``factor`` says: ``before``, the lines said ahead of the diagnostics (the ``--kube-version``
    warnings, what a killed ``--in-place`` left and what became of it); its ``result`` (None when factor did not
    run); and ``failure``, what stopped the run after that (a write refused, a journal that is not this tree's),
    said after the diagnostics as the CLI's guard says it."""

    before: tuple[Note, ...] = ()
    result: FactorResult | None = None
    failure: OmerenderError | OSError | None = None


def run(request: FactorRequest) -> Outcome[Factored]:
    """Refuse, or factor the PATHS and write the result where the request says."""
    refused = refusal(request)
    if refused is not None:
        return Outcome(verdict=Verdict.USAGE, problem=refused)
    check = kube_check(request.kube_version)
    if check.problem is not None:
        return Outcome(verdict=Verdict.USAGE, problem=check.problem)
    names = profile_names(request.choices.profile_names)
    if isinstance(names, UsageProblem):
        return Outcome(Factored(check.notes), verdict=Verdict.USAGE, problem=names)
    build = dataclasses.replace(request.options.build, kube_version=check.version)
    options = dataclasses.replace(request.options, build=build, names=names)
    if request.choices.in_place:
        return _in_place(request, options, list(check.notes))
    return _elsewhere(request, options, list(check.notes))


def _in_place(request: FactorRequest, options: FactorOptions, before: list[Note]) -> Outcome[Factored]:
    """One lock from before the read until the change is in place; a killed run's journal dealt with first."""
    paths = list(request.paths)
    result = None
    try:
        with journal.holding(journal.folder_of(paths), [*paths, *options.search_paths]) as held:
            recovered = journal.recover(held)
            if recovered:
                before.append(Note(recovered))
            result = factored(paths, options)
            if not result.failed:
                journal.write(held, result.files, result.originals)
    except (OmerenderError, OSError) as exc:
        return _stopped(before, result, exc)
    return _outcome(before, result)


def _elsewhere(request: FactorRequest, options: FactorOptions, before: list[Note]) -> Outcome[Factored]:
    """A dry run, or the tree mirrored into ``--output-dir``; a journal a killed ``--in-place`` left is named."""
    paths = list(request.paths)
    left = journal.pending(journal.folder_of(paths))
    if left:
        warning = (
            f"{left}: a killed factor --in-place left its journal; factor --in-place finishes it (once it has "
            "checked that it is this tree's)"
        )
        before.append(Note(warning, Level.WARNING))
    result = factored(paths, options)
    outcome = _outcome(before, result)
    if result.failed or request.output_dir is None:
        return outcome
    try:
        tree.write_tree(request.output_dir, tree.mirror(paths, result.files))
    except tree.TreeError as exc:
        outcome.problem, outcome.verdict = UsageProblem(str(exc)), Verdict.USAGE
    except (OmerenderError, OSError) as exc:
        return _stopped(before, result, exc)
    return outcome


def _outcome(before: list[Note], result: FactorResult) -> Outcome[Factored]:
    verdict = Verdict.FINDINGS if result.failed else Verdict.OK
    return Outcome(Factored(tuple(before), result), result.diagnostics, verdict)


def _stopped(before: list[Note], result: FactorResult | None, exc: OmerenderError | OSError) -> Outcome[Factored]:
    verdict = Verdict(exc.exit_code) if isinstance(exc, OmerenderError) else Verdict.FINDINGS
    diagnostics = result.diagnostics if result is not None else []
    return Outcome(Factored(tuple(before), result, exc), diagnostics, verdict)


def refusal(request: FactorRequest) -> UsageProblem | None:
    """The usage problem of where factor is asked to write, checked before anything is read."""
    choices, paths, output_dir = request.choices, list(request.paths), request.output_dir
    if sum((output_dir is not None, choices.in_place, choices.dry_run)) != 1:
        return UsageProblem("give exactly one of --output-dir DIR, --in-place and --dry-run")
    if "-" in paths:
        return UsageProblem("factor rewrites files, so it cannot read stdin ('-')")
    if choices.force and output_dir is None:
        return UsageProblem("--force goes with --output-dir")
    if output_dir is None:
        return None
    overlap = output_in_input(paths, [("--output-dir", output_dir)], allowable=False)
    if overlap is not None:
        return overlap
    if not choices.force and not tree.is_empty_dir(output_dir):
        return UsageProblem(f"{output_dir} is not empty; use --force to replace it")
    try:
        tree.roots_of(paths)
    except tree.TreeError as exc:
        return UsageProblem(str(exc))
    return None


def profile_names(given: Sequence[str]) -> dict[str, str] | UsageProblem:
    """``--profile-name DEFAULT=NAME`` each: the profile factor would call DEFAULT-profile is NAME-profile (either
    may be written with or without ``-profile``)."""
    names: dict[str, str] = {}
    for item in given:
        stem, sep, name = item.partition("=")
        name = name.removesuffix("-profile")
        if not sep or not stem or not DNS_1123_SUBDOMAIN.fullmatch(f"{name}-profile"):
            return UsageProblem(f"{item!r}: want DEFAULT=NAME, NAME a DNS subdomain", "--profile-name")
        names[stem.removesuffix("-profile")] = name
    return names
