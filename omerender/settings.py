"""Every build setting, once: its name stem, type, default, help, commands and routes, and the one value object.

The command line, the Argo CD plugin (parameters and ``ARGOCD_ENV_OMERENDER_*``), the ``OMERENDER_*``
environment, the KRM functionConfig and the ``.omerender.yaml`` settings file all name a setting by the same
stem (``model-metadata``; camelCase ``modelMetadata`` in KRM). Each route gives a ``Layer`` of values; ``resolve``
stacks them (later layers win) into one frozen ``Settings`` that records where each value came from, so that
``-v`` can say it. Pure: no click, no environment, no files; imports only the shared modules.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from omerender.codes import SERVING_CHECKS
from omerender.constants import (
    DEFAULT_KUBE_VERSION,
    DEFAULT_MAX_FILE_BYTES,
    KUBE_VERSION_FORMS,
    KUBE_VERSION_PATTERN,
    MAX_JOBS,
    ValidationMode,
)
from omerender.data import Json
from omerender.errors import UsageError
from omerender.names import DNS_LABEL_MAX, DNS_LABEL_PATTERN, clip, is_dns_label

RENDERED, FLATTENED, PASSTHROUGH, INPUTS = "rendered", "flattened", "passthrough", "inputs"
EMIT_KINDS = (RENDERED, FLATTENED, PASSTHROUGH, INPUTS)  # --emit: what a build prints (output.emit)
VALIDATE_MODES = tuple(mode.value for mode in ValidationMode)
SERVING_CHECK_MODES = ("on", "warn", "off")
MAX_GPU_MEMORY_GIB = 1024  # gpu-memory at most: more than any GPU has (the largest hold under 300 GiB)
REPORT_FORMATS = ("text", "json", "github", "sarif", "junit", "gitlab")  # --report-format (output.reporters)
ENV_PREFIX = "OMERENDER_"
ARGOCD_ENV_PREFIX = "ARGOCD_ENV_OMERENDER_"
SETTINGS_FILE = ".omerender.yaml"
SCHEMA_ID_BASE = "https://github.com/omerender/omerender/schemas/"  # the $id of every schema omerender ships


class Kind(StrEnum):
    """How a setting's value is read from text (an environment variable, a parameter, a file)."""

    TEXT = "text"
    PATH = "path"
    PATHS = "paths"
    CHOICE = "choice"
    CHOICES = "choices"
    COUNT = "count"  # a whole number >= 0, or unset
    SIZE = "size"  # a whole number >= 1
    NUMBER = "number"  # a number > 0 (not only whole), at most the spec's maximum, or unset
    FLAG = "flag"
    VERBOSITY = "verbosity"
    REPORTS = "reports"  # repeatable FMT[=FILE]


class Origin(StrEnum):
    """Where a value came from, weakest first."""

    DEFAULT = "default"
    FILE = "file"
    ENV = "env"
    CLI = "cli"
    PARAMETER = "parameter"  # an Argo CD plugin parameter: as strong as a command-line option
    FUNCTION_CONFIG = "functionConfig"  # a KRM function's functionConfig: likewise


class Route(StrEnum):
    """The ways in besides the command line."""

    ARGOCD = "argocd"  # a plugin parameter and an ARGOCD_ENV_OMERENDER_* variable
    KRM = "krm"  # a functionConfig key
    FILE = "file"  # a key of .omerender.yaml, and an OMERENDER_* variable


class SettingsError(UsageError):
    """A value that cannot be used; the message names the setting and where it was given."""


BUILD = ("build",)
BUILDERS = ("build", "status", "effective", "lock", "diff", "tree", "graph", "factor")
EVERY = frozenset(Route)


@dataclass(frozen=True)
class Spec:
    """One setting: its stem, how it reads, its default and help, the commands and routes that take it."""

    stem: str
    kind: Kind
    default: Any
    help: str
    commands: tuple[str, ...] = BUILDERS
    routes: frozenset[Route] = frozenset()
    choices: tuple[str, ...] = ()
    short: str | None = None
    metavar: str | None = None
    help_for: Mapping[str, str] = field(default_factory=dict)  # another help text for one command
    writes: bool = False  # where omerender writes: taken from the command line and the environment only
    pattern: str | None = None  # a text value matches it (ECMA and Python regex alike: the schema says it too)
    maximum: int | None = None  # a number is at most this
    unit: str = ""  # what a number counts, for messages

    @property
    def name(self) -> str:
        """The attribute of ``Settings`` (and the click parameter) that holds the value."""
        return self.stem.replace("-", "_")

    @property
    def krm_key(self) -> str:
        head, *rest = self.stem.split("-")
        return head + "".join(part.capitalize() for part in rest)

    @property
    def env_name(self) -> str:
        return ENV_PREFIX + self.name.upper()

    @property
    def argocd_env_name(self) -> str:
        return ARGOCD_ENV_PREFIX + self.name.upper()


SETTINGS: tuple[Spec, ...] = (
    Spec(
        stem="namespace",
        kind=Kind.TEXT,
        default="default",
        help="Namespace for namespaced objects that do not set one.",
        short="-n",
        pattern=DNS_LABEL_PATTERN,
        routes=EVERY,
    ),
    Spec(
        stem="search-path",
        kind=Kind.PATHS,
        default=(),
        help="Also read PATH (a file or folder), only to resolve parents and models: what only a search path "
        "holds is not emitted, listed, locked or compared; a file that a PATH also covers counts as the PATH's "
        "(repeatable).",
        routes=EVERY,
        commands=("build", "status", "effective", "lock", "diff", "tree", "graph", "factor"),
    ),
    Spec(
        stem="model-metadata",
        kind=Kind.PATH,
        default=None,
        help="YAML file of model-agent fields (modelFormat, modelFramework, "
        "modelArchitecture, quantization, modelParameterSize) and serving facts (modelConfiguration) for models "
        "that lack them, which may add to a shipped one (extends: ome:v0.1.5), or one shipped by "
        "name (ome:v0.1.5: OME's catalogue); see docs/model-metadata.md.",
        routes=EVERY,
    ),
    Spec(
        stem="controller-config",
        kind=Kind.PATH,
        default=None,
        help="A file holding OME's inferenceservice-config ConfigMap (namespace "
        "ome) [default: the one in PATHS, else the values OME ships]; see docs/rendering.md.",
        routes=EVERY,
    ),
    Spec(
        stem="lock-file",
        kind=Kind.PATH,
        default=None,
        help="The lock file [default: omerender.lock in the deepest folder that holds every PATH].",
        routes=EVERY,
        commands=("build", "status", "effective", "lock", "diff", "tree", "graph", "factor"),
    ),
    Spec(
        stem="validate",
        kind=Kind.CHOICE,
        default=ValidationMode.STRICT.value,
        help="Field validation of OME inputs, as kubectl's: unknown fields are "
        "errors (strict), warnings (warn) or dropped silently (ignore).",
        choices=VALIDATE_MODES,
        routes=EVERY,
    ),
    Spec(
        stem="kube-version",
        kind=Kind.TEXT,
        default=DEFAULT_KUBE_VERSION,
        help="Check rendered objects against this Kubernetes release's "
        "schemas: 1.29, v1.29, 1.29+, v1.31.1+k3s1, 1.30.2-eks-abc; an older release than any installed uses the "
        "oldest, a newer one the newest; 'none' skips the check.",
        pattern=KUBE_VERSION_PATTERN,
        routes=EVERY,
        commands=("build", "status", "factor"),
    ),
    Spec(
        stem="serving-checks",
        kind=Kind.CHOICE,
        default="on",
        help="Serving-aware checks of the rendered pods (GPUs, engine arguments, probes, router selectors; "
        "docs/serving-checks.md): on (their errors fail the build), warn (reported as warnings) or off. "
        "volume-mount-undefined, an API-server rejection, stays an error.",
        choices=SERVING_CHECK_MODES,
        routes=EVERY,
        commands=("build", "effective", "lock", "diff", "tree", "graph", "factor"),
    ),
    Spec(
        stem="gpu-memory",
        kind=Kind.NUMBER,
        default=None,
        help="GiB of memory per GPU for pods that name no GPU (no AcceleratorClass memoryGB, no node selector or "
        "affinity on a GPU product or instance type omerender knows): gpu-memory-fit checks each engine's share of "
        "the model's weights against it (docs/serving-checks.md) [default: an error only when no GPU omerender "
        "knows holds the share, a warning when an 80 GiB one does not].",
        metavar="GIB",
        maximum=MAX_GPU_MEMORY_GIB,
        unit="GiB",
        routes=EVERY,
        commands=("build", "effective", "lock", "diff", "tree", "graph", "factor"),
    ),
    Spec(
        stem="emit",
        kind=Kind.CHOICES,
        default=(RENDERED,),
        help="What to print (repeatable): rendered objects, flattened runtimes, "
        "passthrough (non-OME) objects, inputs (OME objects as given).",
        choices=EMIT_KINDS,
        routes=EVERY,
        commands=BUILD,
    ),
    Spec(
        stem="max-errors",
        kind=Kind.COUNT,
        default=None,
        help="Print at most N diagnostics, then how many were left out [default: all].",
        routes=EVERY,
    ),
    Spec(
        stem="fail-empty-input",
        kind=Kind.FLAG,
        default=False,
        help="An input PATH that holds no OME object is an error, not a warning "
        "(the pre-commit hooks and argocd-generate turn this on).",
        routes=EVERY,
        commands=BUILD,
    ),
    Spec(
        stem="fail-on-warning",
        kind=Kind.FLAG,
        default=False,
        help="Exit 1 when a warning is reported, as helm lint --strict and kubeconform -strict do: what is "
        "written stays the same, only the exit code changes (a run that exits 0 exits 1).",
        routes=EVERY,
    ),
    Spec(
        stem="max-file-size",
        kind=Kind.SIZE,
        default=DEFAULT_MAX_FILE_BYTES,
        help="Refuse input files larger than this many bytes.",
        routes=frozenset({Route.FILE}),
    ),
    Spec(
        stem="report-format",
        kind=Kind.REPORTS,
        default=(),
        help=f"How diagnostics are reported: {', '.join(REPORT_FORMATS)} (junit: a test report, one case per "
        "runtime and InferenceService; gitlab: Code Quality JSON). Repeatable: FMT=FILE writes that report to "
        "FILE; the one FMT without a file goes to --report-file, else stderr.  [default: text]",
        metavar="FMT[=FILE]",
        routes=frozenset({Route.FILE}),
    ),
    Spec(
        stem="report-file",
        kind=Kind.PATH,
        default=None,
        help="Write the report of the --report-format without =FILE here instead of stderr.",
        writes=True,
    ),
    Spec(
        stem="verbose",
        kind=Kind.VERBOSITY,
        default=0,
        help="Also report informational notes (e.g. why a runtime was selected).",
        short="-v",
    ),
    Spec(
        stem="output-dir",
        kind=Kind.PATH,
        default=None,
        help="Write one YAML file per object into DIR (written atomically) instead of printing to stdout.",
        commands=("build", "factor"),
        metavar="DIR",
        help_for={"factor": "Write the factored tree into DIR (atomically)."},
        writes=True,
    ),
    Spec(
        stem="check",
        kind=Kind.FLAG,
        default=False,
        help="Write nothing: validate only, or with --output-dir exit 1 (showing a capped "
        "diff) when DIR is out of date.",
        commands=("build", "lock"),
        help_for={"lock": "Write nothing; exit 1 when the lock file is not up to date."},
    ),
    Spec(
        stem="fail-on-change",
        kind=Kind.FLAG,
        default=False,
        help="With --output-dir: write DIR, then exit 1 if that changed it (pre-commit's fixer convention).",
        commands=BUILD,
    ),
    Spec(
        stem="kustomization",
        kind=Kind.FLAG,
        default=False,
        help="With --output-dir: also write a kustomization.yaml listing the files (for kustomize and Flux).",
        commands=BUILD,
        routes=frozenset({Route.FILE}),
    ),
    Spec(
        stem="flux-substitute-disabled",
        kind=Kind.FLAG,
        default=False,
        help="Annotate OME-derived objects with kustomize.toolkit.fluxcd.io/substitute: disabled.",
        commands=BUILD,
        routes=frozenset({Route.FILE}),
    ),
    Spec(
        stem="fail-empty",
        kind=Kind.FLAG,
        default=False,
        help="Exit 1 when nothing would be emitted (argocd-generate turns this on).",
        commands=BUILD,
    ),
    Spec(
        stem="keep-last-good",
        kind=Kind.FLAG,
        default=False,
        help="Render InferenceServices whose runtime chain is broken from their locked snapshot, with a warning each.",
        commands=("build", "lock"),
        help_for={
            "lock": "Keep the locked snapshot of InferenceServices whose runtime chain is broken instead of refusing."
        },
    ),
    Spec(
        stem="status-file",
        kind=Kind.PATH,
        default=None,
        help="Also write what `status -o yaml` prints for the same inputs (`-o json` for a FILE ending in .json).",
        commands=BUILD,
        writes=True,
    ),
    Spec(
        stem="jobs",
        kind=Kind.SIZE,
        default=None,
        help="Parse the inputs, and render, check and write the InferenceServices, in N processes (1: in this one; "
        "at most 64) [default: the cores available; parsing from 1 MiB of input on, rendering from 1,000 "
        "InferenceServices on, else in this process].",
        short="-j",
        metavar="N",
        maximum=MAX_JOBS,
        commands=BUILD,
        routes=frozenset({Route.FILE}),
    ),
    Spec(
        stem="allow-output-in-input",
        kind=Kind.FLAG,
        default=False,
        help="Allow --output-dir or --status-file inside (or holding) an input path.",
        commands=BUILD,
    ),
)
BY_STEM = {spec.stem: spec for spec in SETTINGS}
READS = ("search-path", "model-metadata", "controller-config", "lock-file")
"""The settings that name files or folders to read: from a settings file, each stays inside the repository."""
# Keys of .omerender.yaml that no other route takes, structured, read with their positions by
# omerender.load.serving_rules (docs/serving-checks.md); here for the file's schema.
FILE_ONLY_KEYS: dict[str, dict[str, Any]] = {
    "serving-check-exemptions": {
        "type": "array",
        "description": "Serving checks not to report for an InferenceService or runtime, each with its reason.",
        "items": {
            "type": "object",
            "additionalProperties": False,
            "required": ["kind", "name", "codes", "reason"],
            "properties": {
                "kind": {"type": "string", "enum": ["InferenceService", "ClusterServingRuntime", "ServingRuntime"]},
                "namespace": {"type": "string", "description": "Any namespace when not given."},
                "name": {"type": "string", "minLength": 1},
                "codes": {"type": "array", "minItems": 1, "items": {"type": "string", "enum": sorted(SERVING_CHECKS)}},
                "reason": {"type": "string", "minLength": 1},
            },
        },
    },
    "serving-check-severity": {
        "type": "object",
        "description": "The severity of every finding of a serving check.",
        "propertyNames": {"enum": sorted(SERVING_CHECKS)},
        "additionalProperties": {"type": "string", "enum": ["error", "warning", "info"]},
    },
}
RENDERING = tuple(s.stem for s in SETTINGS if Route.ARGOCD in s.routes)
"""The settings that change what is rendered or checked: every route takes each of them."""
PATH_KINDS = (Kind.PATH, Kind.PATHS)


@dataclass(frozen=True)
class Settings:
    """One run's settings, whichever route gave them; ``origins`` says where each came from."""

    namespace: str = "default"
    search_path: tuple[str, ...] = ()
    model_metadata: str | None = None
    controller_config: str | None = None
    lock_file: str | None = None
    validate: ValidationMode = ValidationMode.STRICT  # whichever route gave it as text
    kube_version: str | None = DEFAULT_KUBE_VERSION
    serving_checks: str = "on"
    gpu_memory: float | None = None
    emit: tuple[str, ...] = (RENDERED,)
    max_errors: int | None = None
    fail_empty_input: bool = False
    fail_on_warning: bool = False
    max_file_size: int = DEFAULT_MAX_FILE_BYTES
    report_format: tuple[str, ...] = ()  # FMT[=FILE] each; report_targets reads them
    report_file: str | None = None
    verbose: int = 0
    output_dir: str | None = None
    check: bool = False
    fail_on_change: bool = False
    kustomization: bool = False
    flux_substitute_disabled: bool = False
    fail_empty: bool = False
    keep_last_good: bool = False
    status_file: str | None = None
    allow_output_in_input: bool = False
    jobs: int | None = None  # None: as many as the cores, for a build large enough to gain
    output: str | None = None  # -o: each command declares its own formats
    paths: tuple[str, ...] = ()  # the KRM function's ``paths``: inputs read from disk as well as its items
    config: str | None = None  # the settings file read, if any
    origins: Mapping[str, Origin] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        """The values the core takes as an enum become it here, whichever route gave them (click gives text)."""
        object.__setattr__(self, "validate", ValidationMode(self.validate))

    def origin(self, stem: str) -> Origin:
        return self.origins.get(stem, Origin.DEFAULT)

    def provenance(self) -> list[str]:
        """One line per setting that is not its default: ``stem = value (origin)``, for ``-v``."""
        lines = []
        for spec in SETTINGS:
            where = self.origin(spec.stem)
            if where is not Origin.DEFAULT:
                lines.append(f"{spec.stem} = {_shown(getattr(self, spec.name))} ({where})")
        return lines


def _shown(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple):
        return ",".join(value) or "(none)"
    return clip(str(value))


@dataclass(frozen=True)
class Layer:
    """The values one route gives, keyed by stem, already typed."""

    origin: Origin
    values: Mapping[str, Any]


def resolve(layers: Iterable[Layer], base: Settings | None = None) -> Settings:
    """``base`` (the defaults) with each layer's values over it, later layers winning."""
    values: dict[str, Any] = {}
    origins: dict[str, Origin] = dict(base.origins) if base else {}
    for layer in layers:
        for stem, value in layer.values.items():
            values[BY_STEM[stem].name if stem in BY_STEM else stem] = value
            origins[stem] = layer.origin
    settings = dataclasses.replace(base or Settings(), **values, origins=origins)
    if not is_dns_label(settings.namespace):
        where = settings.origin("namespace")
        raise SettingsError(f"namespace {clip(settings.namespace)!r} ({where}) is not a DNS-1123 label")
    return settings


_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off", ""}


def _items(value: Any, label: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(part.strip() for part in value.replace("\n", ",").split(",") if part.strip())
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise SettingsError(f"{label}: expected a list of strings or a comma-separated string")


def _number(value: Any, label: str, least: int) -> int:
    if isinstance(value, bool):
        raise SettingsError(f"{label}: expected a whole number, got {value!r}")
    try:
        number = int(str(value).strip())
    except ValueError:
        raise SettingsError(f"{label}: expected a whole number, got {clip(str(value))!r}") from None
    if number < least:
        raise SettingsError(f"{label}: expected a number >= {least}, got {number}")
    return number


def _positive(value: Any, label: str, most: int | None, unit: str) -> float:
    """A finite number > 0 (at most ``most``), from a number or its text."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise SettingsError(f"{label}: expected a number, got {clip(repr(value))}")
    text = str(value).strip()
    try:
        number = float(text) if len(text) <= 32 else math.nan
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise SettingsError(f"{label}: expected a number, got {clip(text)!r}")
    if number <= 0 or (most is not None and number > most):
        bound = f" and at most {most}" if most is not None else ""
        raise SettingsError(f"{label}: expected a number of {unit or 'units'} above 0{bound}, got {clip(text)}")
    return number


def _flag(value: Any, label: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    raise SettingsError(f"{label}: expected true or false, got {clip(str(value))!r}")


def report_targets(values: Iterable[str]) -> list[tuple[str, str | None]]:
    """``FMT[=FILE]`` values as (format, file or None): known formats, each file named once, at most one
    format without a file (it goes to --report-file, else stderr; ``text`` when none is given)."""
    targets: list[tuple[str, str | None]] = []
    files: set[str | None] = set()
    for value in values:
        fmt, sep, file = value.partition("=")
        if fmt not in REPORT_FORMATS:
            raise SettingsError(f"report-format: {clip(fmt)!r} is not one of {', '.join(REPORT_FORMATS)}")
        if sep and not file:
            raise SettingsError(f"report-format: {clip(value)!r}: FMT=FILE needs a file after '='")
        same = os.path.normpath(file) if sep else None  # x and ./x are one file (the CLI compares real paths too)
        if same in files:
            raise SettingsError(f"report-format: {clip(file)!r} is named twice")
        files.add(same)
        targets.append((fmt, file if sep else None))
    if sum(file is None for _, file in targets) > 1:
        raise SettingsError("report-format: give at most one FMT without =FILE (it goes to --report-file, else stderr)")
    return targets


def file_type(spec: Spec) -> str:
    """The JSON type a settings file gives ``spec``'s value in: string, boolean, integer or list (or string)."""
    if spec.kind in (Kind.PATHS, Kind.CHOICES, Kind.REPORTS):
        return "list"
    return {
        Kind.FLAG: "boolean",
        Kind.COUNT: "integer",
        Kind.SIZE: "integer",
        Kind.VERBOSITY: "integer",
        Kind.NUMBER: "number",
    }.get(spec.kind, "string")


def _typed_as_in_the_schema(spec: Spec, value: Any) -> bool:
    wanted = file_type(spec)
    if wanted == "list":
        return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))
    if wanted == "boolean":
        return isinstance(value, bool)
    if wanted == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if wanted == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, str)


def coerce(spec: Spec, value: Json, label: str, strict: bool = False, written: str | None = None) -> Json:
    """``value`` (text from a variable or parameter, or a YAML scalar or list) as ``spec`` holds it. ``strict``
    (a settings file's value): of the JSON type the settings schema gives it, as an editor checks it too;
    ``written``: the value as the file spells it, for the message (YAML reads ``1.30`` as the number 1.3)."""
    if strict and not _typed_as_in_the_schema(spec, value):
        wanted = {"list": "a list of strings or a string", "integer": "a whole number", "boolean": "true or false"}
        wanted["number"] = "a number"
        shown = _kind_of(value) if written is None else clip(written)
        hint = f"; quote it: '{clip(written or str(value))}'" if file_type(spec) == "string" else ""
        raise SettingsError(f"{label}: expected {wanted.get(file_type(spec), 'a string')}, got {shown}{hint}")
    if spec.kind is Kind.REPORTS:
        items = _items(value, label)
        report_targets(items)
        return items
    if spec.kind in (Kind.PATHS, Kind.CHOICES):
        items = _items(value, label)
        bad = [item for item in items if spec.choices and item not in spec.choices]
        if bad:
            raise SettingsError(f"{label}: unknown value {clip(bad[0])!r}; expected one of {', '.join(spec.choices)}")
        if spec.kind is Kind.CHOICES and not items:
            raise SettingsError(f"{label}: give at least one of {', '.join(spec.choices)}")
        return tuple(dict.fromkeys(items)) if spec.kind is Kind.CHOICES else items
    if spec.kind is Kind.FLAG:
        return _flag(value, label)
    if spec.kind is Kind.NUMBER:
        return _positive(value, label, spec.maximum, spec.unit)
    if spec.kind in (Kind.COUNT, Kind.VERBOSITY, Kind.SIZE):
        number = _number(value, label, 1 if spec.kind is Kind.SIZE else 0)
        if spec.maximum is not None and number > spec.maximum:
            raise SettingsError(f"{label}: expected a number <= {spec.maximum}, got {number}")
        return number
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise SettingsError(f"{label}: expected a string, got {clip(repr(value))}")
    text = str(value).strip()
    if strict and not text:
        raise SettingsError(f"{label}: expected a value (leave the key out for the default)")
    if spec.stem == "namespace" and text and not is_dns_label(text):
        raise SettingsError(f"{label}: {clip(text)!r} is not a DNS-1123 label")
    if spec.stem == "kube-version" and text and spec.pattern and not re.fullmatch(spec.pattern, text):
        raise SettingsError(f"{label}: not a Kubernetes version: {clip(text)!r}; expected {KUBE_VERSION_FORMS}")
    if spec.kind is Kind.CHOICE and text not in spec.choices:
        raise SettingsError(f"{label}: unknown value {clip(text)!r}; expected one of {', '.join(spec.choices)}")
    return text or spec.default


def _kind_of(value: Any) -> str:
    if isinstance(value, bool):
        return f"{str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {clip(str(value))}"
    if isinstance(value, str):
        return f"the string {clip(value)!r}"
    return {list: "a list", dict: "a mapping", type(None): "nothing"}.get(type(value), type(value).__name__)


def for_route(route: Route) -> tuple[Spec, ...]:
    return tuple(spec for spec in SETTINGS if route in spec.routes)


def for_command(command: str) -> tuple[Spec, ...]:
    return tuple(spec for spec in SETTINGS if command in spec.commands)


def from_env(env: Mapping[str, str], stems: Collection[str] | None = None) -> Layer:
    """The ``OMERENDER_*`` variables of the settings that take them (the file's route), of ``stems`` only when
    given (a route reads those it takes); others are ignored, unread."""
    specs = [s for s in for_route(Route.FILE) if s.env_name in env and (stems is None or s.stem in stems)]
    return Layer(Origin.ENV, {s.stem: coerce(s, env[s.env_name], s.env_name) for s in specs})


def _listed(item: dict[str, Any]) -> str:
    """A pattern of the comma-separated string a list setting may be given as, its items ``item`` (an enum)."""
    one = "(?:" + "|".join(re.escape(choice) for choice in item["enum"]) + ")"
    return rf"^[\s,]*{one}(?:\s*[,\n][\s,]*{one})*[\s,]*$"


def value_schema(spec: Spec) -> dict[str, Any]:
    """The schema of ``spec``'s value in a settings file: what ``coerce(..., strict=True)`` takes (a test feeds the
    same values to both)."""
    text: dict[str, Any] = {"type": "string", "enum": list(spec.choices)} if spec.choices else {"type": "string"}
    if spec.kind is Kind.REPORTS:  # from a settings file, formats only (no =FILE), and at most one without a file
        formats = {"type": "string", "enum": list(REPORT_FORMATS)}
        return {"anyOf": [{"type": "array", "items": formats, "maxItems": 1}, formats]}
    if spec.kind is Kind.CHOICES:
        listed = {"type": "string", "pattern": _listed(text)}
        return {"anyOf": [{"type": "array", "items": text, "minItems": 1}, listed]}
    if spec.kind is Kind.PATHS:
        return {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string"}]}
    if spec.kind is Kind.FLAG:
        return {"type": "boolean"}
    if spec.kind is Kind.NUMBER:
        return {"type": "number", "exclusiveMinimum": 0, **({"maximum": spec.maximum} if spec.maximum else {})}
    if spec.kind in (Kind.COUNT, Kind.SIZE):
        bounds = {"minimum": 1 if spec.kind is Kind.SIZE else 0}
        return {"type": "integer", **bounds, **({"maximum": spec.maximum} if spec.maximum is not None else {})}
    if spec.stem == "namespace":
        return {**text, "pattern": spec.pattern, "maxLength": DNS_LABEL_MAX}
    if spec.choices:
        return text
    return {**text, "pattern": spec.pattern or r"\S"}  # not blank: leave the key out for the default


_BOTH_OME_FORMS = {  # inputs and flattened both emit the OME objects: output.emit.kinds_problem refuses the two
    "anyOf": [
        {"type": "array", "allOf": [{"contains": {"const": INPUTS}}, {"contains": {"const": FLATTENED}}]},
        {"type": "string", "pattern": rf"^(?=[\s\S]*\b{INPUTS}\b)(?=[\s\S]*\b{FLATTENED}\b)"},
    ]
}


def json_schema() -> dict[str, Any]:
    """The JSON schema of ``.omerender.yaml`` (schemas/omerender-settings.schema.json), made from the registry."""
    properties = {
        spec.stem: {**value_schema(spec), "description": spec.help, **({"default": list(spec.default)}
                    if isinstance(spec.default, tuple) else {} if spec.default is None else {"default": spec.default})}
        for spec in for_route(Route.FILE)
    }  # fmt: skip
    properties.update(FILE_ONLY_KEYS)
    properties["emit"] = {**properties["emit"], "not": _BOTH_OME_FORMS}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"{SCHEMA_ID_BASE}omerender-settings.schema.json",
        "title": "omerender settings file (.omerender.yaml)",
        "description": "Keys are the long option names; paths are relative to the file and stay inside the "
        "repository; where omerender writes is given on the command line only (docs/security.md).",
        "type": "object",
        "additionalProperties": False,
        "properties": properties,
    }
