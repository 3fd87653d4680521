"""The one path guard for ``--output-dir``: which file each emitted object goes to, and proof it stays inside.

An object becomes ``<namespace or _cluster>/<kind>-<name>.yaml``. Before a namespace or a name becomes
a path part it must be what the API server accepts (a DNS-1123 label for a namespace, a DNS-1123
subdomain for a name, or, for the RBAC kinds that allow more, a path segment without ``/``, ``%``,
``.`` or ``..``), and a kind must be a plain identifier, so ``-`` separates kind from name
unambiguously. Two objects of one kind, namespace and name from different API groups are told apart
by the group (``<kind>.<group>-<name>.yaml``) on both; two that still fold to one file name (on a
case-insensitive filesystem) are an error. ``lands_inside`` proves a planned file, resolved, lies in the
folder (``factor``'s tree writer checks each file with it); ``build``'s writer places files through
``placing``, which follows no symlink at all.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from omerender.names import clip, is_dns_label, is_dns_subdomain
from omerender.paths import resolves_within

CLUSTER_FOLDER = "_cluster"
PATH_SEGMENT_KINDS = frozenset({"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"})
_KIND = re.compile(r"^[A-Za-z][A-Za-z0-9]{0,62}$")
_GROUP = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
Identity = tuple[str, str, str, str]  # group, kind, namespace, name


@dataclass
class FilePlan:
    files: dict[str, Any] = field(default_factory=dict)  # relative path -> object
    problems: list[tuple[int, str, str]] = field(default_factory=list)  # (index of the object, message, field)


def _segment_ok(name: str) -> bool:
    return 0 < len(name) <= 253 and name not in (".", "..") and not any(c in name for c in "/%\\\0")


def _identity(body: dict[str, Any], namespace: str) -> Identity:
    found = body.get("metadata")
    meta: dict[str, Any] = found if isinstance(found, dict) else {}
    group = str(body.get("apiVersion", "")).rpartition("/")[0]
    return (group, str(body.get("kind", "")), str(meta.get("namespace") or namespace or ""), str(meta.get("name", "")))


def identity_problem(ident: Identity) -> tuple[str, str] | None:
    """Why the object cannot become a file name and the metadata field at fault, or None."""
    group, kind, namespace, name = ident
    if not _KIND.match(kind):
        return f"kind {clip(kind)!r} is not a valid kind (letters and digits), so it cannot name an output file", "kind"
    if group and not _GROUP.match(group):
        return (
            f"API group {clip(group)!r} of {kind} is not a DNS subdomain, so it cannot name an output file",
            "apiVersion",
        )
    if namespace and not is_dns_label(namespace):
        return (
            f"{kind} {clip(name)}: namespace {clip(namespace)!r} is not a DNS-1123 label; refusing to use it as a "
            "folder",
            "namespace",
        )
    good = _segment_ok(name) if kind in PATH_SEGMENT_KINDS else is_dns_subdomain(name)
    if not good:
        return f"{kind} name {clip(name)!r} is not a DNS-1123 subdomain; refusing to use it as a file name", "name"
    return None


def _file(ident: Identity, with_group: bool) -> str:
    group, kind, namespace, name = ident
    qualified = f"{kind.lower()}.{group}" if with_group and group else kind.lower()
    return f"{namespace or CLUSTER_FOLDER}/{qualified}-{name}.yaml"


def plan(bodies: list[tuple[dict[str, Any], str]]) -> FilePlan:
    """One file per ``(object, namespace it gets when it sets none)``, unique per identity, or problems.

    Deterministic whatever the order: the group is added exactly when another object of the same
    kind, namespace and name comes from another group.
    """
    result = FilePlan()
    idents: list[Identity | None] = []
    for index, (body, namespace) in enumerate(bodies):
        ident = _identity(body, namespace)
        problem = identity_problem(ident)
        if problem:
            result.problems.append((index, *problem))
            idents.append(None)
        else:
            idents.append(ident)
    groups: dict[tuple[str, str, str], set[str]] = {}
    for known in idents:
        if known is not None:
            groups.setdefault(known[1:], set()).add(known[0])
    folded: dict[str, tuple[int, Identity]] = {}
    for index, maybe in enumerate(idents):
        if maybe is None:
            continue
        ident = maybe
        rel = _file(ident, len(groups[ident[1:]]) > 1)
        key = rel.casefold()
        if key in folded and folded[key][1] != ident:
            other = folded[key][1]
            message = (
                f"{ident[1]} {clip(ident[3])} and {other[1]} {clip(other[3])} would be written to the same file "
                f"{clip(rel, 160)} (names that differ only in case clash on case-insensitive filesystems)"
            )
            result.problems.append((index, message, "name"))
            continue
        folded[key] = (index, ident)
        result.files[rel] = bodies[index][0]
    return result


def lands_inside(folder: str, rel: str) -> bool:
    """Whether ``rel`` is a plain relative path (no empty, ``.`` or ``..`` part) and ``folder/rel``, every symlink
    resolved, lies inside ``folder``."""
    if not rel or os.path.isabs(rel) or any(part in ("", ".", "..") for part in rel.split("/")):
        return False
    return resolves_within(os.path.join(folder, rel), folder)
