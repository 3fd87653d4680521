"""Which runtimes become children of which profiles: grouping, naming and the profile hierarchy.

Pure: takes the resolved universe and chains, returns a ``Plan`` of profile specs, child specs and
the runtimes left flat with the reason. Runtimes are grouped by engine (the runner image's
repository), whether they are multi-node, and which components they configure. Each group of two
or more gets an engine profile; its members are then split by GPU class (the engine's resources,
node selector and tolerations) and a class shared by two or more members gets a profile of its
own below the engine profile, when that saves lines. Every child is proved against the pure merge
before it is planned; a member that does not prove is left flat (so are the runtimes the proof
would need to bend: auto-selected ones, ones that inherit or are inherited from).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from omerender.factor import extract
from omerender.load.obj import Obj
from omerender.ome import CLUSTER_SERVING_RUNTIME as CSR
from omerender.ome import COMPONENTS, INHERIT_FROM
from omerender.ome import SERVING_RUNTIME as SR
from omerender.resolve.index import Universe, runtime_key
from omerender.resolve.inherit import Chain, is_profile
from omerender.resolve.merge import is_unset, merge

RUNNER_PATHS = (("runner",), ("leader", "runner"), ("worker", "runner"))
CLASS_FIELDS = ("resources", "nodeSelector", "tolerations", "affinity")
MAX_GROUP = 10_000
MAX_ROUNDS = 8  # extraction rounds per group; members still failing after them stay flat


@dataclass
class Profile:
    name: str
    parent: str | None
    spec: dict[str, Any]  # without disabled: true, added when written
    members: list[str] = field(default_factory=list)  # runtime keys, or profile names below it
    namespace: str | None = None  # a ServingRuntime in this namespace; None: a ClusterServingRuntime
    home: str = ""  # where its children are read from (``homes``): the profile is written there


@dataclass
class Child:
    runtime: Obj
    parent: str
    spec: dict[str, Any]
    converted: bool = False  # was auto-selected: its formats get autoSelect: false


@dataclass
class Flat:
    runtime: Obj
    reason: str


@dataclass
class Plan:
    profiles: list[Profile] = field(default_factory=list)
    children: list[Child] = field(default_factory=list)
    flat: list[Flat] = field(default_factory=list)
    inheriting: list[Obj] = field(default_factory=list)  # runtimes that already inherit: left as they are
    reused: list[str] = field(default_factory=list)  # existing profiles the children inherit from


def auto_selected(spec: dict[str, Any]) -> bool:
    formats = spec.get("supportedModelFormats")
    return isinstance(formats, list) and any(isinstance(f, dict) and f.get("autoSelect") is True for f in formats)


def without_auto_select(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` with ``autoSelect: false`` wherever a supported model format sets ``autoSelect: true``."""
    formats = spec.get("supportedModelFormats")
    if not isinstance(formats, list):
        return spec
    turned = [{**f, "autoSelect": False} if isinstance(f, dict) and f.get("autoSelect") is True else f for f in formats]
    return {**spec, "supportedModelFormats": turned}


def _get(value: Any, *keys: str) -> Any:
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _multinode(spec: dict[str, Any]) -> bool:
    return any(
        _get(spec, f"{c}Config", part) is not None for c in ("engine", "decoder") for part in ("leader", "worker")
    )


def image_repository(spec: dict[str, Any]) -> str:
    for path in RUNNER_PATHS:
        image = _get(spec, "engineConfig", *path, "image")
        if isinstance(image, str) and image:
            repo = image.split("@", 1)[0]
            slash = repo.rfind("/")
            colon = repo.rfind(":")
            return repo[:colon] if colon > slash else repo
    return ""


def group_key(spec: dict[str, Any]) -> tuple[str, bool, tuple[str, ...]]:
    return (
        image_repository(spec),
        _multinode(spec),
        tuple(c for c in COMPONENTS if isinstance(spec.get(f"{c}Config"), dict)),
    )


def default_name(key: tuple[str, bool, tuple[str, ...]]) -> str:
    repo, multinode, components = key
    base = re.sub(r"[^a-z0-9]+", "-", repo.rsplit("/", 1)[-1].lower()).strip("-") or "runtime"
    parts = [base]
    if "decoder" in components:
        parts.append("pd")
    if multinode:
        parts.append("multinode")
    return "-".join(parts)


def _scoped(runtimes: list[Obj]) -> tuple[set[str], dict[str, set[str]]]:
    """The ClusterServingRuntime names, and the ServingRuntime names of each namespace."""
    cluster = {r.name for r in runtimes if r.kind == CSR}
    by_namespace: dict[str, set[str]] = {}
    for r in runtimes:
        if r.kind == SR:
            by_namespace.setdefault(r.namespace or "", set()).add(r.name)
    return cluster, by_namespace


class Names:
    """The runtime names a new profile must not take. A ClusterServingRuntime profile: no runtime's name, in any
    namespace (a ServingRuntime of that name would shadow it there). A ServingRuntime profile in a namespace: no
    ClusterServingRuntime's name (it would shadow that one in its namespace) and no name in that namespace, among
    ``runtimes`` (what the run reads) and, for a ServingRuntime profile, ``elsewhere`` too (the rest of the
    repository: a cluster profile's clash with those is refused instead, ``consumers.clashes``)."""

    def __init__(self, runtimes: list[Obj], elsewhere: list[Obj] | None = None) -> None:
        self.cluster, self.by_namespace = _scoped(runtimes)
        self.other_cluster, self.other_namespaces = _scoped(elsewhere or [])
        self.anywhere = self.cluster | {n for names in self.by_namespace.values() for n in names}
        self.new: set[str] = set()  # one run's profiles never share a name, whatever their namespaces

    def taken(self, name: str, namespace: str | None) -> bool:
        if namespace is None or name in self.new:
            return name in self.anywhere
        scopes = (
            self.cluster,
            self.other_cluster,
            *(n.get(namespace, set()) for n in (self.by_namespace, self.other_namespaces)),
        )
        return any(name in scope for scope in scopes)

    def unique(self, stem: str, namespace: str | None) -> str:
        """``STEM-profile``, or ``STEM-2-profile`` and so on when that name is taken (see the class)."""
        stem, n = stem[:230], 2
        candidate = f"{stem}-profile"
        while self.taken(candidate, namespace):
            candidate = f"{stem}-{n}-profile"
            n += 1
        self.anywhere.add(candidate)
        self.new.add(candidate)
        if namespace is None:
            self.cluster.add(candidate)
        else:
            self.by_namespace.setdefault(namespace, set()).add(candidate)
        return candidate


def _top(spec: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in spec.items() if not is_unset(v)}


def _with_runner_names(child: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    """A child that restates part of a runner keeps its ``name`` (the CRD requires one)."""
    for component in COMPONENTS:
        for path in RUNNER_PATHS:
            runner = _get(child, f"{component}Config", *path)
            name = _get(spec, f"{component}Config", *path, "name")
            if isinstance(runner, dict) and "name" not in runner and name is not None:
                restated = {"name": name, **runner}
                runner.clear()
                runner.update(restated)
    return child


def _lines(value: Any) -> int:
    """A rough line count of ``value`` written as block YAML: enough to compare two plans."""
    if isinstance(value, dict):
        return sum(1 + (_lines(v) if isinstance(v, (dict, list)) and v else 0) for v in value.values())
    if isinstance(value, list):
        return sum(max(1, _lines(v)) if isinstance(v, (dict, list)) else 1 for v in value)
    return 1


PROVE_IN_WORKERS = 64
"""With more processes than one, the children of a profile are proved in workers from this many on (each proof merges
both sides: 200 children of 400 env entries each took about 0.9 s in one process)."""


def _verdicts(checks: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]], jobs: int) -> list[bool]:
    """``extract.proves`` of each (profile, child, spec), in ``jobs`` processes when there are many."""

    def one(check: tuple[dict[str, Any], dict[str, Any], dict[str, Any]]) -> bool:
        return extract.proves(*check)

    if jobs > 1 and len(checks) >= PROVE_IN_WORKERS:
        from omerender.fanout import map_in_workers  # here: forking is for large plans only (start-up)

        return map_in_workers(checks, one, jobs, "proving")
    return [one(check) for check in checks]


def _proved(specs: list[dict[str, Any]], jobs: int = 1) -> tuple[dict[str, Any], list[dict[str, Any]], list[int]]:
    """The profile for ``specs`` and the children that prove; indices of members that do not."""
    members = list(range(len(specs)))
    dropped: list[int] = []
    for _ in range(MAX_ROUNDS):  # each round drops a member at least; a bound keeps the worst case linear
        if len(members) < 2:
            break
        shared, children = extract.extract([specs[i] for i in members])
        checks = [(shared, c, specs[i]) for i, c in zip(members, children, strict=True)]
        failed = {i for i, ok in zip(members, _verdicts(checks, jobs), strict=True) if not ok}
        if not failed:
            out: list[dict[str, Any]] = [{} for _ in specs]
            for i, c in zip(members, children, strict=True):
                out[i] = c
            return shared, out, dropped
        dropped.extend(sorted(failed))
        members = [i for i in members if i not in failed]
    return {}, [], dropped + members


def kept_first(dropped: list[int], size: int) -> int:
    gone = set(dropped)
    return next(i for i in range(size) if i not in gone)


def _gpu_class(child: dict[str, Any]) -> str:
    engine = child.get("engineConfig")
    picked = {f: engine.get(f) for f in CLASS_FIELDS} if isinstance(engine, dict) else {}
    runner = _get(engine, "runner", "resources")
    return extract._canon([picked, runner])


def plan(
    universe: Universe,
    chains: dict[str, Chain],
    rename: Callable[[str], str] = lambda name: name,
    deep: bool = True,
    convert_auto: bool = False,
    owned: Callable[[Obj], bool] = lambda runtime: True,
    jobs: int = 1,
    home: Callable[[Obj], str] = lambda runtime: "",
    cluster: bool = False,
    elsewhere: list[Obj] | None = None,
) -> Plan:
    """``owned``: the runtimes factor may rewrite (the others, read from search paths, only take their names);
    ``jobs``: processes that may prove a large group's children; ``home``: where a runtime's profile must be read
    (children of one profile share it); ``cluster``: ServingRuntimes get ClusterServingRuntime profiles too (else
    a ServingRuntime profile in their namespace, one per namespace); ``elsewhere``: the runtimes of the rest of
    the repository (``Names``)."""
    result = Plan()
    every = sorted(universe.all_runtimes(), key=lambda r: (r.kind, r.namespace, r.name))
    names = Names(every, elsewhere)
    runtimes = [r for r in every if owned(r)]
    parents = {str(r.annotations[INHERIT_FROM]) for r in every if r.annotations.get(INHERIT_FROM)}
    groups: dict[tuple[str, str, tuple[str, bool, tuple[str, ...]]], list[Obj]] = {}
    for runtime in runtimes:
        spec = runtime.spec
        if is_profile(runtime):
            continue
        reason = ""
        if runtime.annotations.get(INHERIT_FROM):
            result.inheriting.append(runtime)
            continue
        if runtime.name in parents:
            reason = "other runtimes inherit from it"
        elif auto_selected(spec) and not convert_auto:
            reason = "autoSelect: true (OME renders a runtime it selects from its own spec, without inheritance)"
        elif spec.get("disabled") is not False and spec.get("disabled") is not True:
            reason = "sets no spec.disabled, so as a child of a disabled profile its merged spec would change"
        elif runtime.kind == SR and runtime.name in universe.cluster_runtimes:
            reason = "a ClusterServingRuntime has its name"
        if reason:
            result.flat.append(Flat(runtime, reason))
            continue
        namespace = runtime.namespace if runtime.kind == SR and not cluster else ""
        groups.setdefault((home(runtime), namespace, group_key(spec)), []).append(runtime)
    for place, namespace, key in sorted(groups, key=lambda group: (group[1] != "", group)):  # cluster ones first
        scope = namespace or None
        members = groups[place, namespace, key][:MAX_GROUP]
        result.flat.extend(
            Flat(r, f"its group has more than {MAX_GROUP} members; factor takes the first {MAX_GROUP}")
            for r in groups[place, namespace, key][MAX_GROUP:]
        )
        if len(members) < 2:
            result.flat.extend(Flat(r, "no other runtime shares its engine, topology and components") for r in members)
            continue
        specs = [_top(without_auto_select(chains[runtime_key(r)].spec or r.spec)) for r in members]
        shared, children, dropped = _proved(specs, jobs)
        result.flat.extend(Flat(members[i], "its spec cannot be restated over a shared profile") for i in dropped)
        gone = set(dropped)
        if not shared:
            kept = [i for i in range(len(members)) if i not in gone]
            result.flat.extend(Flat(members[i], "its group shares nothing every member can inherit") for i in kept)
            continue
        name = names.unique(rename(default_name(key)), scope)
        top = Profile(
            name, None, _with_runner_names(shared, specs[kept_first(dropped, len(members))]), [], scope, place
        )
        result.profiles.append(top)
        kept = [i for i in range(len(members)) if i not in gone]
        classes: dict[str, list[int]] = {}
        for i in kept:
            classes.setdefault(_gpu_class(children[i]), []).append(i)
        for n, klass in enumerate(sorted(classes.values(), key=lambda c: (-len(c), c[0]))):
            sub = _subprofile(shared, [specs[i] for i in klass], [children[i] for i in klass]) if deep else None
            if sub is None:
                for i in klass:
                    child = _with_runner_names(children[i], specs[i])
                    result.children.append(Child(members[i], name, child, auto_selected(members[i].spec)))
                    top.members.append(runtime_key(members[i]))
                continue
            sub_spec, sub_children = sub
            sub_name = names.unique(
                f"{name.removesuffix('-profile')}-{_class_label(merge(shared, sub_spec), n)}", scope
            )
            sub_spec = _with_runner_names(sub_spec, merge(shared, sub_spec))
            result.profiles.append(Profile(sub_name, name, sub_spec, [], scope, place))
            top.members.append(sub_name)
            for i, c in zip(klass, sub_children, strict=True):
                child = _with_runner_names(c, specs[i])
                result.children.append(Child(members[i], sub_name, child, auto_selected(members[i].spec)))
                result.profiles[-1].members.append(runtime_key(members[i]))
        top.members.sort()
    return result


def _class_label(spec: dict[str, Any], n: int) -> str:
    for resources in (_get(spec, "engineConfig", "resources"), _get(spec, "engineConfig", "runner", "resources")):
        gpus = _get(resources, "limits", "nvidia.com/gpu") or _get(resources, "requests", "nvidia.com/gpu")
        if isinstance(gpus, (int, str)) and re.fullmatch(r"[0-9]{1,4}", str(gpus)):
            return f"{gpus}gpu"
    return f"class{n + 1}"


def _subprofile(
    shared: dict[str, Any], specs: list[dict[str, Any]], children: list[dict[str, Any]]
) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """A profile below ``shared`` for one class of members, if it proves and saves lines."""
    if len(specs) < 2:
        return None
    sub, subchildren = extract.extract(children)
    if not sub:
        return None
    base = merge(shared, sub)
    if not all(extract.proves(base, c, s) for c, s in zip(subchildren, specs, strict=True)):
        return None
    before = sum(_lines(c) for c in children)
    after = _lines(sub) + 8 + sum(_lines(c) for c in subchildren)  # 8: a profile's apiVersion, kind, metadata
    return (sub, subchildren) if after < before else None


def reuse_existing(p: Plan, universe: Universe, readable: Callable[[Obj, Profile], bool] = lambda r, p: True) -> None:
    """A planned profile that an existing profile already is (same kind and namespace, same parent, same spec with
    ``disabled: true``) and that every build reading its children reads (``readable``) is not written again: its
    children inherit from the existing one."""
    existing: dict[tuple[str | None, str, str], list[Obj]] = {}
    for runtime in universe.all_runtimes():
        if not is_profile(runtime):
            continue
        scope = runtime.namespace if runtime.kind == SR else None
        parent = str(runtime.annotations.get(INHERIT_FROM) or "")
        existing.setdefault((scope, parent, extract._canon(runtime.spec)), []).append(runtime)
    renamed: dict[str, str] = {}
    kept: list[Profile] = []
    for profile in p.profiles:  # parents before the profiles below them
        profile.parent = renamed.get(profile.parent or "", profile.parent)
        key = (profile.namespace, profile.parent or "", extract._canon({"disabled": True, **profile.spec}))
        found = next((r.name for r in existing.get(key, []) if readable(r, profile)), None)
        if found is None:
            kept.append(profile)
        else:
            renamed[profile.name] = found
    for profile in kept:
        profile.members = [renamed.get(m, m) for m in profile.members]
    for child in p.children:
        child.parent = renamed.get(child.parent, child.parent)
    p.profiles = kept
    p.reused = sorted(set(renamed.values()))
