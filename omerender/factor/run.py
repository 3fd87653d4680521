"""``factor``: read a tree like ``build``, plan profiles, rewrite the files, and prove nothing rendered changes.

Returns the new text of every file to change or create and a report; writes nothing. The proof
builds the new tree with the same pipeline as the old one and requires, for every runtime, the
same revision (the merged spec) and, for the whole tree, the same rendered objects to the byte.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omerender import codes
from omerender.constants import STDIN
from omerender.diagnostics import ERROR, Diagnostic, has_errors, sorted_unique
from omerender.factor import extract
from omerender.factor.edit import Comments, FieldPath
from omerender.factor.kustomization import list_profiles
from omerender.factor.plan import Plan, plan, reuse_existing, without_auto_select
from omerender.factor.rewrite import RewriteError, profile_text, rewrite_file
from omerender.lifecycle.lock import revision_of
from omerender.lifecycle.settle import SelectedBy
from omerender.load.bounded import Budget, ReadProblem, read_bytes
from omerender.load.obj import Obj
from omerender.load.reader import PARSE_LEAST_BYTES, ParseMany, load, parse_all
from omerender.load.source import Source
from omerender.output.emit import only_searched
from omerender.pipeline import build_objects, parse_many
from omerender.resolve.index import runtime_key
from omerender.result import BuildOptions, BuildResult
from omerender.yamlwrite import dump_stream

HEADER = "Written by `omerender factor`: what the runtimes inheriting from this profile share."


@dataclass
class FactorOptions:
    build: BuildOptions = field(default_factory=BuildOptions)
    profiles_dir: str | None = None  # None: profiles/ in the first PATH
    names: dict[str, str] = field(default_factory=dict)  # default profile stem -> the name wanted
    deep: bool = True  # GPU-class profiles below the engine profiles
    convert_auto_selected: bool = False  # auto-selected runtimes become children with autoSelect: false
    search_paths: list[str] = field(default_factory=list)  # read and proved, never rewritten; their names taken


@dataclass
class FactorResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # path -> new text (changed or new files only)
    originals: dict[str, str] = field(default_factory=dict)  # path -> old text of the changed files
    report: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return has_errors(self.diagnostics)


def read_text(path: str, budget: Budget) -> str:
    """A file to rewrite, through the bounded reader, as it is on disk: a BOM and CRLF line ends are kept, so
    only the lines factor changes differ. Raises ``ReadProblem``."""
    raw = read_bytes(path, budget, "file to rewrite")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ReadProblem(f"{path} is no longer valid UTF-8", codes.ENCODING) from None


def profiles_folder(paths: list[str], given: str | None) -> Path:
    if given:
        return Path(given)
    first = Path(next(p for p in paths if p != STDIN))
    return (first if first.is_dir() else first.parent) / "profiles"


def _lines(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


Rewritten = tuple[str, list[tuple[int, int]], list[dict[FieldPath, Comments]]]


def _rewrite(
    p: Plan, texts: dict[str, str], jobs: int
) -> tuple[dict[str, str], dict[str, tuple[int, int]], dict[str, dict[FieldPath, Comments]]]:
    """New texts of the files holding children; each child's lines before and after, and the comments of
    the fields that left it (by runtime key). In ``jobs`` processes when the files hold ``PARSE_LEAST_BYTES`` of
    text or more (each file's documents are composed again, for their positions); the same result either way."""
    by_path: dict[str, list[Any]] = {}
    for c in p.children:
        by_path.setdefault(c.runtime.path, []).append(c)
    files: dict[str, str] = {}
    lines: dict[str, tuple[int, int]] = {}
    comments: dict[str, dict[FieldPath, Comments]] = {}
    work = sorted(by_path.items())

    def one(item: tuple[str, list[Any]]) -> Rewritten | RewriteError:
        path, children = item
        try:
            return rewrite_file(texts[path], [(c.runtime.node, c.spec, c.parent, c.converted) for c in children])
        except RewriteError as exc:  # a value: the first in file order is raised, as one process would
            return exc

    if jobs > 1 and len(work) > 1 and sum(len(texts[path]) for path, _ in work) >= PARSE_LEAST_BYTES:
        from omerender.fanout import map_in_workers  # here: forking is for large inputs only (start-up)

        done = map_in_workers(work, one, jobs, "rewriting")
    else:
        done = [one(item) for item in work]
    for (path, children), rewritten in zip(work, done, strict=True):
        if isinstance(rewritten, RewriteError):
            raise rewritten
        files[path], counts, found = rewritten
        for c, count, notes in zip(children, counts, found, strict=True):
            lines[runtime_key(c.runtime)] = count
            comments[runtime_key(c.runtime)] = notes
    return files, lines, comments


def _profile_comments(p: Plan, comments: dict[str, dict[FieldPath, Comments]]) -> dict[str, dict[FieldPath, Comments]]:
    """Per profile, the comments its runtimes (and those of the profiles below it) wrote, the first for each field."""
    below: dict[str, list[str]] = {pr.name: list(pr.members) for pr in p.profiles}
    out: dict[str, dict[FieldPath, Comments]] = {}
    for pr in reversed(p.profiles):  # sub-profiles come after their parent: theirs are complete first
        merged: dict[FieldPath, Comments] = {}
        for member in below[pr.name]:
            for path, note in (out.get(member) or comments.get(member) or {}).items():
                merged.setdefault(path, note)
        out[pr.name] = merged
    return out


def _profile_files(
    p: Plan, folder: Path, existing: set[str], comments: dict[str, dict[FieldPath, Comments]]
) -> dict[str, str]:
    out: dict[str, str] = {}
    notes = _profile_comments(p, comments)
    for profile in p.profiles:
        path, n = folder / f"{profile.name}.yaml", 2
        while path.as_posix() in existing or path.exists():
            path, n = folder / f"{profile.name}-{n}.yaml", n + 1
        out[path.as_posix()] = profile_text(profile, HEADER, notes[profile.name])
        existing.add(path.as_posix())
    return out


def _objects(texts: dict[str, str], namespace: str, parsing: ParseMany | None) -> tuple[list[Obj], list[Diagnostic]]:
    """The objects of factor's new texts (parsed as the inputs are, in workers when they are large)."""
    objects: list[Obj] = []
    problems: list[Diagnostic] = []
    for found, diagnostics in parse_all(
        [Source(path, text) for path, text in sorted(texts.items())], Budget(), namespace, parsing
    ):
        objects.extend(found)
        problems.extend(diagnostics)
    return objects, problems


def _by_key(result: BuildResult) -> dict[str, Obj]:
    return {runtime_key(r): r for r in result.universe.all_runtimes()}


def _prove(old: BuildResult, new: BuildResult, converted: set[str]) -> list[Diagnostic]:
    problems = [
        Diagnostic(
            d.path,
            d.line,
            d.col,
            ERROR,
            f"factor's output does not build (a bug in factor): {d.message}",
            codes.FACTOR_PROOF,
        )
        for d in new.diagnostics
        if d.severity == ERROR
    ]
    new_runtimes = _by_key(new)
    for key, runtime in sorted(_by_key(old).items()):
        chain_old, chain_new = old.chains[key], new.chains.get(key) if key in new_runtimes else None
        if chain_new is None or chain_new.spec is None or chain_old.spec is None:
            problems.append(
                runtime.diag(ERROR, f"factor would break runtime {key} (a bug in factor)", code=codes.FACTOR_PROOF)
            )
            continue
        expected = without_auto_select(chain_old.spec) if key in converted else chain_old.spec
        if revision_of(expected) != revision_of(chain_new.spec):
            where = extract.first_difference(expected, chain_new.spec)
            problems.append(
                runtime.diag(
                    ERROR,
                    f"factor would change the merged spec of {key} at {where} (revision {revision_of(expected)} "
                    f"-> {revision_of(chain_new.spec)}); a bug in factor, nothing written",
                    code=codes.FACTOR_PROOF,
                )
            )
    old_objects = {_object_key(o): o for o in old.objects}
    new_objects = {_object_key(o): o for o in new.objects}
    for ident in sorted(old_objects.keys() | new_objects.keys()):
        before, after = old_objects.get(ident), new_objects.get(ident)
        if before is None or after is None or dump_stream([before]) != dump_stream([after]):
            where = extract.first_difference(before, after, "") if before and after else "(the whole object)"
            problems.append(
                Diagnostic(
                    "<factor>",
                    1,
                    1,
                    ERROR,
                    f"factor would change rendered {'/'.join(p for p in ident if p)} at {where or '(order)'}; a bug in "
                    "factor, nothing written",
                    codes.FACTOR_PROOF,
                )
            )
    if not problems and dump_stream(old.objects) != dump_stream(new.objects):
        problems.append(
            Diagnostic("<factor>", 1, 1, ERROR, "factor would reorder rendered objects", codes.FACTOR_PROOF)
        )
    return problems


def _relying_on_selection(result: BuildResult) -> list[tuple[Obj, str]]:
    """InferenceServices that name no runtime, and the runtime OME selects for each."""
    records = result.lifecycle.records
    return [
        (record.isvc, runtime_key(record.runtime))
        for _, record in sorted(records.items())
        if record.selection == SelectedBy.OME and record.runtime is not None
    ]


def _object_key(obj: dict[str, Any]) -> tuple[str, str, str]:
    meta = obj.get("metadata") or {}
    return (str(obj.get("kind", "")), str(meta.get("namespace", "")), str(meta.get("name", "")))


def _report(p: Plan, lines: dict[str, tuple[int, int]], written: dict[str, tuple[str, int]]) -> dict[str, Any]:
    """``written``: per profile name, its file and its lines."""
    profile_lines = {name: count for name, (_, count) in written.items()}
    profiles = []
    for pr in p.profiles:
        runtimes = [m for m in pr.members if m in lines]
        before = sum(lines[m][0] for m in runtimes)
        after = profile_lines[pr.name] + sum(lines[m][1] for m in runtimes)
        profiles.append(
            {
                "name": pr.name,
                "parent": pr.parent,
                "file": written[pr.name][0],
                "members": list(pr.members),
                "linesBefore": before,
                "linesAfter": after,
            }
        )
    before = sum(b for b, _ in lines.values())
    after = sum(a for _, a in lines.values()) + sum(profile_lines.values())
    return {
        "profiles": profiles,
        "children": len(p.children),
        "flat": [
            {"runtime": runtime_key(f.runtime), "reason": f.reason}
            for f in sorted(p.flat, key=lambda f: runtime_key(f.runtime))
        ],
        "totals": {
            "runtimes": len(p.children) + len(p.flat) + len(p.inheriting),
            "alreadyInheriting": len(p.inheriting),
            "children": len(p.children),
            "profiles": len(p.profiles),
            "flat": len(p.flat),
            "linesBefore": before,
            "linesAfter": after,
        },
    }


def factor(paths: list[str], options: FactorOptions, stdin: Callable[[], bytes] = lambda: b"") -> FactorResult:
    namespace, limit = options.build.namespace, options.build.max_file_bytes
    budget = Budget(max_file_bytes=limit)  # the inputs' (read twice when runtimes are rewritten)
    everything = paths + options.search_paths
    parsing = parse_many(options.build)
    loaded = load(everything, namespace, budget, stdin, parse_many=parsing)
    old = build_objects(loaded.objects, loaded.diagnostics, options.build, paths)
    result = FactorResult(diagnostics=list(old.diagnostics))
    if old.failed:
        return result
    searched = only_searched(options.search_paths, paths)  # as every command: a PATH wins over a search path
    p = plan(
        old.universe,
        old.chains,
        lambda stem: options.names.get(stem, stem),
        options.deep,
        options.convert_auto_selected,
        owned=lambda runtime: not searched(runtime),
        jobs=options.build.parse_jobs,
    )
    reuse_existing(p, old.universe)
    relying = _relying_on_selection(old)
    converted = {runtime_key(c.runtime) for c in p.children if c.converted}
    lost = [
        isvc.diag(
            ERROR,
            f"InferenceService {isvc.namespace}/{isvc.name} names no runtime and OME selects {runtime}, which "
            "--convert-auto-selected would turn into a child with autoSelect: false, so it would lose its runtime; "
            "name the runtime in spec.runtime.name first",
            "spec",
            code=codes.FACTOR_AUTO_SELECT,
        )
        for isvc, runtime in relying
        if runtime in converted
    ]
    if lost:
        result.diagnostics = sorted_unique(result.diagnostics + lost)
        return result
    try:
        rewrites = Budget(max_file_bytes=limit)
        texts = {path: read_text(path, rewrites) for path in sorted({c.runtime.path for c in p.children})}
        files, lines, comments = _rewrite(p, texts, options.build.parse_jobs)
    except ReadProblem as exc:
        message = f"factor cannot read a file to rewrite: {exc.message}"
        result.diagnostics.append(Diagnostic("<factor>", 1, 1, ERROR, message, codes.FACTOR_PROOF))
        return result
    except RewriteError as exc:
        result.diagnostics.append(
            Diagnostic("<factor>", 1, 1, ERROR, f"factor cannot rewrite: {exc}", codes.FACTOR_PROOF)
        )
        return result
    profiles = _profile_files(p, profiles_folder(paths, options.profiles_dir), set(loaded.files), comments)
    # a profile in a kustomize folder is listed in its kustomization, else nothing would read it
    listing = list_profiles(sorted(profiles), paths, options.search_paths, lambda path: read_text(path, rewrites))
    if listing.problems:
        result.diagnostics = sorted_unique(result.diagnostics + listing.problems)
        return result
    written = {pr.name: (path, _lines(text)) for pr, (path, text) in zip(p.profiles, profiles.items(), strict=True)}
    if p.children:
        rewritten = frozenset(os.path.realpath(f) for f in files)  # read again only what was not rewritten
        again = load(everything, namespace, budget, stdin, skip=rewritten, parse_many=parsing)
        kept = [o for o in again.objects if o.path not in files]
        new_objects, problems = _objects({**files, **profiles}, namespace, parsing)
        new = build_objects(kept + new_objects, again.diagnostics + problems, options.build, paths)
        proof = _prove(old, new, converted)
        if proof:
            result.diagnostics = sorted_unique(result.diagnostics + proof)
            return result
    result.files = {**files, **profiles, **listing.files}
    result.originals = {**texts, **listing.originals}
    result.report = _report(p, lines, written)
    result.report["reused"] = p.reused
    result.report["kustomizations"] = sorted(listing.files)
    result.report["proofCovers"] = "PATHS and --search-path" if options.search_paths else "PATHS only"
    result.report["autoSelection"] = [
        {"inferenceService": f"{isvc.namespace}/{isvc.name}", "runtime": runtime} for isvc, runtime in relying
    ]
    return result
