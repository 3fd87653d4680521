"""Where each new profile is written, with which line endings, and what must read it there.

* A profile goes to ``profiles/`` in the home of its children (``homes``), or into ``--profiles-dir`` when given.
* Its text takes the line ending of the files its children came from: CRLF when they all use CRLF; when they
  differ, the one most of them use, LF on a tie (what YAML tools and git write by default).
* Every kustomization that lists one of its children (through the profiles below it too) must read it
  (``kustomization.list_profiles``), and when a child lies in a search path, which every build of the repository
  reads, the profile must lie in a search path as well: ``search_refusals`` names each that would not.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from omerender import codes
from omerender.diagnostics import ERROR, Diagnostic
from omerender.factor.edit import Comments, FieldPath, newline_of
from omerender.factor.homes import Homes, Lister
from omerender.factor.plan import Child, Plan, Profile
from omerender.factor.rewrite import profile_text
from omerender.load.obj import Obj
from omerender.paths import holder, is_within

HEADER = "Written by `omerender factor`: what the runtimes inheriting from this profile share."


def folder_for(homes: Homes, given: str | None) -> Callable[[Obj], str]:
    """The folder a runtime's profile goes to: ``given`` (``--profiles-dir``), else ``profiles/`` in its home."""
    if given:
        return lambda runtime: Path(given).as_posix()
    return lambda runtime: (Path(homes.of(runtime).folder) / "profiles").as_posix()


def children_below(p: Plan) -> dict[str, list[Child]]:
    """Per profile, the children that inherit from it, directly or through the profiles below it."""
    direct: dict[str, list[Child]] = {}
    for child in p.children:
        direct.setdefault(child.parent, []).append(child)
    out: dict[str, list[Child]] = {}
    for profile in reversed(p.profiles):  # sub-profiles come after their parent: theirs are complete first
        below = list(direct.get(profile.name, []))
        for member in profile.members:
            below += out.get(member, [])
        out[profile.name] = below
    return out


def _comments(p: Plan, comments: dict[str, dict[FieldPath, Comments]]) -> dict[str, dict[FieldPath, Comments]]:
    """Per profile, the comments its runtimes (and those of the profiles below it) wrote, the first for each field."""
    out: dict[str, dict[FieldPath, Comments]] = {}
    for pr in reversed(p.profiles):
        merged: dict[FieldPath, Comments] = {}
        for member in pr.members:
            for path, note in (out.get(member) or comments.get(member) or {}).items():
                merged.setdefault(path, note)
        out[pr.name] = merged
    return out


def newline_for(children: list[Child], texts: dict[str, str]) -> str:
    """The line ending of the files ``children`` came from (see the module)."""
    counts = Counter(newline_of(texts[path]) for path in sorted({c.runtime.path for c in children}) if path in texts)
    ranked = counts.most_common()
    if not ranked or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return "\n"
    return ranked[0][0]


def profile_files(
    p: Plan, existing: set[str], comments: dict[str, dict[FieldPath, Comments]], texts: dict[str, str]
) -> dict[str, tuple[str, str]]:
    """Per profile name, the path of its new file (a name no file has) and its text."""
    out: dict[str, tuple[str, str]] = {}
    notes = _comments(p, comments)
    below = children_below(p)
    for profile in p.profiles:
        folder = Path(profile.home)
        path, n = folder / f"{profile.name}.yaml", 2
        while path.as_posix() in existing or path.exists():
            path, n = folder / f"{profile.name}-{n}.yaml", n + 1
        text = profile_text(profile, HEADER, notes[profile.name])
        newline = newline_for(below[profile.name], texts)
        out[profile.name] = (path.as_posix(), text.replace("\n", newline) if newline != "\n" else text)
        existing.add(path.as_posix())
    return out


def listers(p: Plan, homes: Homes, written: dict[str, str]) -> dict[str, list[tuple[Lister, str]]]:
    """Per new profile file, the kustomizations that list one of its children (with that child's file), deepest
    kustomization first."""
    below = children_below(p)
    out: dict[str, list[tuple[Lister, str]]] = {}
    for profile in p.profiles:
        found: dict[str, tuple[Lister, str]] = {}
        for child in below[profile.name]:
            for lister in homes.of(child.runtime).listers:
                found.setdefault(lister.path, (lister, child.runtime.path))
        deepest = sorted(
            found.values(), key=lambda item: (-len(Path(os.path.abspath(item[0].path)).parts), item[0].path)
        )
        out[written[profile.name]] = deepest
    return out


def search_refusals(p: Plan, homes: Homes, written: dict[str, str], search_paths: list[str]) -> list[Diagnostic]:
    """Profiles outside every search path whose children lie in one (read by every build of the repository): one
    error per search path, at the first such child."""
    below = children_below(p)
    found: dict[str, tuple[Child, list[str]]] = {}
    for profile in p.profiles:
        path = written[profile.name]
        if holder(path, search_paths) is not None:
            continue
        child = next((c for c in below[profile.name] if homes.of(c.runtime).searched is not None), None)
        if child is not None:
            searched = str(homes.of(child.runtime).searched)
            found.setdefault(searched, (child, []))[1].append(path)
    problems: list[Diagnostic] = []
    for searched, (child, paths) in sorted(found.items()):
        shown = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
        message = (
            f"{child.runtime.kind} {child.runtime.name} and the other runtimes factor would make children in the "
            f"search path {searched} are read by every build of the repository (each app's build with the settings "
            f"file, its pre-commit hook, Argo CD), but their profiles would be written outside every search path "
            f"({shown}), so those builds would not read them and the runtimes would lose their parents; leave out "
            f"--profiles-dir (factor then writes them into {searched}) or name a folder inside a search path"
        )
        problems.append(child.runtime.diag(ERROR, message, "metadata", "name", code=codes.FACTOR_PROOF))
    return problems


def reusable(search_paths: list[str]) -> Callable[[Obj, Profile], bool]:
    """Whether an existing profile is read wherever a planned profile would be: it lies in a search path (every
    build reads those), or in the home of the planned profile's children."""

    def readable(existing: Obj, planned: Profile) -> bool:
        if holder(existing.path, search_paths) is not None:
            return True
        home = os.path.dirname(os.path.realpath(planned.home))
        return is_within(os.path.realpath(existing.path), home)

    return readable
