"""The blast radius of a change: which runtimes' merged specs changed, which InferenceServices roll out.

``compare`` takes two finished builds (before and after) and returns plain data:

* ``runtimes``: every runtime whose merged spec (its revision) changed, appeared, went away or broke;
* ``rollouts``: InferenceServices whose rendered objects change, each with its field-level changes
  (deepdiff) and, for every change, the layer it came from: the runtime in the chain, the
  InferenceService, or ``(controller)`` for what OME derives itself (model path, labels, defaults);
* ``drifting``: pinned InferenceServices (``autoSync: false`` or ``spec.runtime.revision``) whose live
  runtime changed but which keep rendering their snapshot;
* ``created``, ``deleted`` and ``broken`` (no longer renders: in a cluster its pods keep serving).
"""

from __future__ import annotations

from typing import Any

from omerender import ome
from omerender.lifecycle.lock import isvc_key, revision_of
from omerender.lifecycle.settle import Effective
from omerender.resolve import origin
from omerender.resolve.index import runtime_key
from omerender.resolve.inherit import is_profile
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
        tagged = origin.merge_layers([(r.name, r.spec) for r in live.runtimes])
    else:
        tagged = {}
    if record.source != "live":
        table = origin.snapshot_origins(record.spec, tagged, f"revision {record.revision}")
        tagged = origin.retag(record.spec, table, f"revision {record.revision}")
    return origin.with_components(tagged, f"InferenceService/{record.isvc.name}", record.isvc.spec)


def _owner(meta: dict[str, Any], isvcs: list[str]) -> str:
    """The InferenceService an object belongs to: its label, else the longest name it starts with."""
    owner = (meta.get("labels") or {}).get("ome.io/inferenceservice")
    if owner:
        return f"{meta.get('namespace', '')}/{owner}"
    name = f"{meta.get('namespace', '')}/{meta.get('name', '')}"
    return max((k for k in isvcs if name.startswith(k)), key=len, default=name)


def _objects_by_isvc(result: BuildResult) -> dict[str, dict[str, dict[str, Any]]]:
    out: dict[str, dict[str, dict[str, Any]]] = {}
    isvcs = [isvc_key(i) for i in result.universe.isvcs.values()]
    for obj in result.objects:
        meta = obj.get("metadata") or {}
        key = _owner(meta, isvcs)
        out.setdefault(key, {})[f"{obj.get('kind')}/{meta.get('name')}"] = obj
    return out


def _at(obj: Any, keys: list[Any]) -> Any:
    for key in keys:
        try:
            obj = obj[key]
        except (KeyError, IndexError, TypeError):
            return None
    return obj


def _path_text(obj: Any, keys: list[Any]) -> str:
    path, current, field = "", obj, ""
    for key in keys:
        if isinstance(key, int):
            item = current[key] if isinstance(current, list) and key < len(current) else None
            path = origin.item_path(path, field, key, item)
        else:
            path, field = origin.join(path, key), str(key)
        current = current[key] if isinstance(current, (dict, list)) and _at(current, [key]) is not None else None
    return path


def _config_path(obj: dict[str, Any], keys: list[Any], runner: Any) -> str | None:
    """Where in the component's merged config a rendered object's field comes from, if anywhere."""
    component = str(((obj.get("metadata") or {}).get("labels") or {}).get("component", ""))
    config = ome.CONFIG_FIELD.get(component)
    if config is None:
        return None
    if obj.get("kind") == "HorizontalPodAutoscaler" and keys in (["spec", "minReplicas"], ["spec", "maxReplicas"]):
        return f"{config}.{keys[1]}"
    if keys[:3] == ["spec", "template", "spec"]:
        prefix, pod_keys, pod = config, keys[3:], _at(obj, ["spec", "template", "spec"])
    elif len(keys) > 4 and keys[:2] == ["spec", "leaderWorkerTemplate"] and keys[2] in TEMPLATES and keys[3] == "spec":
        prefix, pod_keys, pod = config + TEMPLATES[keys[2]], keys[4:], _at(obj, keys[:4])
    elif len(keys) > 2 and keys[0] == "metadata" and keys[1] in ("labels", "annotations"):
        return f"{config}.{_path_text(obj['metadata'], keys[1:])}"
    else:
        return None
    if len(pod_keys) >= 2 and pod_keys[0] == "containers" and isinstance(pod_keys[1], int):
        container = _at(pod, pod_keys[:2]) or {}
        rest = _path_text(container, pod_keys[2:])
        name = container.get("name")
        base = f"{prefix}.runner" if name == runner else f"{prefix}.containers[name={name}]"
        return base + ("" if not rest else rest if rest.startswith("[") else "." + rest)
    rest = _path_text(pod, pod_keys)
    return prefix + ("" if not rest else rest if rest.startswith("[") else "." + rest)


def _changes(
    old: dict[str, Any] | None,
    new: dict[str, Any] | None,
    table_old: dict[str, str],
    table_new: dict[str, str],
    runner: Any,
) -> list[dict[str, Any]]:
    from deepdiff import DeepDiff

    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    diff = DeepDiff(old or {}, new or {}, view="tree", verbose_level=2)
    for report, levels in diff.tree.items():
        for level in levels:
            keys = list(level.path(output_format="list"))
            removed = report.endswith("_removed")
            where = old if removed else new
            if keys and isinstance(keys[-1], int):
                parents = (_at(old, keys[:-1]), _at(new, keys[:-1]))
                if all(isinstance(p, list) and all(not isinstance(v, (dict, list)) for v in p) for p in parents):
                    keys, removed = keys[:-1], False
            path = _path_text(where, keys)
            if path in seen:
                continue
            seen.add(path)
            source = _config_path(where, keys, runner) if where is not None else None
            found = origin.lookup(table_old if removed else table_new, source) if source else ""
            before, after = _at(old, keys), _at(new, keys)
            change = "added" if before is None else "removed" if after is None else "changed"
            out.append({"path": path, "change": change, "old": before, "new": after, "origin": found or CONTROLLER})
    out.sort(key=lambda c: c["path"])
    return out


def _runner_name(tree: Any, component: str = "engine") -> Any:
    return origin.untag(_at(tree, [ome.CONFIG_FIELD[component], "runner", "name"]))


def compare(old: BuildResult, new: BuildResult, hidden: set[str] | frozenset[str] = frozenset()) -> dict[str, Any]:
    """``hidden``: InferenceServices (namespace/name) left out, such as those found on a --search-path."""
    revs_old, revs_new = runtime_revisions(old), runtime_revisions(new)
    # A profile that is only added changes nothing by itself: the runtimes that come to inherit from it do.
    added_profiles = {runtime_key(r) for r in new.universe.all_runtimes() if is_profile(r)} - revs_old.keys()
    runtimes = [
        {"runtime": key, "old": revs_old.get(key), "new": revs_new.get(key)}
        for key in sorted(revs_old.keys() | revs_new.keys())
        if revs_old.get(key) != revs_new.get(key) and key not in added_profiles
    ]
    rec_old, rec_new = old.lifecycle.records, new.lifecycle.records
    objs_old, objs_new = _objects_by_isvc(old), _objects_by_isvc(new)
    isvcs_old = {isvc_key(i) for i in old.universe.isvcs.values()} - hidden
    isvcs_new = {isvc_key(i) for i in new.universe.isvcs.values()} - hidden
    report: dict[str, Any] = {
        "runtimes": runtimes,
        "rollouts": [],
        "drifting": [],
        "created": sorted(isvcs_new - isvcs_old),
        "deleted": sorted(isvcs_old - isvcs_new),
        "broken": [],
    }
    for key in sorted(isvcs_old & isvcs_new):
        before, after = rec_old.get(key), rec_new.get(key)
        if after is None or after.revision is None:
            if before is not None and before.revision is not None:
                report["broken"].append(
                    {"inferenceService": key, "runtime": before.runtime_key, "lastRevision": before.revision}
                )
            continue
        if after.drifted and before is not None and before.live_revision != after.live_revision:
            report["drifting"].append(
                {
                    "inferenceService": key,
                    "runtime": after.runtime_key,
                    "pinnedRevision": after.revision,
                    "liveRevision": {"old": before.live_revision, "new": after.live_revision},
                }
            )
        tree_old, tree_new = effective_tree(before), effective_tree(after)
        table_old, table_new = origin.origins(tree_old), origin.origins(tree_new)
        objects = []
        old_set, new_set = objs_old.get(key, {}), objs_new.get(key, {})
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
            objects.append(
                {
                    "object": name,
                    "changes": _changes(old_set.get(name), new_set.get(name), table_old, table_new, runner),
                }
            )
        if objects:
            revision = {"old": before.revision if before else None, "new": after.revision}
            report["rollouts"].append(
                {"inferenceService": key, "runtime": after.runtime_key, "revision": revision, "objects": objects}
            )
    return report


def changed(report: dict[str, Any]) -> bool:
    return any(report[k] for k in ("runtimes", "rollouts", "drifting", "created", "deleted", "broken"))


def _value(value: Any) -> str:
    import json

    return "<none>" if value is None else json.dumps(value, ensure_ascii=False, sort_keys=True)


MARK = {"changed": "~", "added": "+", "removed": "-"}


def _change_text(change: dict[str, Any]) -> str:
    """``old -> new``; for two lists, only the items that went and came."""
    old, new = change["old"], change["new"]
    if isinstance(old, list) and isinstance(new, list):
        gone, came = [v for v in old if v not in new], [v for v in new if v not in old]
        if gone or came:
            return f"-{_value(gone)} +{_value(came)}"
    return f"{_value(old)} -> {_value(new)}"


def _sections(report: dict[str, Any]) -> list[tuple[str, list[str]]]:
    """Titles and one-line items shared by the text and markdown forms (rollouts aside)."""
    sections = [
        (
            "Runtimes whose merged spec changed",
            [f"{r['runtime']}: {r['old'] or '<none>'} -> {r['new'] or '<none>'}" for r in report["runtimes"]],
        ),
        (
            "Pinned InferenceServices drifting (they keep their snapshot)",
            [
                f"{d['inferenceService']}: stays on {d['pinnedRevision']}; {d['runtime']} live "
                f"{d['liveRevision']['old']} -> {d['liveRevision']['new']}"
                for d in report["drifting"]
            ],
        ),
        ("InferenceServices created", list(report["created"])),
        ("InferenceServices deleted", list(report["deleted"])),
        (
            "InferenceServices that no longer render (in a cluster their pods keep serving)",
            [
                f"{b['inferenceService']}: {b['runtime']}, last rendered revision {b['lastRevision']}"
                for b in report["broken"]
            ],
        ),
    ]
    return [(title, items) for title, items in sections if items]


def _rollout_title(r: dict[str, Any]) -> str:
    rev = r["revision"]
    moved = f" {rev['old']} -> {rev['new']}" if rev["old"] != rev["new"] else f" {rev['new']}"
    return f"{r['inferenceService']} ({r['runtime']}{moved})"


def format_text(report: dict[str, Any]) -> str:
    if not changed(report):
        return "No changes.\n"
    out: list[str] = []
    sections = _sections(report)
    if report["rollouts"]:
        sections.insert(1 if report["runtimes"] else 0, ("InferenceServices that roll out", []))
    for title, items in sections:
        count = len(report["rollouts"]) if not items else len(items)
        out.append(f"{title} ({count}):")
        out.extend(f"  {item}" for item in items)
        if not items:
            for r in report["rollouts"]:
                out.append(f"  {_rollout_title(r)}")
                for obj in r["objects"]:
                    out.append(f"    {obj['object']}")
                    for c in obj["changes"]:
                        out.append(f"      {MARK[c['change']]} {c['path']}: {_change_text(c)}  [from {c['origin']}]")
        out.append("")
    return "\n".join(out)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def format_markdown(report: dict[str, Any], picture: str = "") -> str:
    """``picture``: a fenced Mermaid block of the affected subtree (``forest.blast.picture``), shown first."""
    if not changed(report):
        return "### omerender diff\n\nNo changes.\n"
    out = [
        "### omerender diff",
        "",
        f"**{len(report['runtimes'])} runtime(s) changed, {len(report['rollouts'])} InferenceService(s) roll out, "
        f"{len(report['drifting'])} pinned InferenceService(s) drift.**",
        "",
    ]
    if picture:
        out += [picture.rstrip("\n"), ""]
    sections = _sections(report)
    if report["runtimes"]:
        title, items = sections.pop(0)
        out += [f"#### {title}", "", *(f"- `{_md(item)}`" for item in items), ""]
    if report["rollouts"]:
        out += ["#### InferenceServices that roll out", ""]
        for r in report["rollouts"]:
            out += [f"**`{_rollout_title(r)}`**", "", "| Object | Field | Old | New | From |", "|---|---|---|---|---|"]
            for obj in r["objects"]:
                for c in obj["changes"]:
                    cells = (
                        obj["object"],
                        f"`{c['path']}`",
                        f"`{_value(c['old'])}`",
                        f"`{_value(c['new'])}`",
                        c["origin"],
                    )
                    out.append("| " + " | ".join(_md(x) for x in cells) + " |")
            out.append("")
    for title, items in sections:
        out += [f"#### {title}", "", *(f"- `{_md(item)}`" for item in items), ""]
    return "\n".join(out)
