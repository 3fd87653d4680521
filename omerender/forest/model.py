"""The inheritance forest as plain data: runtimes under the runtime they inherit from, InferenceServices
under the runtime they use, and every broken link where the missing parent would hang.

``forest(result)`` reads a finished build (``pipeline.BuildResult``): the index, every runtime's chain
(``resolve.inherit``) and how each InferenceService's runtime was settled (``lifecycle.settle``). It
returns a ``Forest`` of ``Node`` and ``Link`` values that the renderers (``forest.text``,
``forest.graph``) draw. Every loop is bounded by the number of objects; nothing here recurses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from omerender.constants import SyncMode
from omerender.lifecycle.lock import isvc_key
from omerender.load.obj import Obj
from omerender.ome import CLUSTER_SERVING_RUNTIME as CSR
from omerender.ome import INFERENCE_SERVICE as ISVC
from omerender.ome import SERVING_RUNTIME as SR
from omerender.resolve.index import Universe, runtime_key
from omerender.result import BuildResult

__all__ = [
    "COUNT",
    "CSR",
    "ISVC",
    "MISSING",
    "MORE",
    "SR",
    "Forest",
    "Link",
    "Node",
    "finish",
    "forest",
    "keep",
    "node_id",
]
from omerender.resolve.inherit import INHERITANCE_CYCLE, RESOLVED, Chain, is_profile, parent_name

MISSING = "Missing"  # a parent or runtime that is named but not found
COUNT = "InferenceServices"  # InferenceServices collapsed into a count (--collapse-isvcs)
MORE = "Unchanged"  # what a diff's picture leaves out under a node, as a count
NOT_FOUND = "NotFound"  # an InferenceService names a runtime that does not exist
NO_RUNTIME = "NoRuntime"  # auto-selection found none (or the InferenceService names none and has no model)
INHERITS, USES = "inherits", "uses"


_UNSAFE = re.compile("[^a-z0-9]")  # what node_id writes as _<hex>_
_ASCII_ESCAPES = {code: f"_{code:x}_" for code in range(128) if _UNSAFE.fullmatch(chr(code))}  # the same, as a table


def node_id(kind: str, namespace: str, name: str) -> str:
    """A deterministic id made of ``[a-z0-9_]`` only, safe in Mermaid, DOT and HTML, and one-to-one:
    every other character (dots and dashes included) is written ``_<hex>_``, parts are joined by ``__``.
    Nodes that stand for others (counts) take ``isvcs__`` or ``more__`` before their parent's id."""

    def escape(text: str) -> str:
        if text.isascii():
            return text.translate(_ASCII_ESCAPES)
        return _UNSAFE.sub(lambda found: f"_{ord(found.group()):x}_", text)

    prefix = {CSR: "csr", SR: "sr", ISVC: "isvc", MISSING: "missing"}[kind]
    return "__".join((prefix, escape(namespace), escape(name)))


@dataclass
class Node:
    id: str
    kind: str
    namespace: str
    name: str
    key: str = ""  # runtime_key / isvc_key as lock and diff spell it ("" for placeholders)
    markers: list[str] = field(default_factory=list)
    reason: str = ""  # InheritanceReady reason of a runtime ("Resolved", "ParentNotFound", ...)
    message: str = ""
    count: int = 0  # InferenceServices a COUNT node stands for
    parent: str | None = None  # the node it hangs under in the tree
    children: list[str] = field(default_factory=list)

    @property
    def title(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    def sort_key(self) -> tuple[int, str, str, str, str]:
        return (
            0 if self.kind not in (ISVC, COUNT, MORE) else 1 if self.kind == ISVC else 2,
            self.namespace,
            self.name,
            self.kind,
            self.id,  # a cluster runtime and its copy in a namespace's chains (``_shadowed``) share the rest
        )


class Link(NamedTuple):  # not a frozen dataclass: a forest of 10,000 runtimes makes as many, and those are slow to make
    """``child`` inherits from ``parent`` (INHERITS) or uses it as its runtime (USES); ``reason`` names
    why the link is broken ("" when it holds)."""

    parent: str
    child: str
    type: str
    reason: str = ""
    selected: bool = False  # USES: the runtime was chosen by OME's auto-selection, not named


@dataclass
class Forest:
    nodes: dict[str, Node] = field(default_factory=dict)
    links: list[Link] = field(default_factory=list)
    roots: list[str] = field(default_factory=list)

    def broken(self, spared: frozenset[str] = frozenset()) -> bool:
        """A link or node is broken, but for those of the runtimes and InferenceServices whose keys are ``spared``
        (read only from a search path and used by nothing under the PATHs: OME refuses them alone)."""
        return any(link.reason and self.nodes[link.child].key not in spared for link in self.links) or any(
            n.reason not in ("", RESOLVED) and n.key not in spared for n in self.nodes.values()
        )

    def ordered(self) -> list[Node]:
        """Every node once, depth first from the roots, children in order (the tree's line order)."""
        out: list[Node] = []
        stack = list(reversed(self.roots))
        seen: set[str] = set()
        while stack:
            current = stack.pop()
            if current in seen:
                continue
            seen.add(current)
            out.append(self.nodes[current])
            stack.extend(reversed(self.nodes[current].children))
        return out


def _runtime_markers(runtime: Obj) -> list[str]:
    markers = []
    if is_profile(runtime):
        markers.append("profile")
    if runtime.spec.get("disabled") is True:
        markers.append("disabled")
    formats = runtime.spec.get("supportedModelFormats")
    if isinstance(formats, list) and any(isinstance(f, dict) and f.get("autoSelect") is True for f in formats):
        markers.append("auto-select")
    return markers


def _own_parent(universe: Universe, chain: Chain, name: str) -> Obj | None:
    """The parent the resolver found for ``chain``'s runtime; looked up as it looks only where its chain does not hold
    the parent (a cycle back to a runtime walked already, a parent whose spec is refused) or none was found."""
    walked = _root_first(chain)
    if len(walked) >= 2:
        return walked[-2]
    runtime = chain.runtime
    if runtime.kind == SR:
        found: Obj | None = universe.runtime_named(name, runtime.namespace)
        return found
    found = universe.cluster_runtimes.get(name)
    return found


def _cycles(parents: dict[str, str]) -> set[str]:
    """The nodes that lie on a cycle of the parent map (each node has at most one parent)."""
    on_cycle: set[str] = set()
    done: set[str] = set()
    for start in sorted(parents):
        path: list[str] = []
        where: dict[str, int] = {}
        current: str | None = start
        while current is not None and current not in done and current not in where:
            where[current] = len(path)
            path.append(current)
            current = parents.get(current)
        if current is not None and current in where:
            on_cycle.update(path[where[current] :])
        done.update(path)
    return on_cycle


def _add(forest: Forest, node: Node) -> Node:
    return forest.nodes.setdefault(node.id, node)


def _missing(forest: Forest, namespace: str, name: str, reason: str) -> Node:
    node = _add(forest, Node(node_id(MISSING, namespace, name), MISSING, namespace, name))
    if reason not in node.markers:
        node.markers = sorted([*node.markers, reason])
    return node


def _runtimes(forest: Forest, result: BuildResult) -> dict[str, str]:
    """Add every runtime and inherit-from link; returns node ids by ``runtime_key``."""
    universe, chains = result.universe, result.chains
    ids: dict[str, str] = {}
    runtimes = [(runtime, runtime_key(runtime)) for runtime in universe.all_runtimes()]  # each key made once
    for runtime, key in runtimes:
        chain = chains[key]
        node = _add(
            forest,
            Node(
                node_id(runtime.kind, runtime.namespace, runtime.name),
                runtime.kind,
                runtime.namespace,
                runtime.name,
                key,
                _runtime_markers(runtime),
                chain.reason,
                chain.message,
            ),
        )
        ids[key] = node.id
    by_object = {id(runtime): ids[key] for runtime, key in runtimes}
    parents: dict[str, str] = {}
    for runtime, key in runtimes:
        name = parent_name(runtime)
        if name is None:
            continue
        child = forest.nodes[ids[key]]
        found = _own_parent(universe, chains[key], name)
        if found is None:
            missing = _missing(forest, runtime.namespace, name, child.reason)
            forest.links.append(Link(missing.id, child.id, INHERITS, child.reason))
            child.parent = missing.id
            continue
        parent = forest.nodes[by_object[id(found)]]
        parents[child.id] = parent.id
        ok = child.reason == RESOLVED or parent.reason != RESOLVED
        forest.links.append(Link(parent.id, child.id, INHERITS, "" if ok else child.reason))
    on_cycle = _cycles(parents)
    for index, link in enumerate(forest.links):
        if link.child in on_cycle and link.parent in on_cycle:
            forest.links[index] = Link(link.parent, link.child, INHERITS, INHERITANCE_CYCLE)
    entries = _cycle_entries(forest, parents, on_cycle)
    for child_id, parent_id in parents.items():
        if child_id in entries:
            forest.nodes[child_id].markers.append(f"inherits from {forest.nodes[parent_id].title}")
        else:
            forest.nodes[child_id].parent = parent_id
    _shadowed(forest, result, ids)
    return ids


def resolves_as(namespace: str) -> str:
    """The marker of a cluster runtime drawn again under the parents a namespace's chains find for it."""
    return f"as {namespace} resolves it"


def _shadowed(forest: Forest, result: BuildResult, ids: dict[str, str]) -> None:
    """Draw each ServingRuntime under the chain the resolver resolved for it.

    A ServingRuntime's chain looks every parent up in its namespace first, the parents of the cluster runtimes in it
    too; a cluster runtime's own chain looks at cluster runtimes only. Where the two part (a ServingRuntime in the
    namespace has the name of a cluster runtime's parent: it shadows it), the cluster runtime is drawn again, marked
    ``as NAMESPACE resolves it``, under the parents that namespace's chains have; the ServingRuntime hangs under
    that copy. A chain broken on the way is drawn as far as it was walked; a cycle is left as ``_runtimes`` drew
    it. Bounded: one pass over each chain (at most ``MAX_CHAIN_DEPTH`` runtimes, or the walk to a broken link)."""
    chains = result.chains
    links_to: dict[str, int] | None = None  # each runtime's inherit link, by child id: made when first needed
    for runtime in result.universe.runtimes.values():
        chain = chains[runtime_key(runtime)]
        path = _root_first(chain)
        node = forest.nodes[ids[runtime_key(runtime)]]
        if chain.reason == INHERITANCE_CYCLE or len(path) < 2 or node.parent != ids[runtime_key(path[-2])]:
            continue
        drawn: list[str] = []
        for index, member in enumerate(path[:-1]):
            own = _root_first(chains[runtime_key(member)])
            if member.kind != CSR or (len(own) == index + 1 and all(a is b for a, b in zip(own, path, strict=False))):
                drawn.append(ids[runtime_key(member)])
                continue
            copy = _add(forest, _copy(forest.nodes[ids[runtime_key(member)]], runtime.namespace))
            if copy.parent is None:  # index > 0: a chain's root is its own
                copy.parent = drawn[-1]
                forest.links.append(Link(copy.parent, copy.id, INHERITS))
            drawn.append(copy.id)
        if node.parent == drawn[-1]:
            continue
        if links_to is None:
            links_to = {link.child: i for i, link in enumerate(forest.links) if link.type == INHERITS}
        at = links_to[node.id]
        node.parent = drawn[-1]
        forest.links[at] = forest.links[at]._replace(parent=node.parent)


def _root_first(chain: Chain) -> tuple[Obj, ...]:
    """The runtimes of ``chain`` root first: as resolved, or as far as a broken chain was walked (written first)."""
    return chain.runtimes if chain.ok else tuple(reversed(chain.runtimes))


def _copy(node: Node, namespace: str) -> Node:
    return Node(
        node_id(node.kind, namespace, node.name),
        node.kind,
        node.namespace,
        node.name,
        node.key,
        [*node.markers, resolves_as(namespace)],
        node.reason,
        node.message,
    )


def _cycle_entries(forest: Forest, parents: dict[str, str], on_cycle: set[str]) -> set[str]:
    """One node per cycle (the first in sort order) is drawn as a root; its link back is a marker."""
    entries: set[str] = set()
    seen: set[str] = set()
    for start in sorted(on_cycle, key=lambda n: forest.nodes[n].sort_key()):
        if start in seen:
            continue
        entries.add(start)
        current = start
        for _ in range(len(on_cycle) + 1):
            seen.add(current)
            current = parents[current]
            if current == start:
                break
    return entries


def _isvcs(forest: Forest, result: BuildResult, runtime_ids: dict[str, str]) -> None:
    universe = result.universe
    records = result.lifecycle.records
    for isvc in universe.isvcs.values():
        key = isvc_key(isvc)
        record = records.get(key)
        node = _add(forest, Node(node_id(ISVC, isvc.namespace, isvc.name), ISVC, isvc.namespace, isvc.name, key))
        ref = isvc.spec.get("runtime")
        named = str(ref.get("name")) if isinstance(ref, dict) and ref.get("name") else None
        runtime = record.runtime if record is not None else None
        if runtime is None and named is not None:
            runtime = universe.runtime_named(named, isvc.namespace)
        selected = named is None
        if selected:
            node.markers.append("auto-selected")
        if record is not None and record.sync != SyncMode.LIVE:
            node.markers.append("pinned")
        if record is not None and record.drifted:
            node.markers.append("drifted")
        if runtime is not None and runtime_key(runtime) in runtime_ids:
            node.parent = runtime_ids[runtime_key(runtime)]
            forest.links.append(Link(node.parent, node.id, USES, selected=selected))
        elif named is not None:
            missing = _missing(forest, isvc.namespace, named, NOT_FOUND)
            node.parent = missing.id
            forest.links.append(Link(missing.id, node.id, USES, NOT_FOUND))
        else:
            node.markers.append("no runtime selected")
            node.reason = NO_RUNTIME


def forest(result: BuildResult) -> Forest:
    """The whole forest of a finished build, in a deterministic order whatever the input order."""
    out = Forest()
    _isvcs(out, result, _runtimes(out, result))
    return finish(out)


def finish(forest: Forest) -> Forest:
    """Sort links, children and roots; fill ``children`` from each node's ``parent``."""
    for node in forest.nodes.values():
        node.children = []
    ordered = sorted(forest.nodes.values(), key=Node.sort_key)
    for node in ordered:
        if node.parent is not None and node.parent in forest.nodes:
            forest.nodes[node.parent].children.append(node.id)
    forest.roots = [n.id for n in ordered if n.parent is None]
    forest.links = sorted(set(forest.links), key=lambda link: (link.type, link.parent, link.child))
    forest.nodes = dict(sorted(forest.nodes.items()))
    return forest


def keep(forest: Forest, wanted: Iterable[str]) -> Forest:
    """Only the nodes in ``wanted`` and the links between them; a kept node whose parent is dropped is a root."""
    chosen = set(wanted)
    out = Forest()
    for node_key in sorted(chosen):
        node = forest.nodes[node_key]
        out.nodes[node_key] = Node(
            node.id,
            node.kind,
            node.namespace,
            node.name,
            node.key,
            list(node.markers),
            node.reason,
            node.message,
            node.count,
            node.parent if node.parent in chosen else None,
        )
    out.links = [link for link in forest.links if link.parent in chosen and link.child in chosen]
    return finish(out)
