"""Find input files, read them safely and turn every YAML document into a located object."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from omerender import codes
from omerender.constants import STDIN, YAML_SUFFIXES
from omerender.data import tidy_object
from omerender.diagnostics import ERROR, WARNING, Diagnostic, Severity
from omerender.load import lists
from omerender.load.bounded import Budget, ReadProblem, admit, parse_bounded, read_text
from omerender.load.kustomize import Expansion, expand, folder_problem, kustomization_in
from omerender.load.obj import Obj, prelocate
from omerender.load.source import Source
from omerender.load.yamlio import ParsedDocument, position
from omerender.names import clip, hint
from omerender.ome import API_VERSION as OME_API_VERSION
from omerender.ome import CONTROLLER_CONFIG_MAP as CONTROLLER_CONFIG
from omerender.ome import KINDS as OME_KINDS
from omerender.ome import NAMESPACED_KINDS
from omerender.paths import is_within, repository_of


@dataclass
class LoadResult:
    objects: list[Obj] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def _display(path: Path) -> str:
    return path.as_posix()


def _symlink_outside(path: Path) -> Diagnostic:
    message = "symlink points outside the input paths; refusing to follow it"
    return Diagnostic(_display(path), 1, 1, ERROR, message, codes.SYMLINK_OUTSIDE)


def _within(path: Path, real_roots: list[str]) -> bool:
    real = os.path.realpath(path)
    return any(is_within(real, root) for root in real_roots)


def walk_folders(root: str) -> Iterator[tuple[str, list[os.DirEntry[str]], list[os.DirEntry[str]]]]:
    """``os.walk(root)`` top-down without following links, giving each folder's entries instead of their names:
    an entry knows whether it is a symlink without another ``lstat``. The caller prunes the folder list in place."""
    pending = [root]
    while pending:
        top = pending.pop()
        try:
            with os.scandir(top) as listing:
                entries = list(listing)
        except OSError:  # os.walk skips a folder it cannot list
            continue
        folders: list[os.DirEntry[str]] = []
        files: list[os.DirEntry[str]] = []
        for entry in entries:
            try:
                is_folder = entry.is_dir()  # a symlink to a folder counts as one, as in os.walk
            except OSError:
                is_folder = False
            (folders if is_folder else files).append(entry)
        yield top, folders, files
        pending.extend(os.path.join(top, entry.name) for entry in reversed(folders) if not entry.is_symlink())


def discover(paths: list[str], skip: frozenset[str] = frozenset()) -> tuple[list[str], list[Diagnostic]]:
    """Expand files and directories into YAML files, sorted; refuse links that leave the roots. ``skip``: resolved
    paths of files to leave out (settings files)."""
    found: list[str] = []
    plain: set[str] = set()  # files a folder listing says are not symlinks
    problems: list[Diagnostic] = []
    for given in paths:
        if given == STDIN:
            found.append(STDIN)
            continue
        root = Path(given)
        if not root.exists() and not root.is_symlink():
            problems.append(
                Diagnostic(given, 0, 0, ERROR, "no such file or directory", codes.INPUT_MISSING)
            )  # no location
            continue
        if not root.is_dir():
            found.append(_display(root))
            continue
        real_roots = [os.path.realpath(p) for p in paths if p != STDIN]
        repo = repository_of(given)  # the kustomizations below a PATH lie in its repository
        for dirpath, folders, files in walk_folders(given):
            base = Path(dirpath)
            refused = folder_problem(base)
            if refused is not None:  # kustomize build refuses the folder: so is everything below it
                folders[:] = []
                problems.append(refused)
                continue
            kustomization = kustomization_in(base)
            if kustomization is not None:  # a kustomize folder: what it lists, nothing else below it
                folders[:] = []
                listed = Expansion()
                expand(kustomization, [Path(r) for r in real_roots], listed, repo=repo)
                problems.extend(listed.problems)
                found.extend(listed.files)
                continue
            shown = _display(base)
            prefix = "" if shown == "." else shown if shown.endswith("/") else shown + "/"
            kept = []
            for entry in sorted(folders, key=lambda e: e.name):
                if entry.name.startswith("."):
                    continue
                if entry.is_symlink():
                    full = base / entry.name
                    if _within(full, real_roots):
                        problems.append(
                            Diagnostic(
                                _display(full), 1, 1, WARNING, "symlinked directory not followed", codes.SYMLINK_SKIPPED
                            )
                        )
                    else:
                        problems.append(_symlink_outside(full))
                    continue
                kept.append(entry)
            folders[:] = kept
            for entry in sorted(files, key=lambda e: e.name):
                name = entry.name
                if not name.endswith(YAML_SUFFIXES) or name.startswith("."):
                    continue  # hidden files are skipped like hidden folders (.pre-commit-config.yaml)
                if entry.is_symlink():
                    if not _within(base / name, real_roots):
                        problems.append(_symlink_outside(base / name))
                        continue
                else:
                    plain.add(prefix + name)
                found.append(prefix + name)
    return _once(found, plain, skip), problems


class _RealPaths:
    """``os.path.realpath`` of many files in few folders, each folder resolved once: a file that is not a symlink
    lies where its folder resolves (``realpath`` of each file took one ``lstat`` per component of its path)."""

    def __init__(self) -> None:
        self.folders: dict[str, str] = {}

    def folder(self, path: str) -> str:
        found = self.folders.get(path)
        if found is None:
            found = self.folders[path] = os.path.realpath(path or ".")
        return found

    def file(self, path: str, link: bool | None = None) -> str:
        """``link``: whether ``path`` is a symlink, if known (a folder listing says so without an ``lstat``)."""
        head, tail = os.path.split(path)
        if tail in ("", ".", "..") or (os.path.islink(path) if link is None else link):
            return os.path.realpath(path)
        return os.path.join(self.folder(head), tail)


def _once(files: list[str], plain: set[str], skip: frozenset[str]) -> list[str]:
    """Each file once, where it was first found: a PATH that holds a search path (``build .`` with
    ``--search-path platform``) or a file given twice must not define its objects twice. ``plain``: files known
    not to be symlinks; ``skip``: resolved paths to leave out."""
    seen: set[str] = set(skip)
    kept: list[str] = []
    real_paths = _RealPaths()
    for name in files:
        real = name if name == STDIN else real_paths.file(name, False if name in plain else None)
        if real not in seen:
            seen.add(real)
            kept.append(name)
    return kept


def _read(path: str, budget: Budget, stdin: Callable[..., bytes]) -> tuple[str | None, Diagnostic | None]:
    try:
        return read_text(path, budget, "input" if path == STDIN else "file", stdin), None
    except ReadProblem as problem:
        severity = WARNING if problem.code == codes.SPECIAL_FILE else ERROR  # a FIFO found in a folder is skipped
        special = "not a regular file (FIFO, socket or device); skipped"
        message = special if problem.code == codes.SPECIAL_FILE else problem.message
        return None, Diagnostic(path, problem.line, problem.col, severity, message, problem.code)


def yaml_diagnostic(path: str, exc: yaml.YAMLError, text: str = "") -> Diagnostic:
    """The diagnostic of a YAML text that does not parse, at the mark (or the character) that stops it."""
    if isinstance(exc, yaml.reader.ReaderError):
        at = min(max(exc.position, 0), len(text))
        line, col = text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1
        char = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "?")
        return Diagnostic(
            path,
            line,
            col,
            ERROR,
            f"invalid YAML: character U+{char:04X} is not allowed ({exc.reason})",
            codes.YAML_SYNTAX,
        )
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    message = f"invalid YAML: {problem}" + (f" ({context})" if context else "")
    if mark is not None and 0 <= mark.index < len(text) and text[mark.index] == "\t":
        message = "invalid YAML: a tab character where YAML needs indentation or a token; indent with spaces"
    return Diagnostic(path, line, col, ERROR, " ".join(message.split()), codes.YAML_SYNTAX)


OTHER_OME_KINDS = ("AcceleratorClass", "FineTunedWeight", "BenchmarkJob")  # OME's, not modelled: passed through


def _other_ome(obj: Obj) -> bool:
    """An AcceleratorClass, FineTunedWeight or BenchmarkJob: OME's, read by the renderer, so a file of them is not
    empty."""
    return obj.kind in OTHER_OME_KINDS and str(obj.body.get("apiVersion", "")).startswith("ome.io/")


def _unknown_ome_kind(obj: Obj) -> Diagnostic | None:
    api = obj.body.get("apiVersion")
    if not isinstance(api, str) or not api.startswith("ome.io/") or obj.kind in (*OME_KINDS, *OTHER_OME_KINDS):
        return None
    return obj.diag(
        ERROR,
        f"unknown kind {clip(obj.kind)!r} in {clip(api)}: OME defines "
        f"{', '.join(sorted((*OME_KINDS, *OTHER_OME_KINDS)))}" + hint(obj.kind, (*OME_KINDS, *OTHER_OME_KINDS)),
        "kind",
        code=codes.UNKNOWN_KIND,
    )


def _check_shape(obj: Obj) -> Diagnostic | None:
    unknown = _unknown_ome_kind(obj)
    if unknown is not None:
        return unknown
    if obj.kind and obj.kind in OME_KINDS and obj.body.get("apiVersion") != OME_API_VERSION:
        version = obj.body.get("apiVersion")
        return obj.diag(
            ERROR,
            f"{obj.kind} must have apiVersion {OME_API_VERSION}, not {version!r}",
            "apiVersion",
            code=codes.API_VERSION,
        )
    if not obj.is_ome:
        return None
    meta = obj.body.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    if name is not None and name != "" and not isinstance(name, str):
        return obj.diag(
            ERROR,
            f"{obj.kind} metadata.name must be a string, not {name!r}; quote it",
            "metadata",
            "name",
            code=codes.MISSING_NAME,
        )
    if not isinstance(name, str) or not name:
        return obj.diag(ERROR, f"{obj.kind} has no metadata.name", "metadata", code=codes.MISSING_NAME)
    return None


def to_object(
    source: Source, doc: ParsedDocument, namespace: str = "default", item: int = -1
) -> tuple[Obj | None, Diagnostic | None]:
    """An object of document ``doc`` of ``source`` (``item``: of its List document's items); its node tree is left
    behind (``Obj.node`` composes it again).

    A namespaced object without ``metadata.namespace`` is in ``namespace`` (``-n``)."""
    if not isinstance(doc.data, dict):
        line, col = position(doc.node, ())
        return None, Diagnostic(
            source.path, line, col, ERROR, f"document {doc.index + 1} is not a mapping", codes.NOT_A_MAPPING
        )
    obj = Obj(source.path, doc.index, doc.data, source, item=item)
    if "kind" not in doc.data or not isinstance(doc.data.get("kind"), str):
        return None, obj.diag(ERROR, f"{obj.where} has no kind", code=codes.MISSING_KIND)
    problem = _check_shape(obj)
    if problem is not None:
        return None, problem
    if obj.is_ome:
        if not doc.tidy:
            tidy_object(obj.body)
        obj.marks = prelocate(doc.node, obj.kind)
    if obj.is_ome and "spec" in obj.body:
        if obj.body["spec"] is None:
            del obj.body["spec"]
    elif not (obj.kind == "ConfigMap" and obj.name == CONTROLLER_CONFIG):  # its data is read, with positions
        obj.slim = True
    if obj.kind in NAMESPACED_KINDS:
        given = (obj.body.get("metadata") or {}).get("namespace")
        obj.namespace = given if isinstance(given, str) and given else namespace
    return obj, None


PARSE_LEAST_BYTES = 1 << 20
"""Inputs are parsed by ``parse_many`` (worker processes) from this many bytes of text on: below, forking costs more
than it saves."""


def parse_file(source: Source, budget: Budget, namespace: str) -> tuple[list[Obj], list[Diagnostic]]:
    """The objects of one input file, and the problems of its documents."""
    objects: list[Obj] = []
    problems: list[Diagnostic] = []
    try:
        for doc in parse_bounded(source.text, budget):
            for item, part in _parts(source, doc, problems):
                obj, problem = to_object(source, part, namespace, item)
                if problem is not None:
                    problems.append(problem)
                if obj is not None:
                    objects.append(obj)
    except yaml.YAMLError as exc:
        problems.append(yaml_diagnostic(source.path, exc, source.text))
    except RecursionError:
        problems.append(Diagnostic(source.path, 1, 1, ERROR, "document nests too deeply to read", codes.YAML_DEPTH))
    return objects, problems


def _parts(source: Source, doc: ParsedDocument, problems: list[Diagnostic]) -> list[tuple[int, ParsedDocument]]:
    """``doc`` itself (item -1), or the items of a List document (``lists``), whose problems go to ``problems``."""
    if not lists.is_list(doc.data):
        return [(-1, doc)]
    found, refused = lists.items(doc)
    for part, message in refused:
        line, col = position(part.node, ())
        problems.append(Diagnostic(source.path, line, col, ERROR, message, codes.LIST_ITEMS))
    return found


Parsed = tuple[list[Obj], list[Diagnostic]]
ParseMany = Callable[[list[Source], Budget, str], list[Parsed] | None]
"""``parse_file`` of every source, in order, by other means (``fanout.parse_in_workers``); None: one by one."""


def parse_all(sources: list[Source], budget: Budget, namespace: str, parse_many: ParseMany | None) -> list[Parsed]:
    """``parse_file`` of every source, in order: by ``parse_many`` from ``PARSE_LEAST_BYTES`` of text on, unless the
    node budget needs counting (in file order); one by one otherwise, or where ``parse_many`` declines."""
    parsed = None
    may_fork = parse_many is not None and len(sources) > 1 and budget.nodes_possible <= budget.max_total_nodes
    if may_fork and sum(len(source.text) for source in sources) >= PARSE_LEAST_BYTES:  # summed only then
        assert parse_many is not None
        parsed = parse_many(sources, budget, namespace)
    if parsed is None:
        parsed = [parse_file(source, budget, namespace) for source in sources]
    return parsed


def load(
    paths: list[str],
    namespace: str = "default",
    budget: Budget | None = None,
    stdin: Callable[..., bytes] = lambda: b"",
    skip: frozenset[str] = frozenset(),
    parse_many: ParseMany | None = None,
) -> LoadResult:
    """Every input read (within the run's byte budget) before any is parsed (within its node budget).

    ``namespace`` is the one of namespaced objects that give none; ``budget`` is the run's (a default one if None);
    ``skip`` holds the resolved paths of settings files (model metadata, controller config, lock), never manifests;
    ``parse_many`` parses the files instead, from ``PARSE_LEAST_BYTES`` of text on, unless the node budget needs
    counting (in file order); its result is the one of parsing them one by one.
    """
    result = LoadResult()
    files, problems = discover(paths, skip)
    result.diagnostics.extend(problems)
    budget = budget if budget is not None else Budget()
    sources: list[Source] = []
    for path in files:
        text, problem = _read(path, budget, stdin)
        shown = "<stdin>" if path == STDIN else path
        if problem is not None:
            result.diagnostics.append(dataclasses.replace(problem, path=shown))
            if problem.code == codes.RUN_TOO_LARGE:
                return result
            continue
        assert text is not None
        sources.append(Source(shown, text))
    admit(budget, [source.text for source in sources])
    parsed = parse_all(sources, budget, namespace, parse_many)
    for source, (objects, problems) in zip(sources, parsed, strict=True):
        result.files.append(source.path)
        result.objects.extend(objects)
        result.diagnostics.extend(problems)
    return result


def _folders_of(paths: list[str]) -> dict[str, set[str]]:
    """The names in each folder of ``paths``, by the folder's resolved path: each folder resolved once."""
    named: dict[str, set[str]] = {}
    for path in paths:
        folder, name = os.path.split(path)
        named.setdefault(folder, set()).add(name)
    real_paths = _RealPaths()
    resolved: dict[str, set[str]] = {}
    for folder, names in named.items():
        resolved.setdefault(real_paths.folder(folder), set()).update(names)
    return resolved


def empty_inputs(
    paths: list[str], objects: list[Obj], problems: list[Diagnostic], severity: Severity = WARNING
) -> list[Diagnostic]:
    """One finding per input PATH that holds no OME object: a wrong folder, or a typo, passes silently
    otherwise. A warning, or an error where an empty answer must fail (pre-commit, Argo CD). A PATH
    with a file that could not be read has its error already, and is not called empty."""
    found: list[Diagnostic] = []
    held = {o.path for o in objects if o.is_ome or _other_ome(o)} | {d.path for d in problems if d.severity == ERROR}
    folders: dict[str, set[str]] | None = None  # the folders (resolved) of the paths that hold something: their names
    for given in dict.fromkeys(paths):
        if given == STDIN:
            shown, has = "<stdin>", "<stdin>" in held
        elif os.path.isdir(given):
            shown, root = _display(Path(given)), os.path.realpath(given)
            if folders is None:  # each file once: a folder's may be named from another PATH that reaches them too
                folders = _folders_of([p for p in held if p != "<stdin>"])
            # A path lies where its folder resolves (a refused link where it is, not where it points): under a PATH
            # when that folder is, or when it is the PATH itself (an error found at a folder).
            parent, base = os.path.split(root)
            has = any(
                is_within(folder, root) or (folder == parent and base in names) for folder, names in folders.items()
            )
        elif os.path.exists(given):
            shown = _display(Path(given))
            has = shown in held
        else:
            continue
        if not has:
            message = (
                f"{shown} holds no OME object (ClusterServingRuntime, ServingRuntime, InferenceService, BaseModel or "
                "ClusterBaseModel with apiVersion ome.io/v1beta1); is it the right path?"
            )
            found.append(Diagnostic(shown, 1, 1, severity, message, codes.NO_OME_OBJECTS))
    return found
