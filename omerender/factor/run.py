"""``factor``: read a tree like ``build``, plan profiles, rewrite the files, and prove nothing rendered changes.

Returns the new text of every file to change or create and a report; writes nothing. Each profile goes where every
build reading its children reads it (``homes``, ``placement``, ``kustomization``). The proof builds the new tree
with the same pipeline as the old one and requires, for every runtime, the same revision (the merged spec) and,
for the whole tree, the same rendered objects to the byte (``proof``); then the same of each app of the repository
(``consumers``). Lock files that were up to date are kept so (``locks``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from omerender import codes
from omerender.diagnostics import ERROR, Diagnostic, has_errors, sorted_unique
from omerender.factor import consumers, placement
from omerender.factor.edit import Comments, FieldPath
from omerender.factor.homes import Homes
from omerender.factor.kustomization import Reach, list_profiles
from omerender.factor.locks import Relocked, relocked
from omerender.factor.plan import Plan, plan, reuse_existing
from omerender.factor.proof import prove
from omerender.factor.rewrite import RewriteError, rewrite_file
from omerender.lifecycle.settle import SelectedBy
from omerender.load.bounded import Budget, ReadProblem, read_bytes
from omerender.load.obj import Obj
from omerender.load.reader import PARSE_LEAST_BYTES, ParseMany, load, parse_all
from omerender.load.roots import only_searched
from omerender.load.source import Source
from omerender.ome import CLUSTER_SERVING_RUNTIME, INFERENCE_SERVICE, SERVING_RUNTIME
from omerender.paths import holder
from omerender.pipeline import build_objects, parse_many, spare_unused
from omerender.resolve.index import runtime_key
from omerender.result import BuildOptions, BuildResult


@dataclass
class FactorOptions:
    build: BuildOptions = field(default_factory=BuildOptions)
    profiles_dir: str | None = None  # None: profiles/ in each child's home (``homes``)
    names: dict[str, str] = field(default_factory=dict)  # default profile stem -> the name wanted
    deep: bool = True  # GPU-class profiles below the engine profiles
    convert_auto_selected: bool = False  # auto-selected runtimes become children with autoSelect: false
    search_paths: list[str] = field(default_factory=list)  # read and proved, never rewritten; their names taken
    cluster_profiles: bool = False  # ServingRuntime children get ClusterServingRuntime profiles (else per namespace)
    settings_file: str | None = None  # the run's settings file: its folder is the repository whose apps are proved


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
        listed = next((c.runtime for c in children if c.runtime.item >= 0), None)
        if listed is not None:  # its text is a List's item, not a document: the rewrite works on documents
            return RewriteError(
                f"{listed.kind} {listed.name} is {listed.where} in {path}, a List: write the List's items as "
                "documents of their own (---) first"
            )
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


def _relying_on_selection(result: BuildResult) -> list[tuple[Obj, str]]:
    """InferenceServices that name no runtime, and the runtime OME selects for each."""
    records = result.lifecycle.records
    return [
        (record.isvc, runtime_key(record.runtime))
        for _, record in sorted(records.items())
        if record.selection == SelectedBy.OME and record.runtime is not None
    ]


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


def _isvc_files(result: BuildResult) -> list[str]:
    return sorted({isvc.path for isvc in result.universe.isvcs.values()})


def _repository(
    paths: list[str], options: FactorOptions, run: BuildResult, top: str | None
) -> tuple[list[Obj], list[Diagnostic]]:
    """The runtimes and InferenceServices of the repository whose apps factor proves (its folder and the search
    paths, read once, leniently: what they name and where they lie is what counts); the run's own without one. A
    repository too large to read whole is an error: its apps would go unproved."""
    if top is None or holder(top, paths) is not None:
        return [*run.universe.all_runtimes(), *run.universe.isvcs.values()], []
    budget = Budget(max_file_bytes=options.build.max_file_bytes)
    loaded = load([top, *options.search_paths], options.build.namespace, budget, parse_many=parse_many(options.build))
    kinds = (CLUSTER_SERVING_RUNTIME, SERVING_RUNTIME, INFERENCE_SERVICE)
    return [o for o in loaded.objects if o.kind in kinds], [
        d for d in loaded.diagnostics if d.code == codes.RUN_TOO_LARGE
    ]


def _locks(found: list[Relocked], paths: list[str]) -> tuple[list[Relocked], list[Relocked]]:
    """The locks factor rewrites (inside PATHS), and those it leaves for ``omerender lock`` (outside them)."""
    unique = list({os.path.realpath(lock.path): lock for lock in reversed(found)}.values())[::-1]
    inside = [lock for lock in unique if holder(lock.path, paths) is not None]
    return inside, [lock for lock in unique if lock not in inside]


def _prove_apps(
    paths: list[str],
    options: FactorOptions,
    repository: list[Obj],
    top: str | None,
    homes: Homes,
    change: consumers.Change,
    converted: set[str],
) -> consumers.Proved:
    """The proof over the repository's apps (``consumers``) and, when there are several, each PATH on its own; a
    single PATH is the run itself."""
    found = consumers.apps(repository, homes, options.search_paths, [top] if top else paths)
    if len(paths) > 1:
        found = sorted({os.path.realpath(p): p for p in [*found, *paths] if os.path.isdir(p)}.values())
    alone = {os.path.realpath(path) for path in paths} if len(paths) == 1 else set()
    apps = [app for app in found if os.path.realpath(app) not in alone]
    return consumers.prove_apps(apps, options.search_paths, change, options.build, converted)


def factor(paths: list[str], options: FactorOptions, stdin: Callable[[], bytes] = lambda: b"") -> FactorResult:
    namespace, limit = options.build.namespace, options.build.max_file_bytes
    budget = Budget(max_file_bytes=limit)  # the inputs' (read twice when runtimes are rewritten)
    everything = paths + options.search_paths
    parsing = parse_many(options.build)
    loaded = load(everything, namespace, budget, stdin, parse_many=parsing)
    old = build_objects(loaded.objects, loaded.diagnostics, options.build, paths)
    searched = only_searched(options.search_paths, paths)  # as every command: a PATH wins over a search path
    # as build: an error in what only a search path holds and nothing under the PATHS uses is a warning; those
    # runtimes are never rewritten (a search path's are not), and the proof requires them broken alike after
    spared = spare_unused(old, loaded.objects, lambda obj: not searched(obj)) if options.search_paths else frozenset()
    result = FactorResult(diagnostics=list(old.diagnostics))
    if old.failed:
        return result
    homes = Homes(paths, options.search_paths, _isvc_files(old))
    top = consumers.repository(options.settings_file, paths)
    repository, unread = _repository(paths, options, old, top)
    if unread:
        result.diagnostics = sorted_unique(result.diagnostics + unread)
        return result
    runtimes = [o for o in repository if o.kind != INFERENCE_SERVICE]
    p = plan(
        old.universe,
        old.chains,
        lambda stem: options.names.get(stem, stem),
        options.deep,
        options.convert_auto_selected,
        owned=lambda runtime: not searched(runtime),
        jobs=options.build.parse_jobs,
        home=placement.folder_for(homes, options.profiles_dir),
        cluster=options.cluster_profiles,
        elsewhere=runtimes,
    )
    reuse_existing(p, old.universe, placement.reusable(options.search_paths))
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
    made = placement.profile_files(p, set(loaded.files), comments, texts)
    where = {name: path for name, (path, _) in made.items()}
    profiles = dict(made.values())
    # every kustomization that lists a child, and every search path holding one, must read its profile
    reaches = Reach()
    listing = list_profiles(
        placement.listers(p, homes, where), paths, options.search_paths, lambda path: read_text(path, rewrites), reaches
    )
    refused = listing.problems + placement.search_refusals(p, homes, where, options.search_paths)
    refused += consumers.clashes(p.profiles, where, runtimes)
    if refused:
        result.diagnostics = sorted_unique(result.diagnostics + refused)
        return result
    proved = consumers.Proved()
    if p.children:
        new_objects, problems = _objects({**files, **profiles}, namespace, parsing)
        by_path: dict[str, list[Obj]] = {}
        for obj in new_objects:
            by_path.setdefault(obj.path, []).append(obj)
        change = consumers.Change(
            {os.path.realpath(path): by_path.get(path, []) for path in files},
            {path: by_path.get(path, []) for path in profiles},
            listing.listed,
            reaches,
        )
        rewritten = frozenset(change.rewritten)  # read again only what was not rewritten
        again = load(everything, namespace, budget, stdin, skip=rewritten, parse_many=parsing)
        kept = [o for o in again.objects if o.path not in files]
        read = {*files, *change.profiles_read(everything)}
        added = [o for o in new_objects if o.path in read]  # what a build of PATHS reads
        new = build_objects(kept + added, again.diagnostics + problems, options.build, paths)
        if options.search_paths:
            spare_unused(new, kept + added, lambda obj: not searched(obj))
        proof = prove(old, new, converted, spared=spared)
        if not proof:
            proved = _prove_apps(paths, options, repository, top, homes, change, converted)
            proof = proved.problems
            own = relocked(old, new, paths, options.search_paths)
            proved.locks[:0] = [own] if own is not None else []
        if proof:
            result.diagnostics = sorted_unique(result.diagnostics + proof)
            return result
    written = {name: (path, _lines(profiles[path])) for name, path in where.items()}
    locks, elsewhere = _locks(proved.locks, paths)
    result.files = {**files, **profiles, **listing.files, **{lock.path: lock.after for lock in locks}}
    result.originals = {**texts, **listing.originals, **{lock.path: lock.before for lock in locks}}
    result.report = _report(p, lines, written)
    result.report["reused"] = p.reused
    result.report["kustomizations"] = sorted(listing.files)
    result.report["proofCovers"] = "PATHS and --search-path" if options.search_paths else "PATHS only"
    result.report["apps"] = {"built": proved.built, "unchanged": proved.unchanged, "notBuilding": proved.broken}
    result.report["locks"] = {
        "rewritten": [lock.path for lock in locks],
        "toRecord": [{"lock": lock.path, "command": f"omerender lock {' '.join(lock.roots)}"} for lock in elsewhere],
    }
    result.report["autoSelection"] = [
        {"inferenceService": f"{isvc.namespace}/{isvc.name}", "runtime": runtime} for isvc, runtime in relying
    ]
    return result
