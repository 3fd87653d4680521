"""Kustomize folders: a folder holding a ``kustomization.yaml`` is read as ``kustomize build`` reads it.

Only what its ``resources`` list names is read (files, and folders with a kustomization of their own,
recursively), in the order listed, as kustomize does: a YAML file lying in the folder but not listed
is not part of what it builds. OME's ``config/runtimes`` relies on this (four runtime names are
defined twice, once in a file its kustomization does not list).

As kustomize does, a build is refused when a folder holds two kustomization files (or a folder named like one and
no file), when a file it lists lies outside the listing kustomization's folder (kustomize's load restrictor:
files in or below it; folders with a kustomization of their own may lie anywhere), and when a file or folder is
reached twice (kustomize: "may not add resource with an already registered id").

A pull request may add kustomizations, so each kustomization file is read only when its real path lies inside
the repository (the nearest folder at or above the input PATH holding ``.git``, else the PATH) or inside an input
path the user named: a symlink out is refused with the same words whether or not its target exists, and nothing
of it is read or quoted.

omerender applies no kustomize transformer or generator, so a kustomization that asks for one
(``patches``, ``namePrefix``, ``commonLabels``, ``images``, ``configMapGenerator``, ``components``,
...) is refused at the line of that key rather than rendered into something other than what
``kustomize build`` gives. Remote resources (URLs, git repositories) are refused: omerender reads no
network. A listed path that leaves the input paths, a folder without a kustomization, a cycle and
nesting deeper than ``MAX_DEPTH`` are located errors; the files listed in all are at most
``MAX_RESOURCES``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from omerender import codes
from omerender.diagnostics import ERROR, Diagnostic
from omerender.load.bounded import Budget, ReadProblem, read_text
from omerender.load.yamlio import parse_documents, position
from omerender.names import clip
from omerender.paths import is_within, repository_of

FILE_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")  # the names kustomize looks for
READ_KEYS = frozenset({"apiVersion", "kind", "metadata", "resources", "bases"})  # bases: resources' old name
MAX_DEPTH = 20  # kustomizations nested through resources
MAX_RESOURCES = 100_000  # entries listed over every kustomization of a run
MAX_BYTES = 1024 * 1024  # one kustomization file
CAP_NAME = "fixed for kustomization files; --max-file-size does not change it"
REMOTE_PREFIXES = ("http://", "https://", "git@", "ssh://", "git::", "github.com/", "gitlab.com/", "bitbucket.org/")


def kustomizations_in(folder: Path) -> list[Path]:
    """The kustomization files of ``folder``: each name kustomize looks for that is a file, or a symlink (followed
    or not, it is the folder's kustomization: whether it leads anywhere must not change what omerender says)."""
    return [folder / n for n in FILE_NAMES if (folder / n).is_symlink() or (folder / n).is_file()]


def kustomization_in(folder: Path) -> Path | None:
    """The kustomization file of ``folder``, or None. Several (``folder_problem`` refuses that) give the first."""
    found = kustomizations_in(folder)
    return found[0] if found else None


def folder_problem(folder: Path) -> Diagnostic | None:
    """Why ``kustomize build`` refuses ``folder`` although it may hold a kustomization: two kustomization files, or a
    folder named like one and no file; else None."""
    found = kustomizations_in(folder)
    if len(found) > 1:
        names = " and ".join(p.name for p in found)
        message = (
            f"this folder holds {names}: kustomize build refuses it (found multiple kustomization files); keep one"
        )
        return _error(found[1], 1, 1, message)
    folders = [folder / n for n in FILE_NAMES if (folder / n).is_dir() and not (folder / n).is_symlink()]
    if not found and folders:
        message = (
            f"{folders[0].name} is a folder, not a kustomization file: kustomize build finds no kustomization here "
            f"(unable to find one of {', '.join(repr(n) for n in FILE_NAMES)}); rename the folder"
        )
        return _error(folders[0], 1, 1, message)
    return None


@dataclass
class Expansion:
    """What the kustomizations below one input folder list: files to read, in order, and problems; ``reached``: the
    real path of every file and kustomization folder the build holds, with the entry that brought it."""

    files: list[str] = field(default_factory=list)
    problems: list[Diagnostic] = field(default_factory=list)
    listed: int = 0
    reached: dict[str, str] = field(default_factory=dict)


def _error(path: Path, line: int, col: int, message: str) -> Diagnostic:
    return Diagnostic(path.as_posix(), line, col, ERROR, message, codes.KUSTOMIZATION)


@dataclass(frozen=True)
class Unreadable:
    """Why a kustomization file could not be read, and where."""

    line: int
    col: int
    message: str


def parse_kustomization(path: Path) -> tuple[dict[str, Any], yaml.Node | None] | Unreadable:
    """A kustomization file's mapping and its node tree (``{}, None`` when empty), read within the file cap; or
    why not. The caller has checked that its real path may be read."""
    try:
        text = read_text(str(path), Budget(max_file_bytes=MAX_BYTES, cap_name=CAP_NAME), "kustomization file")
        docs = list(parse_documents(text))
    except ReadProblem as problem:
        return Unreadable(problem.line, problem.col, problem.message)
    except (yaml.YAMLError, RecursionError) as exc:
        mark = getattr(exc, "problem_mark", None)
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        return Unreadable(line, col, f"invalid YAML in kustomization: {getattr(exc, 'problem', exc)}")
    if not docs:
        return {}, None
    if len(docs) != 1 or not isinstance(docs[0].data, dict):
        return Unreadable(1, 1, "a kustomization must be one YAML mapping")
    return docs[0].data, docs[0].node


def _read(path: Path, out: Expansion, allowed: list[str]) -> tuple[dict[str, Any], Any] | None:
    """The kustomization's mapping and its node tree, or None with the problem noted. ``allowed``: the real paths of
    the folders it must lie in (the repository, and the input roots the user named)."""
    real = os.path.realpath(path)
    if not any(is_within(real, folder) for folder in allowed):
        message = "the kustomization file leads out of the repository (a symlink); not read"
        out.problems.append(_error(path, 1, 1, message))
        return None
    parsed = parse_kustomization(path)
    if isinstance(parsed, Unreadable):
        out.problems.append(_error(path, parsed.line, parsed.col, parsed.message))
        return None
    return parsed


def _key_at(node: Any, key: Any) -> tuple[int, int]:
    """1-based line and column of mapping key ``key`` itself (its value may start lines later)."""
    for k, _ in getattr(node, "value", ()) if isinstance(node, yaml.MappingNode) else ():
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return k.start_mark.line + 1, k.start_mark.column + 1
    return 1, 1


def _remote(entry: str) -> bool:
    return entry.startswith(REMOTE_PREFIXES) or "://" in entry or "?ref=" in entry


def expand(
    kustomization: Path,
    within: list[Path],
    out: Expansion,
    stack: tuple[str, ...] = (),
    repo: str | None = None,
) -> None:
    """Add to ``out`` the files ``kustomization`` lists, folders expanded through their own kustomization.
    ``within``: the real input roots a listed path must stay inside; ``stack``: the real folders above; ``repo``:
    the repository each kustomization file must lie in [default: the one holding the first kustomization's folder]."""
    folder = kustomization.parent
    real = os.path.realpath(folder)
    top = os.path.realpath(repo if repo is not None else repository_of(str(folder)))
    if real in stack:
        chain = " -> ".join([*(Path(p).name for p in stack[stack.index(real) :]), folder.name])
        out.problems.append(_error(kustomization, 1, 1, f"kustomization cycle: {clip(chain)}"))
        return
    if len(stack) >= MAX_DEPTH:
        out.problems.append(_error(kustomization, 1, 1, f"kustomizations nest more than {MAX_DEPTH} deep"))
        return
    out.reached.setdefault(real, kustomization.as_posix())
    read = _read(kustomization, out, [top, *(str(root) for root in within)])
    if read is None:
        return
    data, node = read
    refused = [k for k in data if k not in READ_KEYS]
    for key in refused:
        line, col = _key_at(node, key)
        out.problems.append(
            _error(
                kustomization,
                line,
                col,
                f"kustomization field {clip(str(key))!r} is not applied by omerender (it reads only resources and "
                "bases); kustomize build would change or add objects with it, so the result would differ: render the "
                "kustomize output instead (kustomize build DIR | omerender build -; in Argo CD, the plugin parameter "
                "kustomize-build: true) or drop the field",
            )
        )
    if refused:
        return
    listed: list[tuple[str, int, Any]] = []
    for key in ("resources", "bases"):
        entries = data.get(key) or []
        if not isinstance(entries, list):
            line, col = position(node, (key,))
            out.problems.append(_error(kustomization, line, col, f"{key} must be a list of paths"))
            return
        listed += [(key, index, entry) for index, entry in enumerate(entries)]
    for key, index, entry in listed:
        line, col = position(node, (key, index))
        out.listed += 1
        if out.listed > MAX_RESOURCES:
            out.problems.append(_error(kustomization, line, col, f"more than {MAX_RESOURCES} resources listed"))
            return
        if not isinstance(entry, str) or not entry:
            out.problems.append(_error(kustomization, line, col, "a resource must be a path (a string)"))
            continue
        shown = clip(entry)
        if _remote(entry):
            message = f"remote resource {shown!r} refused: omerender reads no network; vendor it and list the path"
            out.problems.append(_error(kustomization, line, col, message))
            continue
        target = Path(os.path.normpath(folder / entry))
        real_target = os.path.realpath(target)
        here = f"{kustomization.as_posix()}:{line}:{col}"
        problem = _outside(real_target, within) or _restricted(target, real_target, real)
        problem = problem or _again(real_target, out, (*stack, real))
        if problem:
            out.problems.append(_error(kustomization, line, col, f"resource {shown!r} {problem}"))
        elif not target.exists():
            out.problems.append(_error(kustomization, line, col, f"resource {shown!r}: no such file or directory"))
        elif target.is_dir():
            inner = kustomization_in(target)
            doubled = folder_problem(target)
            if doubled is not None:
                out.problems.append(doubled)
            elif inner is None:
                message = f"resource {shown!r} is a folder without a kustomization.yaml (kustomize build refuses it)"
                out.problems.append(_error(kustomization, line, col, message))
            else:
                out.reached.setdefault(real_target, here)
                expand(inner, within, out, (*stack, real), top)
        else:
            out.reached[real_target] = here
            out.files.append(target.as_posix())


def _restricted(target: Path, real_target: str, real_folder: str) -> str:
    """Why kustomize's load restrictor refuses a listed file: it is not in or below the listing kustomization's
    folder (by real path: a symlink out counts as out). A folder may lie anywhere. Asked only of a path inside the
    input paths, so whether it is a folder tells nothing of what lies outside them."""
    if is_within(real_target, real_folder) or target.is_dir():
        return ""
    return (
        "is not in or below this kustomization's folder: kustomize build refuses it (its load restrictor); list the "
        "folder that holds it instead, with a kustomization of its own"
    )


def _outside(real_target: str, within: list[Path]) -> str:
    if any(is_within(real_target, str(root)) for root in within):
        return ""
    return (
        "lies outside the input paths: give its folder, with a kustomization of its own, as a PATH or --search-path "
        "(kustomize reads a listed file only in or below the listing kustomization's folder)"
    )


def _again(real_target: str, out: Expansion, stack: tuple[str, ...]) -> str:
    """Why a file or folder the build holds already cannot come again (a folder on ``stack`` is a cycle, which
    ``expand`` names)."""
    first = out.reached.get(real_target)
    if first is None or real_target in stack:
        return ""
    return (
        f"is already in this build (through {clip(first)}): kustomize build refuses it (may not add resource with an "
        "already registered id)"
    )


def leaving_out(path: Path, roots: list[str]) -> Path | None:
    """The kustomization that would keep a new file at ``path`` from being read from ``roots`` (the first one on
    the way down from a root to it, as ``discover`` walks, when it does not list it), else None."""
    real = Path(os.path.realpath(path))
    missed: Path | None = None
    for root in roots:
        top = Path(os.path.realpath(root))
        if top not in real.parents:
            continue
        folders = [top, *(p for p in reversed(real.parents) if top in p.parents)]
        found = next((k for k in map(kustomization_in, folders) if k is not None), None)
        if found is None:
            return None
        listed = Expansion()
        expand(found, [top], listed, repo=repository_of(str(top)))
        if str(real) in {os.path.realpath(f) for f in listed.files}:
            return None
        missed = missed or Path(root) / found.relative_to(top)  # as the user named it
    return missed
