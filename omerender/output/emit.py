"""What a build emits (``--emit``): rendered objects, flattened runtimes, passthrough objects, inputs.

Pure: a BuildResult in, the objects to print (each paired with the input object it came from) and
diagnostics out. The order is fixed whatever order the kinds were asked in: passthrough objects
first (Namespaces, ConfigMaps, Secrets the workloads need), then the OME objects in an order the
OME admission webhook accepts (models, cluster runtimes before namespaced ones, parents before
children, InferenceServices last), then the rendered objects.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from omerender import codes
from omerender.diagnostics import ERROR, INFO, WARNING, Diagnostic, Severity
from omerender.load.obj import Obj
from omerender.load.yamlio import find_scalar
from omerender.ome import BASE_MODEL as BM
from omerender.ome import CLUSTER_BASE_MODEL as CBM
from omerender.ome import CLUSTER_SERVING_RUNTIME as CSR
from omerender.ome import INFERENCE_SERVICE as ISVC
from omerender.ome import INHERIT_FROM
from omerender.ome import SERVING_RUNTIME as SR
from omerender.output.clashes import Pair, one_object_per_name
from omerender.output.prerendered import Prerendered, PrerenderedBuild, written
from omerender.resolve.index import runtime_key
from omerender.resolve.inherit import Chain, is_profile
from omerender.settings import EMIT_KINDS, FLATTENED, INPUTS, PASSTHROUGH, RENDERED

if TYPE_CHECKING:
    from omerender.fanout import Scratch
    from omerender.result import BuildResult, Manifest, Resolved

FLUX_SUBSTITUTE = "kustomize.toolkit.fluxcd.io/substitute"
LOCAL_CONFIG = "config.kubernetes.io/local-config"
TOOL_CONFIG_GROUPS = ("kustomize.config.k8s.io/", "kpt.dev/", "fn.kpt.dev/", "config.kubernetes.io/", "omerender.io/")
_KIND_ORDER = {CBM: 0, BM: 1, CSR: 2, SR: 3, ISVC: 4}
_SUBSTITUTION = re.compile(r"(?<!\$)\$\{[^}]*\}")


@dataclass
class EmitOptions:
    kinds: tuple[str, ...] = (RENDERED,)
    owned: Callable[[Obj], bool] = lambda obj: True  # False: input found only to resolve, not emitted as given
    renders: Callable[[Obj], bool] = lambda obj: True  # False: an InferenceService on a search path, not rendered
    keep_local_config: bool = False  # KRM: kpt would delete a Kptfile the function does not return
    flux_substitute_disabled: bool = False
    substitution_severity: Severity = INFO  # WARNING when the output is meant for Flux
    replace_rendered: bool = False  # KRM: an input item named like a rendered object is its previous render


@dataclass
class Selection:
    pairs: list[Pair] = field(default_factory=list)  # (input object or None for rendered, object)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: dict[str, dict[str, Any]] = field(default_factory=dict)  # --output-dir: relative path -> object

    @property
    def objects(self) -> list[dict[str, Any]]:
        return [body for _, body in self.pairs]


def cluster_selects(diagnostics: list[Diagnostic], kinds: tuple[str, ...]) -> list[Diagnostic]:
    """``diagnostics`` with auto-selection that cannot be decided offline (a model without the fields OME's model
    agent fills) as a warning when nothing rendered is emitted (``inputs``/``passthrough``, Argo CD's default):
    OME selects the runtime in the cluster then, and nothing emitted depends on the choice."""
    from omerender.selection.lookup import WEBHOOK_REFUSES
    from omerender.selection.matching import FORMAT_NAME_REQUIRED

    if set(kinds) & {RENDERED, FLATTENED}:
        return diagnostics
    out = []
    for given in diagnostics:
        d = given
        if d.code == codes.RUNTIME_SELECTION_ERROR and d.severity == ERROR and FORMAT_NAME_REQUIRED in d.message:
            until = (  # the webhook selects at admission: the apply is refused until the agent has run
                "; OME refuses the InferenceService at admission until its model agent fills the model's fields "
                "(the sync is retried), then selects the runtime in the cluster"
                if d.message.startswith(WEBHOOK_REFUSES)
                else "; OME selects the runtime in the cluster once its model agent fills the model's fields"
            )
            message = (
                f"{d.message}{until}, and --emit {','.join(kinds)} emits nothing that depends on it: give them with "
                "--model-metadata (model-metadata) to check the selection offline"
            )
            d = dataclasses.replace(d, severity=WARNING, message=message)
        out.append(d)
    return out


def kinds_problem(kinds: tuple[str, ...]) -> str | None:
    """A usage problem with the combination asked for, or None."""
    unknown = [k for k in kinds if k not in EMIT_KINDS]
    if unknown:
        return f"unknown --emit value {unknown[0]!r}; expected one of {', '.join(EMIT_KINDS)}"
    if INPUTS in kinds and FLATTENED in kinds:
        return "--emit inputs and --emit flattened both emit the OME objects; choose one"
    return None


def is_tool_config(body: dict[str, Any]) -> bool:
    """kustomization.yaml, Kptfile, function configs: files for tools, never for a cluster."""
    meta = body.get("metadata")
    found = meta.get("annotations") if isinstance(meta, dict) else None
    annotations: dict[str, Any] = found if isinstance(found, dict) else {}
    api = str(body.get("apiVersion", ""))
    return str(annotations.get(LOCAL_CONFIG, "")).lower() == "true" or api.startswith(TOOL_CONFIG_GROUPS)


def flatten(runtime: Obj, chain: Chain) -> dict[str, Any]:
    """The runtime with its merged spec and without ``ome.io/inherit-from``: the same pods without inheritance."""
    body = {k: copy.deepcopy(v) for k, v in runtime.body.items() if k != "status"}
    meta = body.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("annotations"), dict):
        meta["annotations"].pop(INHERIT_FROM, None)
        if not meta["annotations"]:
            del meta["annotations"]
    body["spec"] = copy.deepcopy(chain.spec) if chain.spec is not None else copy.deepcopy(runtime.spec)
    return body


def _ome_order(result: Resolved, obj: Obj, flattened: bool = False) -> tuple[int, int, str, str]:
    """Parents before children, as admission wants; flattened runtimes have no parents, so only by name."""
    depth = len(result.chains[runtime_key(obj)].runtimes) if obj.kind in (CSR, SR) and not flattened else 0
    return (_KIND_ORDER.get(obj.kind, 9), depth, obj.namespace, obj.name)


def _ome_objects(result: Resolved, flattened: bool = False) -> list[Obj]:
    universe = result.universe
    found = [
        *universe.cluster_models.values(),
        *universe.models.values(),
        *universe.all_runtimes(),
        *universe.isvcs.values(),
    ]
    return sorted(found, key=lambda o: _ome_order(result, o, flattened))


def _chain_sources(result: Resolved, runtime: Obj | None) -> list[Obj]:
    if runtime is None:
        return []
    chain = result.chains.get(runtime_key(runtime))
    return list(reversed(chain.runtimes)) if chain is not None else [runtime]


def _source_key(body: dict[str, Any]) -> tuple[str, str, str]:
    """(namespace, InferenceService, runtime) a rendered object names in its labels and annotations."""
    meta = body.get("metadata") or {}
    isvc = str((meta.get("labels") or {}).get("ome.io/inferenceservice", ""))
    return str(meta.get("namespace", "")), isvc, str((meta.get("annotations") or {}).get("ome.io/serving-runtime", ""))


def _sources_of(result: Resolved, key: tuple[str, str, str]) -> list[Obj]:
    namespace, isvc_name, runtime_name = key
    isvc = result.universe.isvcs.get((namespace, isvc_name))
    runtime = result.universe.runtime_named(runtime_name, namespace) if runtime_name else None
    return ([isvc] if isvc is not None else []) + _chain_sources(result, runtime)


def rendered_sources(result: Resolved, body: dict[str, Any]) -> list[Obj]:
    """The InferenceService a rendered object is for, then its runtime chain, leaf first."""
    return _sources_of(result, _source_key(body))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def substitutions(body: dict[str, Any]) -> list[str]:
    """The distinct ``${…}`` expressions Flux post-build substitution would replace, in document order."""
    found: list[str] = []
    for text in _strings(body):
        found.extend(m for m in _SUBSTITUTION.findall(text) if m not in found)
    return found


_WITH_DEFAULT = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?[-=]")


def _substitution_effect(found: list[str]) -> str:
    """What Flux's envsubst does: ``${VAR}`` is empty when VAR is unset; ``:-``/``:=`` give the default instead."""
    defaulted = [f for f in found if _WITH_DEFAULT.match(f)]
    if not defaulted:
        return "each with its variable's value, or an empty string when the variable is undefined"
    if len(defaulted) == len(found):
        return "each with its variable's value, or with the default it names (${VAR:-default}, ${VAR:=default})"
    return (
        "each with its variable's value; when the variable is undefined, ${VAR} becomes an empty string and "
        "${VAR:-default} or ${VAR:=default} the default"
    )


def _substitution_note(body: dict[str, Any], sources: list[Obj], severity: Severity) -> Diagnostic | None:
    found = substitutions(body)
    if not found:
        return None
    meta = body.get("metadata") or {}
    shown = ", ".join(found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
    message = (
        f"{body.get('kind')} {meta.get('name')} contains {shown}; Flux post-build substitution would replace "
        f"{_substitution_effect(found)}: pass --flux-substitute-disabled (annotates {FLUX_SUBSTITUTE}: disabled) "
        "or escape it as $${…}"
    )
    for source in sources:
        where = find_scalar(source.node, found[0])
        if where is not None:
            return Diagnostic(source.path, where[0], where[1], severity, message, codes.FLUX_SUBSTITUTION)
    if sources:
        return sources[0].diag(severity, message, "metadata", "name", code=codes.FLUX_SUBSTITUTION)
    return Diagnostic("<output>", 1, 1, severity, message, codes.FLUX_SUBSTITUTION)


def _holds_substitution(body: dict[str, Any]) -> bool:
    """Whether a string of ``body`` may hold ``${``: one pass in C over its JSON text, where neither ``$`` nor ``{``
    is escaped. Keys are looked at too, so a True may be wrong; the caller looks for itself then."""
    try:
        return "${" in json.dumps(body, ensure_ascii=False, check_circular=False)
    except (TypeError, ValueError, RecursionError):  # a value JSON cannot write: walk its strings
        return any("${" in text for text in _strings(body))


def _substitution_sources(result: Resolved) -> Callable[[Obj | None, list[Obj]], bool]:
    """Whether an emitted object can hold ``${…}``: only if an input it comes from does.

    Every string of a rendered object comes from its InferenceService, its runtime chain or a
    model (the controller adds none with ``${``), so scanning those inputs once spares a walk of
    every rendered object, the largest part of the output.
    """
    holds: dict[int, bool] = {}

    def has(obj: Obj) -> bool:
        if id(obj) not in holds:
            holds[id(obj)] = _holds_substitution(obj.body)
        return holds[id(obj)]

    models = [*result.universe.cluster_models.values(), *result.universe.models.values()]
    any_model = any(has(m) for m in models)

    rendered: dict[int, tuple[list[Obj], bool]] = {}  # by sources list: an InferenceService's objects share one

    def may(source: Obj | None, sources: list[Obj]) -> bool:
        if source is not None:
            return has(source) or any(has(s) for s in sources)
        found = rendered.get(id(sources))
        if found is None or found[0] is not sources:  # the list is kept with its verdict, so its id stays its own
            found = rendered[id(sources)] = (sources, any_model or not sources or any(has(s) for s in sources))
        return found[1]

    return may


def _annotated(body: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(body)
    meta = out.setdefault("metadata", {})
    annotations = meta.get("annotations")
    meta["annotations"] = {**(annotations if isinstance(annotations, dict) else {}), FLUX_SUBSTITUTE: "disabled"}
    return out


def _emitted_sources(result: Resolved, options: EmitOptions) -> Callable[[dict[str, Any]], list[Obj] | None]:
    """A rendered object's sources, or None when it is not emitted (rendered for an InferenceService found only on
    a --search-path); an InferenceService's objects share both, so each is worked out once per source."""
    known: dict[tuple[str, str, str], list[Obj] | None] = {}

    def sources_of(body: dict[str, Any]) -> list[Obj] | None:
        key = _source_key(body)
        if key not in known:
            sources = _sources_of(result, key)
            skipped = bool(sources) and sources[0].kind == ISVC and not options.renders(sources[0])
            known[key] = None if skipped else sources
        return known[key]

    return sources_of


def select(result: BuildResult | PrerenderedBuild, options: EmitOptions) -> Selection:
    """The objects to emit for ``options.kinds``, in the fixed order, with Flux notes."""
    kinds = set(options.kinds)
    selection = Selection()
    if PASSTHROUGH in kinds:
        for obj in result.universe.others:
            if options.owned(obj) and (options.keep_local_config or not is_tool_config(obj.body)):
                selection.pairs.append((obj, obj.body))
    ome: list[tuple[Obj | None, dict[str, Any], list[Obj]]] = []
    if kinds & {INPUTS, FLATTENED}:
        for obj in _ome_objects(result, FLATTENED in kinds):
            if not options.owned(obj):
                continue
            if FLATTENED in kinds and obj.kind in (CSR, SR):
                chain = result.chains[runtime_key(obj)]
                if not is_profile(obj):
                    ome.append((obj, flatten(obj, chain), _chain_sources(result, obj)))
            else:
                ome.append((obj, obj.body, [obj]))
    if RENDERED in kinds:
        sources_of = _emitted_sources(result, options)
        for body in result.objects:
            sources = sources_of(body)
            if sources is not None:
                ome.append((None, body, sources))
    may_substitute = _substitution_sources(result)
    origins: dict[int, list[Obj]] = {}
    for source, body, sources in ome:
        if isinstance(body, Prerendered):  # a worker annotated its text or found its note (``rendered_by_worker``)
            if body.note is not None:
                selection.diagnostics.append(body.note)
        elif options.flux_substitute_disabled:
            body = _annotated(body)  # noqa: PLW2901 - the annotated copy replaces the original
        elif may_substitute(source, sources):
            note = _substitution_note(body, sources, options.substitution_severity)
            if note is not None:
                selection.diagnostics.append(note)
        selection.pairs.append((source, body))
        if source is None:
            origins[id(body)] = sources
    selection.pairs = one_object_per_name(selection.pairs, selection.diagnostics, options.replace_rendered, origins)
    return selection


def rendered_by_worker(
    result: Resolved, bodies: list[Manifest], options: EmitOptions, shape: str, texts: Scratch
) -> list[Prerendered]:
    """In a worker (``build -j N``): what ``select`` does with rendered objects that needs the objects themselves.

    The objects ``select`` would skip are dropped, each kept one is annotated or given its Flux note, and comes
    back as a ``Prerendered`` whose text in ``shape`` is put into ``texts``; ``select`` then takes it as it is.
    """
    if RENDERED not in options.kinds:
        return []
    may_substitute = _substitution_sources(result)
    sources_of = _emitted_sources(result, options)
    kept: list[dict[str, Any]] = []
    notes: list[Diagnostic | None] = []
    for body in bodies:
        sources = sources_of(body)
        if sources is None:
            continue
        note = None
        if options.flux_substitute_disabled:
            body = _annotated(body)  # noqa: PLW2901 - the annotated copy replaces the original
        elif may_substitute(None, sources):
            note = _substitution_note(body, sources, options.substitution_severity)
        kept.append(body)
        notes.append(note)
    return written(kept, shape, notes, texts)


def output_path(body: dict[str, Any], namespace: str = "") -> str:
    """Where ``--output-dir`` puts an object: ``<namespace or _cluster>/<kind>-<name>.yaml``.

    ``namespace`` is the one the object gets when it sets none (``-n``), for inputs as given.
    """
    meta = body.get("metadata") or {}
    folder = meta.get("namespace") or namespace or "_cluster"
    return f"{folder}/{str(body.get('kind', '')).lower()}-{meta.get('name', '')}.yaml"  # the files: output.paths.plan


def kustomization(files: list[str]) -> dict[str, Any]:
    """A kustomization.yaml listing ``files``, so kustomize and Flux's kustomize-controller build the folder."""
    return {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization", "resources": sorted(files)}
