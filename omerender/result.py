"""What a build is asked (``BuildOptions``) and what it returns (``BuildResult``, ``StatusResult``).

Typed where they are used: ``changes`` (the diff of two builds), the forest, factor, the output and the CLI all
read a ``BuildResult``. It sits on the pipeline's floor (tests/unit/test_layout.py): it holds the lifecycle's
decisions (``lifecycle.settle.Lifecycle``), and nothing below the pipeline imports it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from omerender.constants import DEFAULT_KUBE_VERSION, DEFAULT_MAX_FILE_BYTES, ValidationMode
from omerender.diagnostics import Diagnostic, has_errors
from omerender.lifecycle.settle import Lifecycle
from omerender.load.bounded import Budget
from omerender.load.controller_config import ControllerConfig
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

    def run_budget(self) -> Budget:
        if self.budget is None:
            self.budget = Budget(max_file_bytes=self.max_file_bytes)
        return self.budget


@dataclass
class BuildResult:
    universe: Universe
    chains: dict[str, Chain]
    objects: list[dict[str, Any]] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    lifecycle: Lifecycle = field(default_factory=Lifecycle)  # locked snapshots, pins, drift; no lock: all live
    load_errors: list[Diagnostic] = field(default_factory=list)  # inputs that could not be read: a partial universe
    controller: ControllerConfig = field(default_factory=ControllerConfig)

    memo: dict[tuple[str, int, int], tuple[object, object, Any]] = field(default_factory=dict, repr=False)

    def once(self, what: str, a: object, b: object, make: Callable[[], Any]) -> Any:
        """``make()``, computed once per (``what``, ``a``, ``b``) by identity: per runtime work, not per
        InferenceService."""
        key = (what, id(a), id(b))
        found = self.memo.get(key)
        if found is None or found[0] is not a or found[1] is not b:  # the references kept make ids unique
            found = self.memo[key] = (a, b, make())
        return found[2]

    @property
    def failed(self) -> bool:
        return has_errors(self.diagnostics)


@dataclass
class StatusResult:
    """What ``status`` reports: the ``v1 List``, its diagnostics, whether a runtime failed, and per
    runtime (namespace, kind, name) where it is declared and its last chain that resolved (lock file)."""

    listing: dict[str, Any]
    diagnostics: list[Diagnostic]
    failed: bool
    sources: dict[tuple[str, str, str], str] = field(default_factory=dict)
    last_resolved: dict[tuple[str, str, str], list[str]] = field(default_factory=dict)
