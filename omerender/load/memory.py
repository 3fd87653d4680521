"""Objects from documents already in memory (a KRM ResourceList's items) instead of files.

Each document is written out and parsed back, so it gets a text to compose positions from like a
file's and the rest of omerender (positions, ``find_scalar``) works on it unchanged. ``path`` is whatever the caller
wants diagnostics to carry; the same checks as for files apply (kind, apiVersion, name, namespace).
"""

from __future__ import annotations

from collections.abc import Sequence

from omerender import codes
from omerender.data import Json
from omerender.diagnostics import ERROR, Diagnostic
from omerender.load.obj import Obj
from omerender.load.reader import to_object
from omerender.load.source import Source
from omerender.load.yamlio import parse_documents
from omerender.yamlwrite import dump_one


def objects_from_documents(
    documents: Sequence[tuple[str, Json]], namespace: str = "default"
) -> tuple[list[Obj], list[Diagnostic]]:
    """One Obj per ``(path, document)``; documents that cannot be objects become diagnostics."""
    objects: list[Obj] = []
    problems: list[Diagnostic] = []
    for path, document in documents:
        if not isinstance(document, dict):
            problems.append(Diagnostic(path, 1, 1, ERROR, "item is not a mapping", codes.NOT_A_MAPPING))
            continue
        text = dump_one(document)
        parsed = next(iter(parse_documents(text)), None)
        if parsed is None:
            problems.append(Diagnostic(path, 1, 1, ERROR, "item is empty", codes.NOT_A_MAPPING))
            continue
        obj, problem = to_object(Source(path, text), parsed, namespace)
        if problem is not None:
            problems.append(problem)
        if obj is not None:
            objects.append(obj)
    return objects, problems
