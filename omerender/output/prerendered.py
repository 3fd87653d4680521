"""Rendered objects a worker process has already written (``build -j N``): their identity and their text.

A ``Prerendered`` is a small mapping holding only what the parent decides with (``apiVersion``, ``kind``,
name, namespace and the labels and annotations that name the InferenceService and runtime it is for, as
``emit.select``, the clash check and the ``--output-dir`` plan read them), and where the worker put the text
of the whole object, in the one form the run prints (``SHAPES``): a span of the worker's scratch file
(``fanout.Scratch``), UTF-8. The text never enters the parent's memory as a whole: the writers below read
each span when they print it, so a stream mixes objects written here and objects written by a worker, byte
for byte alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from omerender.output.jsonwrite import item_text, list_pieces
from omerender.result import Resolved
from omerender.yamlwrite import Writer, dump_each

if TYPE_CHECKING:
    from omerender.diagnostics import Diagnostic
    from omerender.fanout import Scratch

ISVC_LABEL = "ome.io/inferenceservice"
RUNTIME_ANNOTATION = "ome.io/serving-runtime"

YAML, JSON, FILES, NONE = "yaml", "json", "files", "none"
SHAPES = (YAML, JSON, FILES, NONE)
"""What text a worker writes: a YAML stream's documents, ``-o json`` items, ``--output-dir`` files, or none
(``-o name`` and ``--check`` without a folder print no object text)."""
READ_BYTES = 1 << 20
"""Texts lying next to each other in a scratch file are read together, up to this many bytes."""

Span = tuple[int, int]
"""Where a text is in a scratch file: (offset, length in bytes)."""


class Prerendered(dict[str, Any]):
    """The identity of a rendered object (a plain mapping), with where its text is.

    ``span``: its YAML document after another one (with its ``---`` line), its ``-o json`` item, or its file
    (``dump_one``'s text); ``lead``: for YAML, its text first in a stream, kept for the first object of each
    worker only (the first of a merged output is always one of those); ``texts``: the scratch file both are
    in (set in the parent by ``adopt``); ``note``: the Flux substitution note the worker found for it, if any.
    """

    __slots__ = ("lead", "note", "span", "texts")

    def __init__(
        self, body: dict[str, Any], texts: Scratch, span: Span, lead: Span | None, note: Diagnostic | None
    ) -> None:
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
        self.texts, self.span, self.lead, self.note = texts, span, lead, note

    def __reduce__(self) -> tuple[Any, ...]:  # the scratch file stays behind: the parent adopts it
        return (_rebuild, (dict(self), self.span, self.lead, self.note))

    def data(self) -> bytes:
        """The object's text, UTF-8."""
        return self.texts.read(*self.span)


@dataclass
class PrerenderedBuild(Resolved):
    """A build whose InferenceServices forked workers rendered (``build -j``): ``objects`` are their stand-ins, in
    output order. The lifecycle's records of those InferenceServices stayed in the workers, so only ``build``
    takes it (a command that needs whole objects or every record takes a ``result.BuildResult``)."""

    objects: list[Prerendered] = field(default_factory=list)

    @classmethod
    def of(cls, resolved: Resolved, objects: list[Prerendered]) -> PrerenderedBuild:
        built = resolved.carried(cls)
        built.objects = objects
        return built


def _rebuild(identity: dict[str, Any], span: Span, lead: Span | None, note: Any) -> Prerendered:
    found = Prerendered.__new__(Prerendered)
    dict.update(found, identity)
    found.span, found.lead, found.note = span, lead, note
    return found


def adopt(stand_ins: list[Prerendered], texts: Scratch) -> None:
    """In the parent: the stand-ins a worker sent back find their text in ``texts``, the worker's scratch file."""
    for found in stand_ins:
        found.texts = texts


def _put(texts: Scratch, text: str) -> Span:
    data = text.encode("utf-8")
    return texts.put(data), len(data)


def written(bodies: list[dict[str, Any]], shape: str, notes: list[Any], texts: Scratch) -> list[Prerendered]:
    """``bodies`` (in output order) as stand-ins whose text in ``shape`` is put into ``texts``; ``notes``
    beside them."""
    none: Span = (0, 0)
    if shape == YAML and bodies:
        pieces = Writer().documents([bodies[0], *bodies])  # the first object once as first, then each after another
        lead: Span | None = _put(texts, next(pieces))
        out = []
        for body, text, note in zip(bodies, pieces, notes, strict=True):
            out.append(Prerendered(body, texts, _put(texts, text), lead, note))
            lead = None
        return out
    if shape == FILES:
        found = zip(bodies, dump_each(bodies), notes, strict=True)
        return [Prerendered(b, texts, _put(texts, text), None, n) for b, text, n in found]
    if shape == JSON:
        return [Prerendered(b, texts, _put(texts, item_text(b)), None, n) for b, n in zip(bodies, notes, strict=True)]
    return [Prerendered(b, texts, none, None, n) for b, n in zip(bodies, notes, strict=True)]


def _read_together(spans: Iterator[tuple[Scratch, Span]]) -> Iterator[bytes]:
    """The texts of ``spans`` in order, spans that follow each other in one scratch file read at once."""
    texts: Scratch | None = None
    start = end = 0
    for where, (offset, length) in spans:
        if where is texts and offset == end and end - start < READ_BYTES:
            end += length
            continue
        if texts is not None:
            yield texts.read(start, end - start)
        texts, start, end = where, offset, offset + length
    if texts is not None:
        yield texts.read(start, end - start)


def _lead(found: Prerendered) -> Span:
    if found.lead is None:  # the first object of any output is the first of some worker's: never here
        raise ValueError("a worker's object came first without its text as the first document")
    return found.lead


def yaml_documents(objects: list[Any]) -> Iterator[str | bytes]:
    """The YAML stream of ``objects`` in pieces (as ``Writer.documents``), stand-ins giving their own text."""
    writer = Writer()
    position = 0
    while position < len(objects):
        end = position
        ready = isinstance(objects[position], Prerendered)
        while end < len(objects) and isinstance(objects[end], Prerendered) == ready:
            end += 1
        run = objects[position:end]
        if ready:
            yield from _read_together(
                (found.texts, _lead(found) if index == 0 else found.span) for index, found in enumerate(run, position)
            )
        elif position == 0:
            yield from writer.documents(run)
        else:  # written as if after another document: the run's first is written twice, its first form dropped
            pieces = writer.documents([run[0], *run])
            next(pieces)
            yield from pieces
        position = end


def json_pieces(objects: list[Any]) -> Iterator[str | bytes]:
    """The ``-o json`` list of ``objects`` in pieces (as ``jsonwrite.list_pieces``), stand-ins giving their text."""
    return list_pieces(objects, lambda obj: obj.data() if isinstance(obj, Prerendered) else item_text(obj))


def each_text(objects: list[Any]) -> Iterator[str | bytes]:
    """``Writer().each(objects)``, lazily (each text made when asked for), stand-ins giving their own text."""
    own = Writer().each([o for o in objects if not isinstance(o, Prerendered)])
    for o in objects:
        yield o.data() if isinstance(o, Prerendered) else next(own)
