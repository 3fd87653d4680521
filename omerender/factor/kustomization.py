"""A new profile in a kustomize folder: listed in that folder's kustomization, so ``kustomize build`` and omerender
(which reads only what a kustomization lists) both read it.

The kustomization that would leave a profile unread (``load.kustomize.leaving_out``) gets the profile's path, relative
to its folder, at the end of its ``resources``. The edit is a ruamel.yaml round trip that keeps the file's comments,
key order, quoting and indentation; its line endings and a BOM are kept too. It is one more file of factor's change
(journalled with the others by ``--in-place``). A kustomization with a field omerender does not apply, one that is
not a mapping, or one on a ``--search-path`` only (factor never rewrites those) is a located error instead; so is a
profile outside every PATH and search path (``--profiles-dir``), which nothing would read.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omerender import codes
from omerender.diagnostics import ERROR, Diagnostic
from omerender.factor.edit import newline_of
from omerender.factor.homes import Lister
from omerender.factor.rewrite import BOM, round_tripper
from omerender.load.kustomize import READ_KEYS, Expansion, expand, leaving_out
from omerender.names import clip
from omerender.paths import holder, is_within, repository_of
from omerender.roundtrip import dump

ADVICE = "pass --profiles-dir a folder that is read without a kustomization (a PATH or --search-path)"


@dataclass
class Listing:
    """The kustomizations to rewrite (path -> new text), their texts now, and why one cannot be."""

    files: dict[str, str] = field(default_factory=dict)
    originals: dict[str, str] = field(default_factory=dict)
    problems: list[Diagnostic] = field(default_factory=list)
    listed: dict[str, list[str]] = field(default_factory=dict)  # a profile -> the kustomizations it is added to


class Refusal(Exception):
    """A kustomization factor does not edit, with the 1-based line and column to blame."""

    def __init__(self, line: int, col: int, message: str) -> None:
        super().__init__(message)
        self.line, self.col, self.message = line, col, message


def _at(node: Any, key: Any) -> tuple[int, int]:
    """1-based line and column of ``key`` in a ruamel mapping (1, 1 when it is not known)."""
    try:
        line, col = node.lc.key(key)
    except (AttributeError, KeyError, TypeError):
        return 1, 1
    return int(line) + 1, int(col) + 1


def _keep_trailing_comments(seq: Any, last: int) -> None:
    """The comment lines (and blank lines) after what was the last item of ``seq`` stay after the items appended:
    ruamel.yaml keeps them with that item's end-of-line comment, which would put the new items below them."""
    import copy

    found = seq.ca.items.get(last) if last >= 0 and len(seq) - 1 > last else None
    token = found[0] if found else None
    if token is None:
        return
    eol, _, rest = str(token.value).partition("\n")
    if not rest:
        return
    moved = copy.copy(token)
    moved.value = "\n" + rest
    if eol:
        token.value = eol + "\n"
    else:
        del seq.ca.items[last]
    seq.ca.items[len(seq) - 1] = [moved, None, None, None]


def add_resources(text: str, entries: list[str]) -> str:
    """``text`` (a kustomization) with ``entries`` appended to its ``resources``, everything else kept.
    Raises ``Refusal``."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.error import YAMLError

    body = text.removeprefix(BOM)
    rt = round_tripper(body)
    try:
        data = rt.load(body)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        raise Refusal(line, col, f"invalid YAML in kustomization: {getattr(exc, 'problem', None) or exc}") from None
    if data is None:
        data = CommentedMap()
    if not isinstance(data, CommentedMap):
        raise Refusal(1, 1, "a kustomization must be one YAML mapping")
    for key in data:
        if key not in READ_KEYS:
            line, col = _at(data, key)
            raise Refusal(
                line,
                col,
                f"kustomization field {clip(str(key))!r} is not applied by omerender (it reads only resources and "
                "bases), so factor does not add its profile there",
            )
    resources = data.get("resources")
    if resources is None:
        resources = data["resources"] = CommentedSeq()
    if not isinstance(resources, list):
        line, col = _at(data, "resources")
        raise Refusal(line, col, "resources must be a list of paths")
    last = len(resources) - 1
    resources.extend(e for e in entries if e not in resources)
    _keep_trailing_comments(resources, last)
    new = dump(rt, data).replace("\r\n", "\n")
    newline = newline_of(body)
    if newline != "\n":
        new = new.replace("\n", newline)  # the file's own line breaks, not ruamel's
    return (BOM if text.startswith(BOM) else "") + new


def _entry(profile: str, kustomization: Path) -> str:
    """The profile's path as the kustomization lists it: relative to its folder, with ``/``."""
    relative = os.path.relpath(os.path.realpath(profile), os.path.realpath(kustomization.parent))
    return Path(relative).as_posix()


class Reach:
    """Whether ``kustomize build`` of a kustomization's folder reads another kustomization: it is that one, or its
    folder is listed on the way (as it is on disk: factor only adds files to resources). Each kustomization is
    expanded once per run."""

    def __init__(self) -> None:
        self._reached: dict[str, frozenset[str]] = {}

    def __call__(self, kustomization: Path, other: Path) -> bool:
        real = os.path.realpath(kustomization)
        if real == os.path.realpath(other):
            return True
        reached = self._reached.get(real)
        if reached is None:
            listed = Expansion()
            top = repository_of(str(kustomization.parent))
            expand(kustomization, [Path(os.path.realpath(top))], listed, repo=top)
            reached = self._reached[real] = frozenset(listed.reached)
        return os.path.realpath(other.parent) in reached


def _lister_refusal(profile: str, lister: str, paths: list[str]) -> str | None:
    """Why ``lister`` (a kustomization that lists a child of ``profile``) cannot be made to read it, if it cannot."""
    if not is_within(os.path.realpath(profile), os.path.realpath(os.path.dirname(lister) or ".")):
        return "below"
    if holder(lister, paths) is None:
        return "outside"
    return None


def _lister_message(lister: str, child: str, profiles: list[str], reason: str) -> str:
    shown = ", ".join(profiles[:3]) + (f" and {len(profiles) - 3} more" if len(profiles) > 3 else "")
    start = f"{lister} lists {child}, which factor would make a child of the profiles it would write at {shown}"
    folder = os.path.dirname(lister) or "."
    if reason == "below":
        return (
            f"{start}; kustomize reads a listed file only in or below the kustomization's folder, so the builds "
            f"through {lister} would not read them; leave out --profiles-dir (factor then writes them beside this "
            f"kustomization) or name a folder below {folder}"
        )
    return (
        f"{start}, so this kustomization must list them too, but it lies outside every PATH (on a --search-path or "
        f"above the PATHs) and factor rewrites files only inside PATHS; give {folder} as a PATH"
    )


def _outside(profile: str, listers: list[tuple[Lister, str]]) -> Diagnostic:
    """A profile that would lie outside every PATH and search path: beside the kustomization listing its children
    (above the PATHS), or in a ``--profiles-dir`` that nothing reads."""
    if not listers:
        message = (
            f"factor would write {profile}, outside every PATH and --search-path, so no build of them would read "
            "it and its children would lose their parent; pass --profiles-dir a folder inside a PATH"
        )
        return Diagnostic("<factor>", 1, 1, ERROR, message, codes.FACTOR_PROOF)
    lister, child = listers[0]
    folder = os.path.dirname(lister.path) or "."
    message = (
        f"{lister.path} lists {child}, which factor would make a child of a profile, so the profile belongs beside "
        f"that kustomization ({profile}) and must be listed in it, but both lie outside every PATH, where factor "
        f"does not write; give {folder} as a PATH"
    )
    return Diagnostic(lister.path, lister.line, lister.col, ERROR, message, codes.FACTOR_PROOF)


def list_profiles(
    profiles: dict[str, list[tuple[Lister, str]]],
    paths: list[str],
    search_paths: list[str],
    read: Callable[[str], str],
    reaches: Reach | None = None,
) -> Listing:
    """The kustomization edits that make every one of ``profiles`` (new files) read from ``paths`` and
    ``search_paths`` and by every kustomization that lists one of its children: ``profiles`` maps each profile's
    path to those (kustomization, child file) pairs, the deepest kustomization first. ``read`` gives a
    kustomization's text (raises ``ReadProblem``)."""
    from omerender.load.bounded import ReadProblem

    reaches = reaches or Reach()
    out = Listing()
    wanted: dict[Path, list[str]] = {}
    refused: dict[tuple[str, str], tuple[Lister, str, list[str]]] = {}  # (kustomization, why) -> its profiles
    for profile, listers in profiles.items():
        if holder(profile, [*paths, *search_paths]) is None:
            out.problems.append(_outside(profile, listers))
            continue
        edits: list[Path] = []
        for lister, child in listers:
            if any(reaches(Path(lister.path), edit) for edit in edits):
                continue
            why = _lister_refusal(profile, lister.path, paths)
            if why is not None:
                refused.setdefault((lister.path, why), (lister, child, []))[2].append(profile)
                continue
            edits.append(Path(lister.path))
        found = leaving_out(Path(profile), [*paths, *search_paths])
        if found is not None and not any(reaches(found, edit) for edit in edits):
            if holder(str(found), paths) is None:  # on a search path only: read, never rewritten
                message = (
                    f"factor would write {profile}, which {found.as_posix()} does not list in its resources, and that "
                    f"kustomization lies on a --search-path, which factor never rewrites; {ADVICE}"
                )
                out.problems.append(Diagnostic(found.as_posix(), 1, 1, ERROR, message, codes.FACTOR_PROOF))
                continue
            edits.append(found)
        for edit in edits:
            wanted.setdefault(edit, []).append(_entry(profile, edit))
        out.listed[profile] = [edit.as_posix() for edit in edits]
    for (where, why), (lister, child, listed) in sorted(refused.items()):
        message = _lister_message(where, child, listed, why)
        out.problems.append(Diagnostic(where, lister.line, lister.col, ERROR, message, codes.FACTOR_PROOF))
    for kustomization, entries in sorted(wanted.items()):
        where = kustomization.as_posix()
        try:
            text = read(where)
            out.files[where] = add_resources(text, entries)
            out.originals[where] = text
        except ReadProblem as exc:
            message = f"factor cannot read it: {exc.message}"
            out.problems.append(Diagnostic(where, exc.line, exc.col, ERROR, message, codes.KUSTOMIZATION))
        except Refusal as exc:
            message = f"{exc.message}; factor would write {', '.join(entries)} there; {ADVICE}"
            out.problems.append(Diagnostic(where, exc.line, exc.col, ERROR, message, codes.KUSTOMIZATION))
    return out
