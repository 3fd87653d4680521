"""What the emitted objects must not do to each other, and where ``--output-dir`` puts each one.

Two emitted objects with one identity (API group, kind, namespace, name) would overwrite each other
when applied: an error naming both sources (for two rendered objects, both InferenceServices and
OME's naming rule). ``files_for`` sends every object through the path guard (``output.paths``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from omerender import codes
from omerender.diagnostics import ERROR, Diagnostic
from omerender.load.obj import Obj
from omerender.ome import INFERENCE_SERVICE as ISVC

Pair = tuple[Obj | None, dict[str, Any]]  # (the input object, or None for a rendered one; the object)


def identity(body: dict[str, Any]) -> tuple[str, str, str, str]:
    """What the API server keys an object on: API group, kind, namespace and name."""
    found = body.get("metadata")
    meta: dict[str, Any] = found if isinstance(found, dict) else {}
    group = str(body.get("apiVersion", "")).rpartition("/")[0]
    return (group, str(body.get("kind", "")), str(meta.get("namespace") or ""), str(meta.get("name", "")))


def _naming_rule(body: dict[str, Any]) -> str:
    name = str((body.get("metadata") or {}).get("name", ""))
    if body.get("kind") == "ConfigMap" and name.startswith("modelconfig-"):
        return "OME names the model ConfigMap modelconfig-<last 20 characters of the InferenceService name>"
    return "OME derives this name from the InferenceService and component names, shortening long ones"


def _rendered_clash(
    key: tuple[str, str, str, str], body: dict[str, Any], first: list[Obj], second: list[Obj]
) -> Diagnostic | None:
    """Two InferenceServices that render one object: in a cluster they would overwrite each other forever."""
    owners = [s[0] for s in (first, second) if s and s[0].kind == ISVC]
    if not owners:
        return None
    names = " and ".join(dict.fromkeys(f"InferenceService {o.namespace}/{o.name}" for o in owners))
    message = (
        f"{key[1]} {'/'.join(filter(None, key[2:]))} is rendered for {names}; {_naming_rule(body)}, "
        "so in a cluster they would overwrite each other: rename one of them"
    )
    return owners[-1].diag(ERROR, message, "metadata", "name", code=codes.DUPLICATE_RENDERED)


def one_object_per_name(
    pairs: list[Pair],
    diagnostics: list[Diagnostic],
    replace_rendered: bool,
    origins: dict[int, list[Obj]] | None = None,
) -> list[Pair]:
    """Two emitted objects with one identity would overwrite each other when applied: an error, or
    under ``replace_rendered`` (a generator run again) the input copy of a rendered object is dropped."""
    origins = origins or {}
    keys = [identity(body) for _, body in pairs]
    rendered = {key for key, (source, _) in zip(keys, pairs, strict=True) if source is None}
    seen: dict[tuple[str, str, str, str], tuple[Obj | None, dict[str, Any]]] = {}
    kept: list[Pair] = []
    for key, (source, body) in zip(keys, pairs, strict=True):
        if source is not None and key in rendered and replace_rendered:
            continue
        if key in seen:
            first, first_body = seen[key]
            if source is None and first is None:
                clash = _rendered_clash(key, body, origins.get(id(first_body), []), origins.get(id(body), []))
                if clash is not None:
                    diagnostics.append(clash)
                continue
            other = (
                "an object omerender renders"
                if source is None or first is None
                else f"{first.path} (document {first.index + 1})"
            )
            where = source if source is not None else first
            assert where is not None
            message = (
                f"{key[1]} {'/'.join(filter(None, key[2:]))} is emitted twice: also {other}; applying both would keep "
                "only one"
            )
            diagnostics.append(where.diag(ERROR, message, "metadata", "name", code=codes.DUPLICATE_OUTPUT))
            continue
        seen[key] = (source, body)
        kept.append((source, body))
    return kept


def files_for(
    pairs: list[Pair], sources: Callable[[dict[str, Any]], list[Obj]]
) -> tuple[dict[str, dict[str, Any]], list[Diagnostic]]:
    """``--output-dir``'s files (relative path -> object) through the path guard, and its refusals located
    at the object (or the InferenceService an object is rendered for)."""
    from omerender.output.paths import plan

    planned = plan([(body, source.namespace if source else "") for source, body in pairs])
    problems: list[Diagnostic] = []
    for index, message, at in planned.problems:
        source, body = pairs[index]
        where = source or next(iter(sources(body)), None)
        keys = (at,) if at in ("kind", "apiVersion") else ("metadata", at)
        if where is not None:
            problems.append(where.diag(ERROR, message, *keys, code=codes.OUTPUT_PATH))
        else:
            problems.append(Diagnostic("<output>", 1, 1, ERROR, message, codes.OUTPUT_PATH))
    return planned.files, problems
