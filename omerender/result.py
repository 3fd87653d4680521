"""What a build is asked (``BuildOptions``) and what it returns (``Resolved``, ``BuildResult``, ``StatusResult``).

``Resolved`` is everything a build knows before rendering: the universe, every chain, the lifecycle's decisions
and the diagnostics so far. ``BuildResult`` adds the objects rendered in this process, whole: what ``lock``,
``effective``, ``diff``, the forest and factor read. A build whose InferenceServices forked workers rendered
holds stand-ins instead, and is another type (``output.prerendered.PrerenderedBuild``), so a command that needs
whole objects cannot be given one. It sits on the pipeline's floor (tests/unit/test_layout.py): it holds the
lifecycle's decisions (``lifecycle.settle.Lifecycle``), and nothing below the pipeline imports it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from omerender.constants import DEFAULT_KUBE_VERSION, DEFAULT_MAX_FILE_BYTES, ValidationMode
from omerender.diagnostics import Diagnostic, has_errors
from omerender.lifecycle.settle import Lifecycle
from omerender.load.bounded import Budget
from omerender.load.controller_config import ControllerConfig
from omerender.load.obj import Obj
from omerender.load.serving_rules import ServingPolicy
from omerender.resolve.index import Universe
from omerender.resolve.inherit import Chain


@dataclass
class BuildOptions:
    """Everything a build reads besides its inputs; loading takes its ``namespace`` and ``run_budget()``."""

    namespace: str = "default"
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    lock_file: str | None = None  # None: omerender.lock beside the first path (see lock.default_path)
    keep_last_good: bool = False  # render InferenceServices whose runtime broke from their locked snapshot
    roll_forward: tuple[str, ...] = ()  # namespace/name of autoSync: false InferenceServices to take live
    relock: bool = False  # `omerender lock`: the lock is re-recorded after the build, which fixes some of its problems
    model_metadata: str | None = None  # overlay file of model-agent fields (omerender.metadata)
    validate: ValidationMode = ValidationMode.STRICT  # unknown fields in OME objects: errors, warnings or silent
    kube_version: str | None = DEFAULT_KUBE_VERSION  # None: skip the Kubernetes schema check
    controller_config: str | None = None  # --controller-config: a file holding the inferenceservice-config ConfigMap
    fail_empty_input: bool = False  # an input PATH holding no OME object is an error, not a warning
    budget: Budget | None = None  # what the run may read in all (load.bounded); made on first use
    parse_jobs: int = 1  # processes that may parse the inputs (load.reader.PARSE_LEAST_BYTES says from when)
    serving_checks: str = "on"  # on, warn or off (omerender.verify.serving)
    gpu_memory: float | None = None  # GiB per GPU of a pod that names no GPU (gpu-memory-fit)
    serving_rules: str | None = None  # the settings file whose serving-check exemptions and severities apply
    paths: tuple[str, ...] = ()  # the PATHS the command builds (not the search paths)
    search_paths: tuple[str, ...] = ()  # what only they hold is lent, not built: its unused runtimes' errors warn

    def run_budget(self) -> Budget:
        if self.budget is None:
            self.budget = Budget(max_file_bytes=self.max_file_bytes)
        return self.budget


Manifest = dict[str, Any]
"""A Kubernetes object as JSON-shaped data (what is rendered, emitted and written)."""
Made = TypeVar("Made")
Rendered = TypeVar("Rendered", bound="Resolved")


@dataclass
class Resolved:
    """A build before rendering: the inputs indexed, every chain resolved, the lifecycle settled, the
    diagnostics so far (rendering adds its own)."""

    universe: Universe
    chains: dict[str, Chain]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    lifecycle: Lifecycle = field(default_factory=Lifecycle)  # locked snapshots, pins, drift; no lock: all live
    load_errors: list[Diagnostic] = field(default_factory=list)  # inputs that could not be read: a partial universe
    controller: ControllerConfig = field(default_factory=ControllerConfig)
    serving: ServingPolicy = field(default_factory=ServingPolicy)  # how the serving checks run and report
    lent: Callable[[Obj], bool] = field(default=lambda _obj: False, repr=False)  # read only from a search path

    memo: dict[tuple[str, int, int], tuple[object, object, object]] = field(default_factory=dict, repr=False)

    def once(self, what: str, a: object, b: object, make: Callable[[], Made]) -> Made:
        """``make()``, computed once per (``what``, ``a``, ``b``) by identity: per runtime work, not per
        InferenceService. ``what`` names the work, so one name always makes one type."""
        key = (what, id(a), id(b))
        found = self.memo.get(key)
        if found is None or found[0] is not a or found[1] is not b:  # the references kept make ids unique
            found = self.memo[key] = (a, b, make())
        return cast(Made, found[2])  # made by a ``make`` of this ``what``: one type

    @property
    def failed(self) -> bool:
        return has_errors(self.diagnostics)

    def carried(self, kind: type[Rendered]) -> Rendered:
        """A ``kind`` holding what this holds (the same diagnostics, lifecycle and memo); its own fields unset."""
        made = kind.__new__(kind)
        made.__dict__.update(vars(self))
        return made


@dataclass
class BuildResult(Resolved):
    """A build rendered in this process: ``objects`` are whole, in output order."""

    objects: list[Manifest] = field(default_factory=list)

    @classmethod
    def of(cls, resolved: Resolved, objects: list[Manifest]) -> BuildResult:
        """``resolved`` with its rendered ``objects``."""
        built = resolved.carried(cls)
        built.objects = objects
        return built


@dataclass
class StatusResult:
    """What ``status`` reports: the ``v1 List``, its diagnostics, whether a runtime failed, and per
    runtime (namespace, kind, name) where it is declared and its last chain that resolved (lock file)."""

    listing: dict[str, Any]
    diagnostics: list[Diagnostic]
    failed: bool
    sources: dict[tuple[str, str, str], str] = field(default_factory=dict)
    last_resolved: dict[tuple[str, str, str], list[str]] = field(default_factory=dict)
