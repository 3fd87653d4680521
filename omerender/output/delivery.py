"""Where ``build``'s objects go, and the verdict: stdout, ``--output-dir`` written, compared (``--check``) or
regenerated (``--fail-on-change``). Returns what to say and whether it failed; the CLI says it."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from omerender.diagnostics import INFO, WARNING
from omerender.load.obj import Obj
from omerender.output.clashes import files_for
from omerender.output.emit import EmitOptions, Selection, kinds_problem, kustomization, rendered_sources, select
from omerender.output.outdir import changed_files, unified_diff
from omerender.output.prerendered import FILES, JSON, NONE, YAML, PrerenderedBuild, each_text
from omerender.output.writer import write_items
from omerender.result import BuildResult, Resolved
from omerender.settings import Settings
from omerender.yamlwrite import dump_one

KUSTOMIZATION = "kustomization.yaml"
MAX_DIFF_LINES = 200
"""``--check`` shows at most this many lines of unified diff; the rest are counted."""
MAX_LISTED = 20
"""At most this many changed files are named; the rest are counted."""


@dataclass(frozen=True)
class FolderVerdict:
    """What writing or comparing ``--output-dir`` says on stderr (``text``, empty when all is well: the lines
    after ``omerender: ``) and whether the run fails."""

    failed: bool = False
    text: str = ""


def usage_problem(settings: Settings, output: str | None) -> str | None:
    """A combination of the delivery settings that cannot work (a usage error), or None."""
    problem = kinds_problem(settings.emit)
    if problem:
        return problem
    if settings.output_dir and output not in (None, "yaml"):
        return f"--output-dir writes one YAML file per object; -o {output} is for stdout: choose one"
    if settings.kustomization and not settings.output_dir:
        return "--kustomization needs --output-dir"
    if settings.fail_on_change and not settings.output_dir:
        return "--fail-on-change needs --output-dir"
    if settings.check and settings.fail_on_change:
        return "--check never writes; --fail-on-change writes: choose one"
    return None


def emit_options(settings: Settings, owned: Callable[[Obj], bool]) -> EmitOptions:
    """What ``build`` emits with ``settings``: the objects ``owned`` (from a PATH, not only from a search path)."""
    return EmitOptions(
        kinds=tuple(dict.fromkeys(settings.emit)) or ("rendered",),
        owned=owned,
        renders=owned,
        flux_substitute_disabled=settings.flux_substitute_disabled,
        substitution_severity=WARNING if settings.kustomization else INFO,
    )


def text_shape(settings: Settings) -> str:
    """The text a worker writes for each rendered object, for what this run prints (``prerendered.SHAPES``)."""
    if settings.output_dir:
        return FILES
    if settings.check or settings.output == "name":
        return NONE
    return JSON if settings.output == "json" else YAML


def emitted(result: BuildResult | PrerenderedBuild, emit: EmitOptions, files: bool) -> Selection:
    """The objects ``emit`` selects, with their own diagnostics (Flux substitution; output paths, with their
    ``--output-dir`` files if ``files``); ``result`` is not changed."""
    selection = select(result, emit)
    if files:
        selection.files, problems = files_for(selection.pairs, lambda body: rendered_sources(result, body))
        selection.diagnostics.extend(problems)
    return selection


def empty_problem(selection: Selection, result: Resolved, settings: Settings) -> str | None:
    """With ``--fail-empty``: why an empty selection fails (an empty manifest would prune), else None."""
    if not settings.fail_empty or selection.pairs:
        return None
    ome = sum(1 for _ in result.universe.all_runtimes()) + len(result.universe.isvcs)
    held = f"the inputs hold {ome} OME runtimes and InferenceServices but " if ome else ""
    return (
        f"{held}nothing was emitted (--emit {','.join(settings.emit)}); an empty manifest would make "
        "Argo CD prune the application (allow it with --no-fail-empty, or the allow-empty parameter)"
    )


def _listed(head: str, changed: list[str]) -> str:
    lines = [head, *(f"  {rel}" for rel in changed[:MAX_LISTED])]
    if len(changed) > MAX_LISTED:
        lines.append(f"  ... and {len(changed) - MAX_LISTED} more")
    return "\n".join(lines)


def _decoded(text: str | bytes) -> str:
    return text if isinstance(text, str) else text.decode("utf-8")


def to_folder(selection: Selection, settings: Settings, regenerate: str) -> FolderVerdict:
    """Write ``--output-dir``, or compare it (``--check``); ``regenerate`` is the command that would fix it."""
    folder = settings.output_dir or ""
    rels = list(selection.files)
    # one writer for every file (each scalar and key formatted once for all; workers wrote their own), read
    # lazily: each file is written while the next ones are formatted
    texts: Iterable[str | bytes] = each_text(list(selection.files.values()))
    extra = [(KUSTOMIZATION, dump_one(kustomization(rels)))] if settings.kustomization else []
    names = rels + [rel for rel, _ in extra]
    if not (settings.check or settings.fail_on_change):
        write_items(folder, names, itertools.chain(zip(rels, texts, strict=True), extra))
        return FolderVerdict()
    files = dict(itertools.chain(zip(rels, map(_decoded, texts), strict=True), extra))
    changed = changed_files(folder, files)
    if not settings.check:
        write_items(folder, names, files.items())
    if not changed:
        return FolderVerdict()
    if not settings.check:
        head = f"{folder} was regenerated: {len(changed)} file(s) changed; review and commit them"
        return FolderVerdict(True, _listed(head, changed))
    shown = unified_diff(folder, files, changed, MAX_DIFF_LINES)
    head = f"{folder} is out of date: {len(changed)} file(s) differ; to regenerate it, run:\n  {regenerate}"
    return FolderVerdict(True, f"{_listed(head, changed)}\n{shown}".removesuffix("\n"))
