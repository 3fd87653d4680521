"""Runtime inheritance chains: parent lookup, the chain limits, the profile rule and the merged spec."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from omerender import codes
from omerender.diagnostics import ERROR, Diagnostic
from omerender.load.obj import Obj
from omerender.names import clip, hint
from omerender.ome import CLUSTER_SERVING_RUNTIME as CSR
from omerender.ome import INHERIT_FROM, RUNTIME_PROFILE
from omerender.ome import MAX_CHAIN_DEPTH as MAX_DEPTH
from omerender.ome import SERVING_RUNTIME as SR
from omerender.resolve.index import Universe, runtime_key
from omerender.resolve.merge import merge_chain

RESOLVED = "Resolved"
PARENT_NOT_FOUND = codes.PARENT_NOT_FOUND
INHERITANCE_CYCLE = codes.INHERITANCE_CYCLE
MAX_DEPTH_EXCEEDED = codes.MAX_DEPTH_EXCEEDED
RESOLVER_ERROR = codes.RESOLVER_ERROR
PARENT_INVALID = codes.PARENT_NOT_FOUND  # OME's reason: the API server never stored the parent; the message says why


@dataclass(frozen=True)
class Chain:
    """The outcome of resolving one runtime.

    ``runtimes`` holds the runtimes found, root first when the chain resolved, and in the order
    walked (the runtime written first) when it did not. ``spec`` is the merged spec, or ``None``.
    """

    runtime: Obj
    runtimes: tuple[Obj, ...]
    reason: str
    message: str
    spec: dict[str, Any] | None

    @property
    def ok(self) -> bool:
        return self.reason == RESOLVED

    @property
    def names(self) -> list[str]:
        return [r.name for r in self.runtimes]


def parent_name(runtime: Obj) -> str | None:
    value = runtime.annotations.get(INHERIT_FROM)
    if not isinstance(value, str) or value == "":
        return None  # a value that is not a string is admission's error (admission.annotations)
    return value


def _in_scope(universe: Universe, start: Obj) -> list[str]:
    """The names a parent of ``start`` can have: what a "did you mean" may offer."""
    names = list(universe.cluster_runtimes)
    if start.kind == SR:
        names += [name for (ns, name) in universe.runtimes if ns == start.namespace]
    return names


def _missing(universe: Universe, start: Obj, parent: str, names: list[str]) -> tuple[str, str]:
    """(reason, message) for a parent that is not in the universe: rejected at admission, or absent."""
    rejected = universe.rejected.get((start.kind, start.namespace, parent)) or universe.rejected.get((CSR, "", parent))
    if rejected is not None:
        where = f"{rejected.path}:{rejected.line}:{rejected.col}"
        return PARENT_INVALID, (
            f"inherit-from parent {_quote(parent)} is invalid, so the API server would not store it: see its error at "
            f"{where} (chain so far: {_fmt(names)})"
        )
    left_out = universe.left_out(SR if start.kind == SR else None, CSR, start.namespace, parent)
    return PARENT_NOT_FOUND, (
        f"inherit-from parent {_quote(parent)} not found (chain so far: {_fmt(names)})"
        + (f": {left_out}" if left_out else hint(parent, _in_scope(universe, start)))
    )


CYCLE_SEARCH = 64  # runtimes walked past the depth limit looking for a loop: bounded, so R runtimes cost O(R)


def _cycle_beyond(universe: Universe, start: Obj, walked: list[Obj], known: Known) -> list[str] | None:
    """Past the depth limit, whether the chain goes on to loop (within ``CYCLE_SEARCH`` more runtimes):
    its names up to the repeat, or None.

    ``known.ends`` remembers, per lookup scope and runtime, how many parents on its chain ends (a runtime
    without a parent, or a parent not found), or -1 for a chain that never ends: a chain that ends holds
    no loop, so a walk that meets a runtime known to end stops there. Shared by every runtime ``resolve_all`` resolves,
    it makes a long chain cost O(R) lookups instead of ``CYCLE_SEARCH`` per runtime.
    """
    ends = known.ends
    scope = start.namespace if start.kind == SR else ""
    names = [r.name for r in walked]
    seen = set(names)
    current = walked[-1]
    path: list[Obj] = []
    for _ in range(CYCLE_SEARCH):
        end = ends.get((scope, id(current)))
        if end is not None and end >= 0:  # its chain ends, so holds no loop (a loop never ends)
            _remember(ends, scope, path, end)
            return None
        path.append(current)
        parent = known.parent(current)
        found = None if parent is None or parent in seen else _lookup(universe, start, parent)
        if parent is not None and parent in seen:
            return [*names, parent]
        if found is None:
            _remember(ends, scope, path, 0)
            return None
        assert parent is not None
        names.append(parent)
        seen.add(parent)
        current = found
    _walk_on(universe, start, current, (path, seen, scope), known)
    return None


def _walk_on(
    universe: Universe,
    start: Obj,
    current: Obj,
    walk: tuple[list[Obj], set[str], str],
    known: Known,
) -> None:
    """After a search that found no loop: follow the chain on to its end or its first repeat, remembering either
    for every runtime met (-1: it never ends), so that later searches stop where this one went. Bounded: each
    step meets a name not met before, and there are only so many runtimes."""
    path, seen, scope = walk
    ends = known.ends
    for _ in range(len(universe.cluster_runtimes) + len(universe.runtimes) + 1):
        end = ends.get((scope, id(current)))
        if end is not None:
            break
        path.append(current)
        parent = known.parent(current)
        found = None if parent is None or parent in seen else _lookup(universe, start, parent)
        if found is None:
            end = -1 if parent is not None and parent in seen else 0
            break
        assert parent is not None
        seen.add(parent)
        current = found
    else:
        return
    if end < 0:
        for runtime in path:
            ends[(scope, id(runtime))] = -1
    else:
        _remember(ends, scope, path, end)


def _remember(ends: dict[tuple[str, int], int], scope: str, path: list[Obj], beyond: int) -> None:
    """The runtimes of ``path`` (each the parent of the one before) end ``beyond`` parents after its last one."""
    for index, runtime in enumerate(path):
        ends[(scope, id(runtime))] = len(path) - 1 - index + beyond


def _lookup(universe: Universe, start: Obj, name: str) -> Obj | None:
    if start.kind == SR:
        return universe.runtime_named(name, start.namespace)
    return universe.cluster_runtimes.get(name)


def _fmt(names: list[str]) -> str:
    return "[" + " ".join(names) + "]"


def _quote(name: str) -> str:
    """``name`` in double quotes with control characters escaped, as Go's ``%q`` writes it; cut to 80 characters
    (an annotation value can be megabytes long, and every message would echo it)."""
    return json.dumps(clip(name), ensure_ascii=False)


class Known:
    """What resolving learns once for every runtime of a universe: each runtime's parent name (by identity, asked
    once), and where chains end (``_cycle_beyond``). The universe must not change while it is in use."""

    def __init__(self) -> None:
        self.parents: dict[int, str | None] = {}
        self.ends: dict[tuple[str, int], int] = {}

    def parent(self, runtime: Obj) -> str | None:
        key = id(runtime)
        if key in self.parents:
            return self.parents[key]
        found = self.parents[key] = parent_name(runtime)
        return found


def resolve(universe: Universe, runtime: Obj, known: Known | None = None) -> Chain:
    known = known if known is not None else Known()
    walked: list[Obj] = [runtime]
    names = [runtime.name]
    current = runtime
    while (parent := known.parent(current)) is not None:
        if parent in names:
            return Chain(
                runtime, tuple(walked), INHERITANCE_CYCLE, f"inheritance cycle detected: {_fmt([*names, parent])}", None
            )
        found = _lookup(universe, runtime, parent)
        if found is None:
            reason, message = _missing(universe, runtime, parent, names)
            return Chain(runtime, tuple(walked), reason, message, None)
        if len(names) >= MAX_DEPTH:
            # Only a parent that exists makes the chain hold more than five runtimes.
            message = (
                f"inheritance chain exceeds max depth {MAX_DEPTH} (chain so far: {_fmt(names)}, next parent "
                f"{_quote(parent)})"
            )
            loop = _cycle_beyond(universe, runtime, [*walked, found], known)
            if loop is not None:
                message += f"; it is also an inheritance cycle: {_fmt(loop)}"
            return Chain(runtime, tuple(walked), MAX_DEPTH_EXCEEDED, message, None)
        if found.body.get("spec") is not None and not isinstance(found.body["spec"], dict):
            message = f'parent "{parent}" has a spec that is not a mapping (chain so far: {_fmt(names)})'
            return Chain(runtime, tuple(walked), RESOLVER_ERROR, message, None)
        walked.append(found)
        names.append(parent)
        current = found
    root_first = tuple(reversed(walked))
    spec = merge_chain([r.spec for r in root_first])
    return Chain(runtime, root_first, RESOLVED, "", spec)


def is_profile(runtime: Obj) -> bool:
    return runtime.annotations.get(RUNTIME_PROFILE) == "true"


def profile_problem(runtime: Obj) -> Diagnostic | None:
    """The admission rule: a runtime marked as a profile must set ``spec.disabled: true``."""
    if is_profile(runtime) and runtime.spec.get("disabled") is not True:
        keys: tuple[str, ...] = (
            ("spec", "disabled") if "disabled" in runtime.spec else ("metadata", "annotations", RUNTIME_PROFILE)
        )
        return runtime.diag(
            ERROR,
            f'runtimes carrying {RUNTIME_PROFILE}="true" must also set spec.disabled: true',
            *keys,
            code=codes.PROFILE_NOT_DISABLED,
        )
    return None


def chain_problem(chain: Chain) -> Diagnostic | None:
    if chain.ok:
        return None
    return chain.runtime.diag(ERROR, chain.message, "metadata", "annotations", INHERIT_FROM, code=chain.reason)


def resolve_all(universe: Universe) -> tuple[dict[str, Chain], list[Diagnostic]]:
    """Resolve every runtime; chains keyed by ``runtime_key``, and the problems of profiles. A broken chain's
    error (``chain_problem``) is left to the caller, which words it (the lifecycle: ``--keep-last-good``)."""
    chains: dict[str, Chain] = {}
    problems: list[Diagnostic] = []
    known = Known()  # the universe does not change meanwhile
    for runtime in universe.all_runtimes():
        chain = resolve(universe, runtime, known)
        chains[runtime_key(runtime)] = chain
        problem = profile_problem(runtime)
        if problem is not None:
            problems.append(problem)
    return chains, problems
