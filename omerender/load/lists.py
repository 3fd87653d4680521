"""List documents read as their items, as kubectl reads them: what ``kubectl get -o yaml`` and ``build -o json``
print (``kind: List``, ``ServingRuntimeList``, any kind ending in ``List``) holds its objects under ``items``.

kubectl (1.32, ``kubectl label --local -f``) reads every mapping with an ``items`` list as a list of objects,
whatever its kind; refuses ``items`` that is not a list, an item that is not a mapping, and a list inside a list.
So does omerender, with the item's own line and column. Each item is a ``ParsedDocument`` of its own (its node and
data below the list's), numbered by the list's document; the items are part of the document, so the run's node
budget already bounds them, and one pass over them reads them.
"""

from __future__ import annotations

from typing import Any

from omerender.load.yamlio import ParsedDocument, child

ITEMS = "items"


def is_list(data: Any) -> bool:
    """A mapping kubectl reads as a list: ``items`` holds a list, or the kind ends in ``List`` and ``items`` is set."""
    if not isinstance(data, dict) or ITEMS not in data:
        return False
    kind = data.get("kind")
    return isinstance(data[ITEMS], list) or (isinstance(kind, str) and kind.endswith("List"))


def items(doc: ParsedDocument) -> tuple[list[tuple[int, ParsedDocument]], list[tuple[ParsedDocument, str]]]:
    """The items of list document ``doc``, each with its position in ``items``, and the problems kubectl refuses,
    each at the document (or item) it is about."""
    found = doc.data[ITEMS]
    if found is None:
        return [], []
    where = child(doc.node, ITEMS)
    if not isinstance(found, list) or where is None:
        at = ParsedDocument(doc.index, found, where if where is not None else doc.node, 0, doc.tidy)
        return [], [(at, f"{_name(doc.data)}: items must be a list of objects, as kubectl reads a List")]
    out: list[tuple[int, ParsedDocument]] = []
    problems: list[tuple[ParsedDocument, str]] = []
    for index, data in enumerate(found):
        node = child(where, index)
        item = ParsedDocument(doc.index, data, node if node is not None else where, 0, doc.tidy)
        if not isinstance(data, dict):
            problems.append((item, f"item {index + 1} of {_name(doc.data)} is not a mapping"))
        elif is_list(data):
            problems.append(
                (
                    item,
                    f"item {index + 1} of {_name(doc.data)} is a list itself: kubectl does not read a list inside a "
                    "list either; write its items into the outer one",
                )
            )
        else:
            out.append((index, item))
    return out, problems


def _name(data: dict[str, Any]) -> str:
    kind = data.get("kind")
    return f"the {kind}" if isinstance(kind, str) and kind else "the list"
