"""What every serving check reads: one InferenceService's rendered pods, each with its main container's launch, and
where in the inputs each of their values was set.

A ``Pod`` is one pod template: a Deployment's or Knative Service's, or a LeaderWorkerSet's leader or worker. Its
``labels`` are what the running pods carry: the template's, plus what LeaderWorkerSet adds to each pod of a group
(``leaderworkerset.sigs.k8s.io/name`` and ``worker-index``: 0 for the leader, 1 and up for workers; the group's
index and hash are not known here). A check locates a finding with ``Pod.place_*``: the source (the
InferenceService first, then the runtime chain from leaf to root) whose value won the merge, looked up only once a
finding is made. Checks that need the model's facts (attention heads, parameters) read ``ServingView.model``; the
AcceleratorClass and node selection of a pod are ``Pod.accelerator``, ``Pod.spec["nodeSelector"]`` and
``Pod.spec["affinity"]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from omerender.load.obj import Obj
from omerender.ome import CONFIG_FIELD
from omerender.render.accelerators import Resolved
from omerender.render.context import Context
from omerender.resolve.index import Universe
from omerender.verify.provenance import Keys, Place, get
from omerender.verify.serving.launch import Env, Launch, Lazy, Token, container_env, read_shared

GPU = "nvidia.com/gpu"
LWS_PREFIX = "leaderworkerset.sigs.k8s.io/"
LWS_NAME = "leaderworkerset.sigs.k8s.io/name"
LWS_WORKER_INDEX = "leaderworkerset.sigs.k8s.io/worker-index"
LWS_UNKNOWN_LABELS = frozenset({"leaderworkerset.sigs.k8s.io/group-index", "leaderworkerset.sigs.k8s.io/group-key"})
WORKER_INDEX_ABOVE_ZERO = "1+"  # a worker's index: some number from 1 up
POD = "pod"
WORKLOADS = frozenset({"Deployment", "LeaderWorkerSet", "Service"})  # a Knative Service has a template, a v1 one none
TEMPLATE = ("spec", "template", "spec")
NONE: list[Pod] = []  # no pods (read only)
LEADER = "leader"
WORKER = "worker"


@dataclass
class Pod:
    """One pod template of a component's workload, and how to find where its values were set."""

    view: ServingView
    component: str  # engine, decoder or router
    role: str  # pod (a Deployment or Knative Service), leader or worker
    workload: dict[str, Any]
    path: Keys  # of the pod spec in ``workload``
    spec: dict[str, Any]
    labels: dict[str, str]
    group_size: int | None  # a LeaderWorkerSet's pods per group; None for a Deployment
    main: int | None  # index of the main container (the runner) in spec.containers
    container: dict[str, Any] | None = None  # that container
    # made on first use (functools.cached_property takes a lock on Python 3.11, which costs here)
    _env: Env | None = field(default=None, repr=False)
    _launch: Launch | bool | None = field(default=False, repr=False)  # False: not read yet
    _gpus: int | bool | None = field(default=False, repr=False)
    _items: dict[tuple[str, str, str], dict[Any, Place]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        containers = self.spec.get("containers")
        if self.main is not None and isinstance(containers, list) and isinstance(containers[self.main], dict):
            self.container = containers[self.main]

    @property
    def container_name(self) -> str:
        return str((self.container or {}).get("name", ""))

    @property
    def in_group(self) -> bool:
        return self.group_size is not None

    @property
    def where(self) -> str:
        """``engine``, ``engine leader``, ``decoder worker``: what a message names."""
        return self.component if self.role == POD else f"{self.component} {self.role}"

    @property
    def env(self) -> Env:
        if self._env is None:
            self._env = self._make_env()
        return self._env

    def _make_env(self) -> Env:
        container = self.container or {}
        injected: dict[str, str | None] = {}
        if self.group_size is not None:  # LeaderWorkerSet's webhook adds these to every container of a group
            injected = {
                "LWS_GROUP_SIZE": str(self.group_size),
                "LWS_LEADER_ADDRESS": None,
                "LWS_WORKER_INDEX": "0" if self.role == LEADER else None,
            }
        return container_env(container, self.view.ctx.namespace, self.labels, injected)

    @property
    def launch(self) -> Launch | None:
        if self._launch is False:
            container = self.container
            found = None if container is None else read_shared(container, Lazy(lambda: self.env), self.view.names)
            self._launch = found
        return self._launch if isinstance(self._launch, Launch) else None

    @property
    def gpus(self) -> int | None:
        """The main container's ``nvidia.com/gpu`` limit (else request), None when it sets neither or not a number."""
        if self._gpus is False:
            self._gpus = self._count_gpus()
        return None if isinstance(self._gpus, bool) else self._gpus

    def _count_gpus(self) -> int | None:
        resources = (self.container or {}).get("resources")
        if not isinstance(resources, dict):
            return None
        for part in ("limits", "requests"):
            values = resources.get(part)
            value = values.get(GPU) if isinstance(values, dict) else None
            if value is not None:
                text = str(value)
                return int(text) if text.isdigit() and len(text) < 10 else None
        return None

    @property
    def accelerator(self) -> Resolved | None:
        """The AcceleratorClass this pod's component resolved (OME applies it to the leader and the pod)."""
        return self.view.ctx.accelerators.get(self.component)

    # -- where a value was set ------------------------------------------------------------------------------------

    def _roots(self, source: Obj) -> list[Keys]:
        base: Keys = (
            ("spec", self.component)
            if source.kind == "InferenceService"
            else ("spec", CONFIG_FIELD.get(self.component, "engineConfig"))
        )
        if self.role == LEADER:
            return [(*base, "leader")] if self.view.has_leader(self.component) else [base]
        if self.role == WORKER:
            return [(*base, "worker")]
        return [base]

    def container_places(self, name: str | None = None) -> list[Place]:
        """Where the sources write a container (the main one by default): their runner (for the main container) or
        a container or init container of its name, the winner first."""
        main = name is None or name == self.container_name
        name = self.container_name if name is None else name
        places: list[Place] = []
        for source in self.view.ctx.sources:
            for root in self._roots(source):
                runner = get(source.body, (*root, "runner"))
                if main and isinstance(runner, dict) and runner.get("name") in (name, None, ""):
                    places.append(Place(source, (*root, "runner")))
                for field_name in ("containers",) if main else ("containers", "initContainers"):
                    for i, item in enumerate(get(source.body, (*root, field_name)) or []):
                        if isinstance(item, dict) and item.get("name") == name:
                            places.append(Place(source, (*root, field_name, i)))
        return places

    def item_place(self, container: str, field_name: str, key: str, value: Any) -> Place | None:
        """The first source writing the item of a container's list ``field_name`` whose ``key`` is ``value``
        (an index of the container's items, made once: a pod may hold thousands)."""
        index = self._items.get((container, field_name, key))
        if index is None:
            index = self._items[(container, field_name, key)] = {}
            for place in self.container_places(container):
                for i, item in enumerate(get(place.source.body, (*place.keys, field_name)) or []):
                    found = item.get(key) if isinstance(item, dict) else None
                    if isinstance(found, (str, int)) and not isinstance(found, bool):
                        index.setdefault(found, Place(place.source, (*place.keys, field_name, i)))
        return index.get(value) if isinstance(value, (str, int)) else None

    def pod_setter(self, *sub: Any) -> Place | None:
        """The first source that sets ``sub`` below the pod's part (``("nodeSelector", KEY)``, ``("affinity",)``)."""
        for source in self.view.ctx.sources:
            for root in self._roots(source):
                if get(source.body, (*root, *sub)) is not None:
                    return Place(source, (*root, *sub))
        return None

    def part_place(self) -> Place | None:
        """The pod's part (``engineConfig``, ``engineConfig.leader``, ...) in the chain's leaf-most runtime that
        writes it, where pod fields shared by every InferenceService on the runtime belong; else the
        InferenceService's."""
        sources = self.view.ctx.sources
        for source in (*sources[1:], *sources[:1]):
            for root in self._roots(source):
                if isinstance(get(source.body, root), dict):
                    return Place(source, root)
        return None

    def setter(self, *sub: Any) -> Place | None:
        """The first source that sets ``sub`` below the main container (``("resources", "limits", GPU)``)."""
        for place in self.container_places():
            if get(place.source.body, place.keys + sub) is not None:
                return Place(place.source, place.keys + sub)
        return None

    def token_place(self, token: Token | None) -> Place | None:
        """Where the command or args item a token comes from is written; None when no source writes it (OME or
        an AcceleratorClass added it)."""
        if token is None:
            return None
        for place in self.container_places():
            for field_name in (token.field, "args" if token.field == "command" else "command"):
                items = get(place.source.body, (*place.keys, field_name))
                if isinstance(items, list):
                    for i, item in enumerate(items):
                        if item == token.raw or (isinstance(item, (int, float)) and str(item) == token.raw):
                            return Place(place.source, (*place.keys, field_name, i))
        return None

    def option_place(self, name: str) -> Place | None:
        launch = self.launch
        return self.token_place(launch.tokens.get(name) if launch is not None else None)


@dataclass
class ServingView:
    """One InferenceService's rendered serving pods, the inputs they came from, and its model."""

    ctx: Context
    universe: Universe
    objects: list[dict[str, Any]]
    pods: list[Pod] = field(default_factory=list)
    gpu_memory: float | None = None  # the gpu-memory setting: GiB per GPU of a pod that names no GPU

    @property
    def model(self) -> Obj:
        return self.ctx.model

    @property
    def runtime(self) -> str:
        return self.ctx.runtime_name

    by_component: dict[str, list[Pod]] = field(default_factory=dict)
    serving_pods: dict[str, list[Pod]] = field(default_factory=dict)

    @property
    def names(self) -> tuple[str, ...]:
        """What OME's placeholders may have written into a command: the InferenceService's name."""
        return (self.ctx.name,)

    @property
    def label_keys(self) -> frozenset[str]:
        """Every label key a pod of this InferenceService carries: a selector term on one a pod lacks is false."""
        return frozenset(key for pod in self.pods for key in pod.labels)

    by_role: dict[tuple[str, str], list[Pod]] = field(default_factory=dict)

    def add(self, pod: Pod) -> None:
        self.pods.append(pod)
        self.by_component.setdefault(pod.component, []).append(pod)
        self.by_role.setdefault((pod.component, pod.role), []).append(pod)
        if pod.role != WORKER:
            self.serving_pods.setdefault(pod.component, []).append(pod)

    def of(self, component: str, role: str | None = None) -> list[Pod]:
        """The pods of ``component`` (of ``role``, when given)."""
        if role is None:
            return self.by_component.get(component, NONE)
        return self.by_role.get((component, role), NONE)

    def serving(self, component: str) -> list[Pod]:
        """The pods of ``component`` that serve requests: a Deployment's, a Knative Service's, a group's leader."""
        return self.serving_pods.get(component, NONE)

    def has_leader(self, component: str) -> bool:
        """Whether the merged component has a leader (OME then builds the leader pod from it alone)."""
        return isinstance(get(self.ctx.body, ("spec", component, "leader")), dict) or isinstance(
            get(self.ctx.runtime_spec, (CONFIG_FIELD.get(component, ""), "leader")), dict
        )

    def fallback(self, component: str) -> Place:
        """Where a finding no value locates goes: the InferenceService's component (else its spec)."""
        isvc = self.ctx.isvc
        keys: Keys = ("spec", component) if get(isvc.body, ("spec", component)) is not None else ("spec",)
        return Place(isvc, keys)


def _main(ctx: Context, component: str, role: str, pod: dict[str, Any]) -> int | None:
    """The index of the runner's container: named by the InferenceService or the runtime (for a leader or worker,
    their own runner first), else the first container."""
    containers = pod.get("containers")
    if not isinstance(containers, list) or not containers:
        return None
    if len(containers) == 1:
        return 0
    for part in ((role,) if role != POD else ()) + ((),):
        for name in (
            get(ctx.body, ("spec", component, *part, "runner", "name")),
            get(ctx.runtime_spec, (CONFIG_FIELD.get(component, ""), *part, "runner", "name")),
        ):
            if isinstance(name, str) and name:
                for i, container in enumerate(containers):
                    if isinstance(container, dict) and container.get("name") == name:
                        return i
    return 0


def _labels(template: Any) -> dict[str, str]:
    """A rendered template's labels: its own dict (rendered labels are strings), read only."""
    metadata = template.get("metadata") if isinstance(template, dict) else None
    labels = metadata.get("labels") if isinstance(metadata, dict) else None
    return labels if isinstance(labels, dict) else {}


def build(
    ctx: Context, universe: Universe, objects: list[dict[str, Any]], gpu_memory: float | None = None
) -> ServingView:
    """The view of ``objects``, the rendered objects of ``ctx``'s InferenceService (``gpu_memory``: the setting)."""
    view = ServingView(ctx, universe, objects, gpu_memory=gpu_memory)
    for obj in objects:
        kind = obj.get("kind")
        if kind not in WORKLOADS:
            continue
        meta = obj.get("metadata") or {}
        component = str((meta.get("labels") or {}).get("component", ""))
        spec = obj.get("spec")
        if component not in CONFIG_FIELD or not isinstance(spec, dict):
            continue
        if kind == "LeaderWorkerSet":
            lws = spec.get("leaderWorkerTemplate") or {}
            group = lws.get("size")
            size = group if isinstance(group, int) and not isinstance(group, bool) else None
            name = str(meta.get("name", ""))
            for role, part in ((LEADER, "leaderTemplate"), (WORKER, "workerTemplate")):
                template = lws.get(part)
                pod = template.get("spec") if isinstance(template, dict) else None
                if not isinstance(pod, dict):
                    continue
                labels = {**_labels(template), LWS_NAME: name}
                labels[LWS_WORKER_INDEX] = "0" if role == LEADER else WORKER_INDEX_ABOVE_ZERO
                path = ("spec", "leaderWorkerTemplate", part, "spec")
                main = _main(ctx, component, role, pod)
                view.add(Pod(view, component, role, obj, path, pod, labels, size, main))
        else:
            template = spec.get("template")
            pod = template.get("spec") if isinstance(template, dict) else None
            if isinstance(pod, dict):
                main = _main(ctx, component, POD, pod)
                view.add(Pod(view, component, POD, obj, TEMPLATE, pod, _labels(template), None, main))
    return view


def selects(selector: dict[str, str], labels: dict[str, str], known: frozenset[str]) -> bool | None:
    """Whether a pod with ``labels`` matches ``selector`` (equality terms): None when a term names a label whose
    value is not known here (a group's index, a worker's index other than 0, a label that is not ``known`` to be
    absent: another controller or webhook may add it)."""
    unknown = False
    for key, value in selector.items():
        have = labels.get(key)
        if key in LWS_UNKNOWN_LABELS or (have is None and key not in known and not key.startswith(LWS_PREFIX)):
            unknown = True
        elif have == WORKER_INDEX_ABOVE_ZERO and key == LWS_WORKER_INDEX:
            if value == "0" or not value.isdigit():
                return False
            unknown = True
        elif have != value:
            return False
    return None if unknown else True
