"""Which input set a value of a rendered pod: the InferenceService, or a runtime of the chain.

A rendered container is the merge of the same-named container (or runner) of every source, so the
sources are searched at the same place in their own spec: ``spec.<component>`` of the
InferenceService, then ``spec.<component>Config`` of each runtime from the chain's leaf to its
root (and a runtime's top-level ``spec.containers``, where OME takes fallback resources from).
The first source that sets a value is the one whose value won the merge. Items of keyed lists are
matched on the key the merge itself uses (``resolve.merge.MERGE_KEYS``), so this module holds no merge
knowledge of its own; ``resolve.origin`` answers the same question for every field of a merged spec
(``--show-origin``), by running the merge on tagged values, but without file positions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from omerender.diagnostics import Diagnostic, Severity
from omerender.load.obj import Obj
from omerender.load.yamlio import find_scalar
from omerender.ome import CONFIG_FIELD, INFERENCE_SERVICE
from omerender.resolve.merge import MERGE_KEYS

POD_PARTS = ((), ("leader",), ("worker",))
Keys = tuple[Any, ...]


@dataclass(frozen=True)
class Place:
    source: Obj
    keys: Keys

    @property
    def who(self) -> str:
        return describe(self.source)


def describe(source: Obj) -> str:
    return f"InferenceService {source.name}" if source.kind == INFERENCE_SERVICE else f"runtime {source.name}"


def get(value: Any, keys: Keys) -> Any:
    for key in keys:
        if isinstance(value, dict) and isinstance(key, str):
            value = value.get(key)
        elif isinstance(value, list) and isinstance(key, int) and 0 <= key < len(value):
            value = value[key]
        else:
            return None
    return value


class Blame:
    """Finds the sources that set parts of one component's rendered pod."""

    def __init__(self, sources: tuple[Obj, ...], component: str, main_container: str) -> None:
        self.sources = sources
        self.component = component
        self.main = main_container

    def rank(self, source: Obj) -> int:
        """Precedence of a source: 0 for the InferenceService, then the chain from leaf to root."""
        return next((i for i, s in enumerate(self.sources) if s is source), len(self.sources))

    def _pod_roots(self, source: Obj) -> list[Keys]:
        if source.kind == INFERENCE_SERVICE:
            base: Keys = ("spec", self.component)
        else:
            base = ("spec", CONFIG_FIELD.get(self.component, "engineConfig"))
        return [base + part for part in POD_PARTS]

    def container_places(self, name: str) -> list[Place]:
        places: list[Place] = []
        for source in self.sources:
            for root in self._pod_roots(source):
                runner = get(source.body, (*root, "runner"))
                if isinstance(runner, dict) and (
                    runner.get("name") == name or (not runner.get("name") and name == self.main)
                ):
                    places.append(Place(source, (*root, "runner")))
                for field in ("containers", "initContainers"):
                    places += self._items(source, (*root, field), name)
            if source.kind != INFERENCE_SERVICE:
                places += self._items(source, ("spec", "containers"), name)
        return places

    def volume_places(self, name: str) -> list[Place]:
        return [
            p for s in self.sources for root in self._pod_roots(s) for p in self._items(s, (*root, "volumes"), name)
        ]

    def item_places(self, container: str, field: str, value: Any) -> list[Place]:
        """Where the item of a container's keyed list ``field`` with merge key ``value`` is set."""
        return [q for p in self.container_places(container) for q in self._items(p.source, (*p.keys, field), value)]

    @staticmethod
    def _items(source: Obj, keys: Keys, value: Any) -> list[Place]:
        key = MERGE_KEYS[keys[-1]]
        items = get(source.body, keys)
        if not isinstance(items, list):
            return []
        return [
            Place(source, (*keys, i))
            for i, item in enumerate(items)
            if isinstance(item, dict) and item.get(key) == value
        ]

    @staticmethod
    def setters(places: list[Place], sub: Keys) -> list[Place]:
        """The places that set ``sub`` below them (even to ``{}``), in precedence order (the winner first)."""
        found = []
        for place in places:
            if get(place.source.body, place.keys + sub) is not None:
                found.append(Place(place.source, place.keys + sub))
        return found

    def fallback(self) -> Place:
        isvc = self.sources[0]
        return Place(isvc, ("spec", self.component))

    def at(self, place: Place | None, severity: Severity, message: str, code: str) -> Diagnostic:
        place = place or self.fallback()
        return place.source.diag(severity, message, *place.keys, code=code)

    def text_at(self, needle: str, severity: Severity, message: str, code: str) -> Diagnostic:
        """Located at the first source holding ``needle`` in a scalar, else at the component."""
        for source in self.sources:
            found = find_scalar(source.node, needle)
            if found is not None:
                return Diagnostic(source.path, found[0], found[1], severity, message, code)
        return self.at(None, severity, message, code)


def sides(places: list[Place], joiner: str = "and") -> str:
    """``runtime a`` / ``runtime a and runtime b``: who set something, without repeats; ``joiner`` "or" for
    alternatives (where one of them should set it)."""
    names = list(dict.fromkeys(p.who for p in places))
    if not names:
        return "OME"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" {joiner} " + names[-1]
