"""The rules every command's request shares, each in one place: what a command reads (``Inputs``: its PATHS and
the search paths that only resolve), where its lock file is (``lock_path``), the core's ``BuildOptions``
(``build_options``), how many processes may parse (``parse_jobs``), the Kubernetes version to check with
(``kube_check``), and the outputs that may not land in an input (``output_in_input``, ``reports_in_input``).

Usage problems and warnings are values (``UsageProblem``, ``Note``); the CLI says them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from omerender.commands.outcome import Level, Note, UsageProblem
from omerender.constants import DEFAULT_KUBE_VERSION, STDIN, ValidationMode
from omerender.fanout import cores
from omerender.lifecycle.lock import default_path
from omerender.load.bounded import Budget
from omerender.load.obj import Obj
from omerender.output.emit import only_searched
from omerender.output.overlap import conflicts, named_twice
from omerender.result import BuildOptions
from omerender.settings import BY_STEM, Settings, report_targets
from omerender.verify.kube_schema import available_versions
from omerender.verify.kube_version import KubeVersionError, choose, parse


@dataclass(frozen=True)
class Inputs:
    """What a command reads: its PATHS (``-`` for stdin), then the search paths, which only resolve parents
    and models. An object under both belongs to the PATH: a PATH named on its own wins."""

    paths: tuple[str, ...]
    search_paths: tuple[str, ...] = ()

    @classmethod
    def of(cls, settings: Settings, paths: Iterable[str]) -> Inputs:
        return cls(tuple(paths), tuple(settings.search_path))

    @property
    def roots(self) -> list[str]:
        """Every root read, PATHS first."""
        return [*self.paths, *self.search_paths]

    @property
    def files(self) -> list[str]:
        """The PATHS on disk (stdin left out) and the search paths: where no output may land."""
        return [*(p for p in self.paths if p != STDIN), *self.search_paths]

    def only_searched(self) -> Callable[[Obj], bool]:
        """A predicate: the object was read only from a search path (no PATH covers it)."""
        return only_searched(list(self.search_paths), list(self.paths))

    def owned(self) -> Callable[[Obj], bool]:
        """A predicate: the object is the command's own (a PATH covers it)."""
        searched = self.only_searched()
        return lambda obj: not searched(obj)


def lock_path(settings: Settings, paths: Sequence[str]) -> str:
    """The lock file a command reads and ``lock`` writes: ``--lock-file``, else ``omerender.lock`` in the deepest
    folder holding every PATH (``lifecycle.lock.default_path``); the search paths never place it."""
    return settings.lock_file or default_path(list(paths))


def parse_jobs(settings: Settings) -> int:
    """How many processes may parse the inputs: ``-j/--jobs``, else one per core available (``fanout.cores``)."""
    return settings.jobs if settings.jobs is not None else cores()


def build_options(
    settings: Settings,
    paths: Sequence[str],
    *,
    kube_version: str | None,
    parse_jobs: int = 1,
    roll_forward: tuple[str, ...] = (),
    relock: bool = False,
    budget: Budget | None = None,
) -> BuildOptions:
    """The core's options for a build of ``paths`` (which place the lock file) with ``settings``.

    ``kube_version``: the installed schemas' ``major.minor`` to check rendered objects with (``kube_check``), or
    None to skip the check; ``roll_forward`` and ``relock`` are ``lock``'s own."""
    return BuildOptions(
        namespace=settings.namespace,
        max_file_bytes=settings.max_file_size,
        lock_file=lock_path(settings, paths),
        keep_last_good=settings.keep_last_good,
        roll_forward=roll_forward,
        relock=relock,
        model_metadata=settings.model_metadata,
        validate=ValidationMode(settings.validate),
        kube_version=kube_version,
        controller_config=settings.controller_config,
        fail_empty_input=settings.fail_empty_input,
        budget=budget,
        parse_jobs=parse_jobs,
        serving_checks=settings.serving_checks,
        gpu_memory=settings.gpu_memory,
        serving_rules=settings.config,
    )


@dataclass(frozen=True)
class KubeCheck:
    """The Kubernetes version a run checks rendered objects with: ``version``, the installed schemas'
    ``major.minor`` (None: no check), and the warnings to say first; or the ``problem`` that stops the run."""

    version: str | None
    notes: tuple[Note, ...] = ()
    problem: UsageProblem | None = None


def kube_check(given: str | None, label: str = "--kube-version") -> KubeCheck:
    """The one reading of ``--kube-version`` (Argo CD's ``KUBE_VERSION``, KRM's ``kubeVersion``: ``label``) for
    every command; the accepted forms and the rule for releases without schemas are in ``verify.kube_version``."""
    if given is None or not given.strip():
        return KubeCheck(None)
    try:
        if parse(given) is None:
            return KubeCheck(None)
    except KubeVersionError as exc:
        return KubeCheck(None, problem=UsageProblem(str(exc), label))
    installed = available_versions()
    if not installed and given == DEFAULT_KUBE_VERSION:
        missing = "no Kubernetes schemas are installed, so rendered objects are not checked against them"
        return KubeCheck(None, (Note(missing, Level.WARNING),))
    try:
        picked = choose(given, installed)
    except KubeVersionError as exc:
        return KubeCheck(None, problem=UsageProblem(str(exc), label))
    notes = (Note(f"{label} {given.strip()}: {picked.warning}", Level.WARNING),) if picked.warning else ()
    return KubeCheck(picked.version, notes)


def output_in_input(
    inputs: Sequence[str], outputs: Sequence[tuple[str, str | None]], allowable: bool = True
) -> UsageProblem | None:
    """The usage problem when an output (option name, path) is, holds or lies in an input (``output.overlap``);
    ``allowable``: the command takes ``--allow-output-in-input``, which the message then names."""
    problems = conflicts(list(inputs), list(outputs), allowable)
    return UsageProblem("; ".join(problems)) if problems else None


def reports_in_input(settings: Settings, inputs: Sequence[str], command: str) -> UsageProblem | None:
    """Two reports to one file, or a report file that is an input or a YAML file inside an input folder (the
    next run would read it), unless ``--allow-output-in-input``: checked before anything is read."""
    twice = named_twice(settings.report_file, settings.report_format)
    if twice:
        return UsageProblem(twice)
    if settings.allow_output_in_input:
        return None
    outputs = [("--report-file", settings.report_file)]
    outputs += [(f"--report-format {fmt}=", file) for fmt, file in report_targets(settings.report_format) if file]
    return output_in_input(inputs, outputs, command in BY_STEM["allow-output-in-input"].commands)
