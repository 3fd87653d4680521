"""How ``build`` uses the machine, in one place: the seam between the build use case and the performance work.

A build renders in this process or, from enough InferenceServices on, in forked workers (``-j``; ``fanout``): the
workers render, check and format their objects and send back stand-ins (``output.prerendered``) whose text stays
in their scratch files until it is written. ``render`` decides which and says it in what it returns: a
``BuildResult`` holds whole objects, a ``PrerenderedBuild`` stand-ins, so nothing else asks where it runs. While
a build loads, renders, selects and writes it makes millions of short-lived containers and almost no cycles:
``render``, ``emitted`` and ``printed`` run with the garbage collector paused (``pipeline.collector_paused``).
What a run ends with is not freed object by object either: the CLI keeps the outcome until its hard exit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from omerender import pipeline
from omerender.diagnostics import Diagnostic, sorted_unique
from omerender.fanout import AUTO_LEAST, Handover, Scratch, Workers, cores, render_in_workers
from omerender.load.obj import Obj
from omerender.output.delivery import emitted as select_emitted
from omerender.output.emit import EmitOptions, Selection, rendered_by_worker
from omerender.output.prerendered import Prerendered, PrerenderedBuild, adopt
from omerender.pipeline import collector_paused
from omerender.resolve.unused import spared
from omerender.result import BuildOptions, BuildResult, Manifest, Resolved
from omerender.settings import Settings

Piece = TypeVar("Piece")


def workers_for(settings: Settings) -> Workers | None:
    """The workers ``-j/--jobs`` asks for (None: this process renders): without it, one per core available, for
    a build of at least ``fanout.AUTO_LEAST`` InferenceServices."""
    if settings.jobs is not None:
        return Workers(settings.jobs, 2) if settings.jobs > 1 else None
    available = cores()
    return Workers(available, AUTO_LEAST) if available > 1 else None


@dataclass(frozen=True)
class Given:
    """Objects given in memory (a KRM ResourceList's items) and the problems found reading them."""

    objects: list[Obj]
    problems: list[Diagnostic]


@dataclass(frozen=True)
class Work:
    """What ``render`` builds: the ``roots`` read (with ``stdin`` for ``-``) or the ``given`` objects and the
    ``roots`` read beside them, with ``options``; ``workers`` may render them, each writing its objects' text
    in ``shape`` for what ``emit`` selects."""

    roots: list[str]
    options: BuildOptions
    stdin: Callable[..., bytes]
    emit: EmitOptions
    shape: str
    workers: Workers | None = None
    given: Given | None = None


def render(work: Work) -> BuildResult | PrerenderedBuild:
    """The build of ``work``: whole objects rendered here, or stand-ins from workers when there are enough
    InferenceServices for them."""
    options = work.options
    with collector_paused():
        if work.given is not None:  # objects that did not come from files: always in this process
            loaded = pipeline.load_paths(work.roots, options, work.stdin) if work.roots else None
            objects = work.given.objects + (loaded.objects if loaded else [])
            problems = work.given.problems + (loaded.diagnostics if loaded else [])
            given = pipeline.build_objects(objects, problems, options, work.roots)
            if options.search_paths:  # the given items are owned too: an unused searched runtime's error warns
                given.diagnostics = sorted_unique(spared(given.diagnostics, objects, given.universe, work.emit.renders))
            return given
        loaded = pipeline.load_paths(work.roots, options, work.stdin)
        resolved = pipeline.resolve_build(loaded.objects, loaded.diagnostics, options, work.roots)
        count = work.workers.count(len(resolved.universe.isvcs)) if work.workers is not None else 1
        built = (
            pipeline.render_all(resolved, options.kube_version) if count == 1 else _in_workers(resolved, count, work)
        )
    return pipeline.checked_inputs(built, loaded, work.roots, options)


def _in_workers(resolved: Resolved, count: int, work: Work) -> PrerenderedBuild:
    kube_version = work.options.kube_version

    def rendered(part: Resolved, keys: Iterable[tuple[str, str]]) -> list[Manifest]:
        return pipeline.render_slice(part, list(keys), kube_version)

    def finish(part: Resolved, bodies: list[Manifest], texts: Scratch) -> list[Prerendered]:
        return rendered_by_worker(part, bodies, work.emit, work.shape, texts)

    keys = sorted(resolved.universe.isvcs)
    handover = Handover(finish, adopt)
    stand_ins, found = render_in_workers(resolved, keys, count, rendered, handover, pipeline.object_order)
    built = PrerenderedBuild.of(resolved, stand_ins)
    built.diagnostics = sorted_unique(built.diagnostics + found)
    return built


def emitted(result: BuildResult | PrerenderedBuild, emit: EmitOptions, files: bool) -> Selection:
    """The objects ``emit`` selects (one per rendered one, and no cycles), with their ``--output-dir`` files if
    ``files``."""
    with collector_paused():
        return select_emitted(result, emit, files)


def printed(pieces: Iterable[Piece]) -> Iterator[Piece]:
    """``pieces`` as they are made, the collector paused while they are (writing makes millions of short-lived
    strings and no cycles)."""
    with collector_paused():
        yield from pieces
