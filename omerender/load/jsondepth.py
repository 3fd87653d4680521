"""Reading JSON held in user data (a controller ConfigMap's keys, ``ARGOCD_APP_PARAMETERS``) with the nesting
bound YAML input has (``yamlio.MAX_DEPTH``): a value nested deeper is a ``ValueError`` naming the depth, before
the decoder can recurse into it."""

from __future__ import annotations

import json
import re

from omerender.data import Json

MAX_DEPTH = 100  # = yamlio.MAX_DEPTH (tested), not imported: the Argo CD plugin starts without the YAML loader

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


def deepest(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (strings skipped; malformed text is still counted)."""
    depth = most = 0
    for found in _BRACKET.finditer(_STRING.sub("", text)):
        if found.group() in "[{":
            depth += 1
            most = max(most, depth)
        else:
            depth = max(depth - 1, 0)
    return most


def loads(text: str, limit: int = MAX_DEPTH) -> Json:
    """``json.loads``, refusing first a value nested more than ``limit`` levels (``ValueError``)."""
    levels = deepest(text)
    if levels > limit:
        raise ValueError(f"JSON nests {levels} levels deep, more than the {limit} allowed")
    return json.loads(text)
