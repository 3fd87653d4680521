"""The blast radius of a change: which runtimes' merged specs changed, which InferenceServices roll out.

``compare`` takes two finished builds (before and after) and returns a ``DiffReport`` (``changes.report``):

* ``runtimes``: every runtime whose merged spec (its revision) changed, appeared, went away or broke;
* ``rollouts``: InferenceServices whose rendered objects change, each with its field-level changes
  (``fielddiff``: keyed lists compared by key; added, removed, changed, reordered) and, for every change, the
  layer it came from: the runtime in the chain, the InferenceService, or ``(controller)`` for what OME derives
  itself (model path, labels, defaults);
* ``drifting``: pinned InferenceServices (``autoSync: false`` or ``spec.runtime.revision``) whose live
  runtime changed but which keep rendering their snapshot;
* ``created``, ``deleted`` and ``broken`` (no longer renders: in a cluster its pods keep serving).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

from omerender import ome
from omerender.changes import fielddiff
from omerender.changes.fielddiff import Item, Segment
from omerender.changes.report import (
    Broken,
    Change,
    DiffReport,
    Drifting,
    ObjectChange,
    Revisions,
    Rollout,
    RuntimeChange,
)
from omerender.lifecycle.lock import isvc_key, revision_of
from omerender.lifecycle.settle import Effective
from omerender.load.obj import Obj
from omerender.names import shown_as
from omerender.resolve import origin
from omerender.resolve.index import runtime_key
from omerender.resolve.inherit import is_profile
from omerender.resolve.merge import MERGE_KEYS
from omerender.result import BuildResult

CONTROLLER = "(controller)"
TEMPLATES = {"leaderTemplate": ".leader", "workerTemplate": ".worker"}


def runtime_revisions(result: BuildResult) -> dict[str, str]:
    out: dict[str, str] = {}
    for runtime in result.universe.all_runtimes():
        chain = result.chains[runtime_key(runtime)]
        out[runtime_key(runtime)] = (
            revision_of(chain.spec) if chain.ok and chain.spec is not None else f"broken ({chain.reason})"
        )
    return out


def effective_tree(record: Effective | None) -> Any:
    """The tagged merged spec ``record`` renders from, with the InferenceService's components laid over."""
    if record is None or record.spec is None:
        return {}
    live = record.live
    if live is not None and live.ok:
        tagged = origin.merge_layers([(shown_as(r.kind, r.namespace, r.name), r.spec) for r in live.runtimes])
    else:
        tagged = {}
    if record.source != "live":
        table = origin.snapshot_origins(record.spec, tagged, f"revision {record.revision}")
        tagged = origin.retag(record.spec, table, f"revision {record.revision}")
    isvc = record.isvc
    return origin.with_components(tagged, shown_as(isvc.kind, isvc.namespace, isvc.name), isvc.spec)


def _owner(meta: dict[str, Any], isvcs: list[str]) -> str:
    """The InferenceService an object belongs to: its label, else the longest name it starts with."""
    owner = (meta.get("labels") or {}).get("ome.io/inferenceservice")
    if owner:
        return f"{meta.get('namespace', '')}/{owner}"
    name = f"{meta.get('namespace', '')}/{meta.get('name', '')}"
    return max((k for k in isvcs if name.startswith(k)), key=len, default=name)


def object_label(obj: dict[str, Any]) -> str:
    """``Kind/name``, or ``Kind.group/name`` outside the core group (as ``-o name`` names it), so that a Knative
    ``Service.serving.knative.dev/x`` is neither mistaken for nor merged with a core ``Service/x``."""
    api_version = str(obj.get("apiVersion", ""))
    group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
    name = (obj.get("metadata") or {}).get("name")
    return f"{obj.get('kind')}.{group}/{name}" if group else f"{obj.get('kind')}/{name}"


def _objects_by_isvc(result: BuildResult) -> dict[str, dict[str, dict[str, Any]]]:
    out: dict[str, dict[str, dict[str, Any]]] = {}
    isvcs = [isvc_key(i) for i in result.universe.isvcs.values()]
    for obj in result.objects:
        meta = obj.get("metadata") or {}
        key = _owner(meta, isvcs)
        out.setdefault(key, {})[object_label(obj)] = obj
    return out


def _at(obj: Any, keys: list[Any]) -> Any:
    for key in keys:
        try:
            obj = obj[key]
        except (KeyError, IndexError, TypeError):
            return None
    return obj


def path_text(segments: tuple[Segment, ...]) -> str:
    """``spec.template.spec.containers[name=x].env[name=Y]``."""
    text = ""
    for segment in segments:
        text = text + segment.text() if isinstance(segment, Item) else origin.join(text, segment)
    return text


def _origin_text(segments: tuple[Segment, ...]) -> str:
    """``path_text`` as the origin tables write it: up to the first item of a list they index by position."""
    field = ""
    for i, segment in enumerate(segments):
        if isinstance(segment, Item):
            if segment.fields != (MERGE_KEYS.get(field),):
                return path_text(segments[:i])
        else:
            field = segment
    return path_text(segments)


def _under(prefix: str, rest: str) -> str:
    return prefix + ("" if not rest else rest if rest.startswith("[") else "." + rest)


def _config_path(obj: dict[str, Any], keys: tuple[Segment, ...], runner: Any) -> str | None:
    """Where in the component's merged config a rendered object's field comes from, if anywhere."""
    component = str(((obj.get("metadata") or {}).get("labels") or {}).get("component", ""))
    config = ome.CONFIG_FIELD.get(component)
    if config is None:
        return None
    if obj.get("kind") == "HorizontalPodAutoscaler" and keys in (("spec", "minReplicas"), ("spec", "maxReplicas")):
        return f"{config}.{keys[1]}"
    if keys[:3] == ("spec", "template", "spec"):
        prefix, pod_keys = config, keys[3:]
    elif len(keys) > 4 and keys[:2] == ("spec", "leaderWorkerTemplate") and keys[3] == "spec":
        template = TEMPLATES.get(keys[2]) if isinstance(keys[2], str) else None
        if template is None:
            return None
        prefix, pod_keys = config + template, keys[4:]
    elif len(keys) > 2 and keys[0] == "metadata" and keys[1] in ("labels", "annotations"):
        return _under(config, _origin_text(keys[1:]))
    else:
        return None
    if len(pod_keys) >= 2 and pod_keys[0] == "containers" and isinstance(pod_keys[1], Item):
        name = pod_keys[1].values[0]
        base = f"{prefix}.runner" if name == runner else f"{prefix}.containers[name={name}]"
        return _under(base, _origin_text(pod_keys[2:]))
    return _under(prefix, _origin_text(pod_keys))


def _changes(
    old: dict[str, Any] | None,
    new: dict[str, Any] | None,
    table_old: dict[str, str],
    table_new: dict[str, str],
    runner: Any,
) -> tuple[Change, ...]:
    out: list[Change] = []
    for change in fielddiff.compare(old or {}, new or {}):  # an object that comes or goes: field by field
        removed = change.kind == "removed"
        where = old if removed else new
        source = _config_path(where, change.path, runner) if where is not None else None
        found = origin.lookup(table_old if removed else table_new, source) if source else ""
        out.append(Change(path_text(change.path), change.kind, change.old, change.new, found or CONTROLLER))
    return tuple(sorted(out, key=lambda c: (c.path, c.change)))


def _runner_name(tree: Any, component: str = "engine") -> Any:
    return origin.untag(_at(tree, [ome.CONFIG_FIELD[component], "runner", "name"]))


def _objects_changed(
    before: Effective | None, after: Effective, old_set: dict[str, dict[str, Any]], new_set: dict[str, dict[str, Any]]
) -> tuple[ObjectChange, ...]:
    """The rendered objects of one InferenceService that differ between the two builds, field by field."""
    tree_old, tree_new = effective_tree(before), effective_tree(after)
    table_old, table_new = origin.origins(tree_old), origin.origins(tree_new)
    objects = []
    for name in sorted(old_set.keys() | new_set.keys()):
        if old_set.get(name) == new_set.get(name):
            continue
        component = str(
            (((new_set.get(name) or old_set.get(name) or {}).get("metadata") or {}).get("labels") or {}).get(
                "component", "engine"
            )
        )
        runner = _runner_name(
            tree_new if name in new_set else tree_old,
            component if component in ome.CONFIG_FIELD else "engine",
        )
        objects.append(ObjectChange(name, _changes(old_set.get(name), new_set.get(name), table_old, table_new, runner)))
    return tuple(objects)


@dataclass(frozen=True)
class SideView:
    """What ``compare`` reads of one side: each runtime's revision (``runtimes``), the profiles, the runtimes
    a PATH holds (``owned``: the others were read only on a search path), and per InferenceService (namespace/name)
    its settled record and rendered objects. A side built once per lock is the union of one view per lock."""

    runtimes: dict[str, str]
    profiles: frozenset[str]
    owned: frozenset[str]
    records: dict[str, Effective]
    objects: dict[str, dict[str, dict[str, Any]]]
    isvcs: frozenset[str]


def view(
    result: BuildResult, searched: Callable[[Obj], bool] = lambda _: False, only: Collection[str] | None = None
) -> SideView:
    """``result`` as ``compare`` reads it; ``searched``: the objects read only on a search path; ``only``: the
    InferenceServices to keep (None: all)."""
    isvcs = {isvc_key(i) for i in result.universe.isvcs.values()}
    kept = isvcs if only is None else isvcs & set(only)
    runtimes = result.universe.all_runtimes()
    return SideView(
        runtimes=runtime_revisions(result),
        profiles=frozenset(runtime_key(r) for r in runtimes if is_profile(r)),
        owned=frozenset(runtime_key(r) for r in runtimes if not searched(r)),
        records={k: r for k, r in result.lifecycle.records.items() if k in kept},
        objects={k: o for k, o in _objects_by_isvc(result).items() if k in kept},
        isvcs=frozenset(kept),
    )


def merged(views: Sequence[SideView]) -> SideView:
    """One side from the views of its builds (one per lock), each holding other InferenceServices; the runtimes
    are the first view's (a lock changes no runtime's merged spec)."""
    first = views[0]
    return SideView(
        runtimes=first.runtimes,
        profiles=first.profiles,
        owned=first.owned,
        records={k: r for v in views for k, r in v.records.items()},
        objects={k: o for v in views for k, o in v.objects.items()},
        isvcs=frozenset(k for v in views for k in v.isvcs),
    )


def _used(side: SideView, compared: set[str]) -> set[str]:
    """The runtimes (keys) in the chains the ``compared`` InferenceServices of ``side`` render from."""
    used: set[str] = set()
    for key in compared:
        record = side.records.get(key)
        if record is None or record.runtime is None:
            continue
        used.add(record.runtime_key)
        used.update(runtime_key(r) for r in (record.live.runtimes if record.live is not None else ()))
    return used


def compare(old: BuildResult, new: BuildResult, hidden: set[str] | frozenset[str] = frozenset()) -> DiffReport:
    """``hidden``: InferenceServices (namespace/name) left out, such as those found on a --search-path."""
    return compare_views(view(old), view(new), hidden)


def compare_views(old: SideView, new: SideView, hidden: set[str] | frozenset[str] = frozenset()) -> DiffReport:
    """The report between two sides. A runtime read only on a search path is reported when the chain of a
    compared InferenceService holds it (on either side): what a search path changes that no PATH renders is not
    the PATHS' change."""
    revs_old, revs_new = old.runtimes, new.runtimes
    # A profile that is only added changes nothing by itself: the runtimes that come to inherit from it do. One
    # that takes the merged spec of a runtime that goes (a rename, a move) is shown, so the report says where it went.
    gone = {revs_old[key] for key in revs_old.keys() - revs_new.keys()}
    added_profiles = {key for key in new.profiles - revs_old.keys() if revs_new.get(key) not in gone}
    isvcs_old = set(old.isvcs) - hidden
    isvcs_new = set(new.isvcs) - hidden
    shown = old.owned | new.owned | _used(old, isvcs_old) | _used(new, isvcs_new)
    runtimes = tuple(
        RuntimeChange(key, revs_old.get(key), revs_new.get(key))
        for key in sorted(revs_old.keys() | revs_new.keys())
        if revs_old.get(key) != revs_new.get(key) and key not in added_profiles and key in shown
    )
    rec_old, rec_new = old.records, new.records
    objs_old, objs_new = old.objects, new.objects
    rollouts: list[Rollout] = []
    drifting: list[Drifting] = []
    broken: list[Broken] = []
    for key in sorted(isvcs_old & isvcs_new):
        before, after = rec_old.get(key), rec_new.get(key)
        if after is None or after.revision is None:
            if before is not None and before.revision is not None:
                broken.append(Broken(key, before.runtime_key, before.revision))
            continue
        if after.drifted and before is not None and before.live_revision != after.live_revision:
            live = Revisions(before.live_revision, after.live_revision)
            drifting.append(Drifting(key, after.runtime_key, after.revision, live))
        objects = _objects_changed(before, after, objs_old.get(key, {}), objs_new.get(key, {}))
        if objects:
            revision = Revisions(before.revision if before else None, after.revision)
            rollouts.append(Rollout(key, after.runtime_key, revision, objects))
    return DiffReport(
        runtimes=runtimes,
        rollouts=tuple(rollouts),
        drifting=tuple(drifting),
        created=tuple(sorted(isvcs_new - isvcs_old)),
        deleted=tuple(sorted(isvcs_old - isvcs_new)),
        broken=tuple(broken),
    )
