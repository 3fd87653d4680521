"""Views of a forest: one runtime's subtree, one InferenceService's chain, InferenceServices as counts."""

from __future__ import annotations

from omerender.forest.model import COUNT, ISVC, Forest, Link, Node, finish, keep, node_id
from omerender.ome import CLUSTER_SERVING_RUNTIME as CSR
from omerender.ome import SERVING_RUNTIME as SR


def find_runtime(forest: Forest, name: str, namespace: str) -> str | None:
    """``NAME`` (a ServingRuntime in ``namespace``, else a ClusterServingRuntime, as OME looks it up) or
    ``NAMESPACE/NAME`` (a ServingRuntime)."""
    if "/" in name:
        ns, _, short = name.partition("/")
        candidates = [node_id(SR, ns, short)]
    else:
        candidates = [node_id(SR, namespace, name), node_id(CSR, "", name)]
    return next((c for c in candidates if c in forest.nodes), None)


def find_isvc(forest: Forest, name: str, namespace: str) -> str | None:
    ns, _, short = name.rpartition("/")
    found = node_id(ISVC, ns or namespace, short)
    return found if found in forest.nodes else None


def descendants(forest: Forest, start: str) -> list[str]:
    out: list[str] = []
    stack = [start]
    seen: set[str] = set()
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        out.append(current)
        stack.extend(forest.nodes[current].children)
    return out


def ancestors(forest: Forest, start: str) -> list[str]:
    """``start`` and the nodes above it in the tree, bounded by the number of nodes."""
    out = [start]
    current = forest.nodes[start].parent
    while current is not None and current not in out and len(out) <= len(forest.nodes):
        out.append(current)
        current = forest.nodes[current].parent
    return out


def drawn_again(forest: Forest, start: str) -> list[str]:
    """``start`` and the copies of it that namespaces' chains draw under other parents (``model._shadowed``)."""
    key = forest.nodes[start].key
    if not key:
        return [start]
    return [start, *(n.id for n in forest.nodes.values() if n.key == key and n.id != start and n.kind != ISVC)]


def subtree(forest: Forest, start: str) -> Forest:
    """``start``'s subtree, with those of its copies: everything that inherits from it, in every namespace."""
    return keep(forest, [found for each in drawn_again(forest, start) for found in descendants(forest, each)])


def chain(forest: Forest, start: str) -> Forest:
    return keep(forest, ancestors(forest, start))


def used_only(forest: Forest) -> Forest:
    """Only the runtimes some InferenceService uses, with the chains above them, and those InferenceServices:
    a catalogue's unused runtimes (OME ships 200) would make a graph too wide to read."""
    wanted: set[str] = set()
    for node in forest.nodes.values():
        if node.kind in (ISVC, COUNT):
            wanted.update(ancestors(forest, node.id))
    return keep(forest, wanted)


def namespaces_holding(forest: Forest, name: str) -> list[str]:
    """The namespaces with a ServingRuntime ``name``, for a hint when it is not in the one asked for."""
    return sorted({n.namespace for n in forest.nodes.values() if n.kind == SR and n.name == name and n.namespace})


def collapse_isvcs(forest: Forest) -> Forest:
    """Each runtime's InferenceServices become one node counting them (markers summed up)."""
    out = Forest()
    groups: dict[str, list[Node]] = {}
    for node in forest.nodes.values():
        if node.kind == ISVC and node.parent is not None:
            groups.setdefault(node.parent, []).append(node)
        else:
            out.nodes[node.id] = node
    hidden: dict[str, str] = {}
    for parent, members in groups.items():
        owner = forest.nodes[parent]
        count = Node(f"isvcs__{owner.id}", COUNT, owner.namespace, owner.name, parent=parent)
        count.count = len(members)
        tally: dict[str, int] = {}
        for member in members:
            hidden[member.id] = count.id
            for marker in member.markers:
                tally[marker] = tally.get(marker, 0) + 1
        count.markers = [f"{n} {marker}" for marker, n in sorted(tally.items())]
        out.nodes[count.id] = count
    links: set[Link] = set()
    for link in forest.links:
        child = hidden.get(link.child, link.child)
        links.add(Link(link.parent, child, link.type, link.reason, link.selected and child == link.child))
    out.links = list(links)
    return finish(out)
