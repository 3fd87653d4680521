"""Rendered objects a worker process has already written (``build -j N``): their identity and their text.

A ``Prerendered`` is a small mapping holding only what the parent decides with (``apiVersion``, ``kind``,
name, namespace and the labels and annotations that name the InferenceService and runtime it is for, as
``emit.select``, the clash check and the ``--output-dir`` plan read them) and the text of the whole object
in the one form the run prints (``SHAPES``). The writers below put that text where the object's own text
would go, so a stream mixes objects written here and objects written by a worker, byte for byte alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

ISVC_LABEL = "ome.io/inferenceservice"
RUNTIME_ANNOTATION = "ome.io/serving-runtime"

YAML, JSON, FILES, NONE = "yaml", "json", "files", "none"
SHAPES = (YAML, JSON, FILES, NONE)
"""What text a worker writes: a YAML stream's documents, ``-o json`` items, ``--output-dir`` files, or none
(``-o name`` and ``--check`` without a folder print no object text)."""


class Prerendered(dict[str, Any]):
    """The identity of a rendered object (a plain mapping), with its text as a worker wrote it.

    ``text``: the object's YAML document after another one (with its ``---`` line), its ``-o json`` item, or
    its file (``dump_one``'s text); ``lead``: for YAML, its text first in a stream, kept for the first object
    of each worker only (the first of a merged output is always one of those); ``note``: the Flux
    substitution note the worker found for it, if any.
    """

    __slots__ = ("lead", "note", "text")

    def __init__(self, body: dict[str, Any], text: str = "", lead: str | None = None, note: Any = None) -> None:
        found = body.get("metadata")
        meta: dict[str, Any] = found if isinstance(found, dict) else {}
        kept: dict[str, Any] = {k: meta[k] for k in ("name", "namespace") if k in meta}
        labels, annotations = meta.get("labels"), meta.get("annotations")
        if isinstance(labels, dict) and ISVC_LABEL in labels:
            kept["labels"] = {ISVC_LABEL: labels[ISVC_LABEL]}
        if isinstance(annotations, dict) and RUNTIME_ANNOTATION in annotations:
            kept["annotations"] = {RUNTIME_ANNOTATION: annotations[RUNTIME_ANNOTATION]}
        super().__init__({k: body[k] for k in ("apiVersion", "kind") if k in body})
        self["metadata"] = kept
        self.text, self.lead, self.note = text, lead, note

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (dict(self), self.text, self.lead, self.note))


def _rebuild(identity: dict[str, Any], text: str, lead: str | None, note: Any) -> Prerendered:
    found = Prerendered.__new__(Prerendered)
    dict.update(found, identity)
    found.text, found.lead, found.note = text, lead, note
    return found


def written(bodies: list[dict[str, Any]], shape: str, notes: list[Any]) -> list[Prerendered]:
    """``bodies`` (in output order) as stand-ins holding their text in ``shape``; ``notes`` beside them."""
    if shape == YAML and bodies:
        from omerender.load.yamlwrite import Writer

        pieces = Writer().documents([bodies[0], *bodies])  # the first object once as first, then each after another
        lead: str | None = next(pieces)
        out = []
        for body, text, note in zip(bodies, pieces, notes, strict=True):
            out.append(Prerendered(body, text, lead, note))
            lead = None
        return out
    if shape == FILES:
        from omerender.load.yamlio import dump_each

        return [Prerendered(b, text, None, n) for b, text, n in zip(bodies, dump_each(bodies), notes, strict=True)]
    if shape == JSON:
        from omerender.output.jsonwrite import item_text

        return [Prerendered(b, item_text(b), None, n) for b, n in zip(bodies, notes, strict=True)]
    return [Prerendered(b, "", None, n) for b, n in zip(bodies, notes, strict=True)]


def _lead(found: Prerendered) -> str:
    if found.lead is None:  # the first object of any output is the first of some worker's: never here
        raise ValueError("a worker's object came first without its text as the first document")
    return found.lead


def yaml_documents(objects: list[Any]) -> Iterator[str]:
    """The YAML stream of ``objects`` in pieces (as ``Writer.documents``), stand-ins giving their own text."""
    from omerender.load.yamlwrite import Writer

    writer = Writer()
    position = 0
    while position < len(objects):
        end = position
        ready = isinstance(objects[position], Prerendered)
        while end < len(objects) and isinstance(objects[end], Prerendered) == ready:
            end += 1
        run = objects[position:end]
        if ready:
            for index, found in enumerate(run, position):
                yield _lead(found) if index == 0 else found.text
        elif position == 0:
            yield from writer.documents(run)
        else:  # written as if after another document: the run's first is written twice, its first form dropped
            pieces = writer.documents([run[0], *run])
            next(pieces)
            yield from pieces
        position = end


def json_pieces(objects: list[Any]) -> Iterator[str]:
    """The ``-o json`` list of ``objects`` in pieces (as ``jsonwrite.list_pieces``), stand-ins giving their text."""
    from omerender.output.jsonwrite import item_text, list_pieces

    return list_pieces(objects, lambda obj: obj.text if isinstance(obj, Prerendered) else item_text(obj))


def each_text(objects: list[Any]) -> Iterator[str]:
    """``Writer().each(objects)``, lazily (each text made when asked for), stand-ins giving their own text."""
    from omerender.load.yamlwrite import Writer

    own = Writer().each([o for o in objects if not isinstance(o, Prerendered)])
    for o in objects:
        yield o.text if isinstance(o, Prerendered) else next(own)
