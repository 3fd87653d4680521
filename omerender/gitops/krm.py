"""omerender as a KRM function: a ``ResourceList`` (config.kubernetes.io/v1) in, one out.

Pure: dicts in, a dict out; the CLI reads stdin, loads ``paths`` from disk and prints. Items keep
their ``internal.config.kubernetes.io/path|index`` annotations (the legacy
``config.kubernetes.io/path|index`` are read too). The function's output replaces the package in
``kpt fn eval``, so the default emits the inputs, the passthrough objects (Kptfile included) and
the rendered objects; rendered objects get a path under ``outputDir``.

functionConfig: a ConfigMap (``data``) or any object with a ``spec``; its keys are the settings registry's
KRM route, the camelCase of each stem (``emit``, ``namespace``, ``searchPath``, ``modelMetadata``, ``lockFile``,
``controllerConfig``, ``kubeVersion``, ``servingChecks``, ``gpuMemory``, ``validate``, ``maxErrors``,
``failEmptyInput``), plus ``paths`` (files or folders read from disk as well: a kustomize generator receives no
items) and ``outputDir``. The
package's ``.omerender.yaml`` is read too, under the functionConfig.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml

from omerender.commands import build
from omerender.commands.build import BuildRequest
from omerender.commands.engine import Given
from omerender.commands.request import Inputs, build_options
from omerender.diagnostics import INFO, Diagnostic, has_errors
from omerender.errors import UsageError
from omerender.lifecycle.lock import FILENAME as LOCK_FILENAME
from omerender.load import settings_file
from omerender.load.bounded import Budget, ReadProblem, parse_bounded, read_text
from omerender.load.memory import objects_from_documents
from omerender.load.reader import yaml_diagnostic
from omerender.names import clip
from omerender.output.emit import EmitOptions, kinds_problem, output_path
from omerender.paths import resolves_within
from omerender.result import Manifest
from omerender.settings import (
    INPUTS,
    PASSTHROUGH,
    RENDERED,
    Layer,
    Origin,
    Route,
    Settings,
    SettingsError,
    coerce,
    for_route,
    resolve,
)

API_VERSIONS = ("config.kubernetes.io/v1", "config.kubernetes.io/v1alpha1")
PATH, INDEX = "internal.config.kubernetes.io/path", "internal.config.kubernetes.io/index"
LEGACY_PATH, LEGACY_INDEX = "config.kubernetes.io/path", "config.kubernetes.io/index"
PACKAGE_PATH = "internal.config.kubernetes.io/package-path"  # kpt fn render's: the package's folder on disk
_TOOL_ANNOTATIONS = (
    "internal.config.kubernetes.io/",
    LEGACY_PATH,
    LEGACY_INDEX,
    "config.k8s.io/id",
    "kustomize.config.k8s.io/id",
)


class KrmError(UsageError):
    """The ResourceList or functionConfig cannot be used."""


class ItemsUnreadable(Exception):
    """The ResourceList on stdin is not YAML omerender can read (a package file holds what no reader takes, such
    as a 5,000-digit number): a finding about the input, located in the stream (exit 1)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


DEFAULT_EMIT = (PASSTHROUGH, INPUTS, RENDERED)
STDIN_SHOWN = "<stdin>"
DEFAULT_OUTPUT_DIR = "rendered"


@dataclass(frozen=True)
class ResourceList:
    """A KRM ResourceList as given: the ``api_version`` to answer with (its own when omerender knows it), its
    ``items`` as given (one that is no mapping passes through), and its ``functionConfig`` (``config``; whether
    the key was there at all: ``has_config``)."""

    api_version: str
    items: list[object]
    config: object = None
    has_config: bool = False

    @classmethod
    def of(cls, document: object) -> ResourceList:
        """The ResourceList ``document`` is; raises KrmError when it is none."""
        if not isinstance(document, dict) or document.get("kind") != "ResourceList":
            raise KrmError("input is not a ResourceList (kind: ResourceList, apiVersion: config.kubernetes.io/v1)")
        items = document.get("items") or []
        if not isinstance(items, list):
            raise KrmError("ResourceList items must be a list")
        given = document.get("apiVersion")
        api_version = given if isinstance(given, str) and given in API_VERSIONS else API_VERSIONS[0]
        return cls(api_version, items, document.get("functionConfig"), "functionConfig" in document)


@dataclass(frozen=True)
class _Item:
    item: dict[str, Any]
    path: str | None
    index: int | None


KRM_ONLY = {"paths": "paths", "outputDir": "output-dir", "output-dir": "output-dir"}
CONFIG_KEYS = frozenset({*(spec.krm_key for spec in for_route(Route.KRM)), *KRM_ONLY})


def _listed(value: Any, name: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(p.strip() for p in value.split(",") if p.strip())
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise KrmError(f"functionConfig {name}: expected a list of strings or a comma-separated string")


def _values(function_config: object) -> dict[str, Any]:
    if function_config is None:
        return {}
    if not isinstance(function_config, dict):
        raise KrmError("functionConfig must be an object")
    values = function_config.get("data") if function_config.get("kind") == "ConfigMap" else function_config.get("spec")
    return values if isinstance(values, dict) else {}


def read_resource_list(config: str | None, stdin: Callable[..., bytes], budget: Budget) -> ResourceList:
    """The ResourceList on stdin, or one made from the functionConfig in the file ``config``, read with
    the bounded reader (a regular file, within the caps) and parsed with the manifests' limits; KrmError when
    it cannot be read or is no ResourceList, ItemsUnreadable when its items are no YAML omerender reads."""
    where = config or "-"
    shown = config or "the ResourceList on stdin"
    text = ""
    try:
        text = read_text(where, budget, "functionConfig file" if config else "ResourceList", stdin)
        documents = [d.data for d in parse_bounded(text, budget)]
    except ReadProblem as exc:
        raise KrmError(f"cannot read {shown}: {exc.message}") from None
    except yaml.YAMLError as exc:
        if not config:
            raise ItemsUnreadable(yaml_diagnostic(STDIN_SHOWN, exc, text)) from None
        raise KrmError(f"cannot read {shown}: {clip(' '.join(str(exc).split()), 300)}") from None
    except RecursionError:
        raise KrmError(f"cannot read {shown}: it nests too deeply") from None
    first = documents[0] if documents else None
    if config:
        return ResourceList(API_VERSIONS[0], [], first, has_config=True)
    return ResourceList.of(first)


def defaults() -> Settings:
    """What the function renders with when nothing is set: the inputs, passthrough and rendered objects."""
    return Settings(emit=DEFAULT_EMIT, output_dir=DEFAULT_OUTPUT_DIR)


def _output_dir(given: str) -> str:
    output_dir = given.strip("/")
    if given.startswith("/") or any(part in ("", ".", "..") for part in output_dir.split("/")):
        raise KrmError(
            f"functionConfig outputDir {clip(given)!r} must be a relative folder inside the package (no '..', "
            "not absolute)"
        )
    return output_dir


def layer(function_config: object) -> Layer:
    """The functionConfig's settings, by the camelCase of each stem (``modelMetadata``), plus ``paths`` and
    ``outputDir``; raises KrmError for an unknown key or a bad value."""
    values = _values(function_config)
    unknown = sorted(set(values) - CONFIG_KEYS)
    if unknown:
        raise KrmError(
            f"functionConfig: unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(CONFIG_KEYS))}"
        )
    by_key = {spec.krm_key: spec for spec in for_route(Route.KRM)}
    found: dict[str, Any] = {}
    for key, value in values.items():
        if key == "paths":
            found["paths"] = _listed(value, "paths")
        elif key in KRM_ONLY:
            found["output-dir"] = _output_dir(str(value or DEFAULT_OUTPUT_DIR))
        elif value is not None and value != "":
            found[by_key[key].stem] = coerce(by_key[key], value, f"functionConfig {key}")
    problem = kinds_problem(found.get("emit", DEFAULT_EMIT)) or ("" if found.get("emit", 1) else "emit needs a value")
    if problem:
        raise KrmError(f"functionConfig: {problem}")
    return Layer(Origin.FUNCTION_CONFIG, found)


SETTINGS_API_VERSION, SETTINGS_KIND = "omerender.io/v1alpha1", "OmeRenderSettings"
LOCAL_CONFIG = "config.kubernetes.io/local-config"


def _is_settings(item: dict[str, Any]) -> bool:
    return item.get("apiVersion") == SETTINGS_API_VERSION and item.get("kind") == SETTINGS_KIND


def package_settings(resource_list: ResourceList, base: str, root: str) -> Layer | None:
    """The package's settings object (``OmeRenderSettings``, a local-config object kpt reads as a resource, where a
    plain ``.omerender.yaml`` is no KRM resource): its ``spec`` holds ``.omerender.yaml``'s keys, read by the
    settings file's rules, paths relative to ``base`` (where the function runs) inside ``root``. None when the
    package holds none; raises KrmError for two, one that is not local config, or a key it may not hold."""
    found = [item for item in resource_list.items if isinstance(item, dict) and _is_settings(item)]
    if not found:
        return None
    where = ", ".join(_locate(item)[0] or f"<item {resource_list.items.index(item)}>" for item in found)
    if len(found) > 1:
        raise KrmError(f"{where}: a package holds at most one {SETTINGS_KIND}")
    item = found[0]
    if str(_annotations(item).get(LOCAL_CONFIG, "")).lower() != "true":
        raise KrmError(
            f'{where}: {SETTINGS_KIND} needs the annotation {LOCAL_CONFIG}: "true" (else kpt live apply and '
            "kustomize send it to the cluster)"
        )
    spec = item.get("spec")
    if spec is not None and not isinstance(spec, dict):
        raise KrmError(f"{where}: {SETTINGS_KIND} spec holds one mapping of settings")
    layer, problems = settings_file.read_mapping(spec or {}, base, root)
    if problems:
        raise KrmError(f"{where}: {SETTINGS_KIND}: {'; '.join(problems)}")
    return layer


def package_lock(resource_list: ResourceList, base: str, root: str) -> str | None:
    """The lock a build of the package reads: ``omerender.lock`` in the deepest folder holding every item's
    package (``kpt fn render`` names it on each item; ``kpt fn eval`` does not), relative to ``base`` (where the
    function runs). None when no item names one, or when that folder is not inside ``root``."""
    folders = sorted(
        {
            os.path.normpath(os.path.join(os.path.abspath(base), str(named)))
            for item in resource_list.items
            if isinstance(item, dict) and (named := _annotations(item).get(PACKAGE_PATH))
        }
    )
    if not folders:
        return None
    common = os.path.commonpath(folders)
    if not resolves_within(common, root):
        return None
    return os.path.relpath(os.path.join(common, LOCK_FILENAME), os.path.abspath(base))


def parse_config(function_config: object) -> Settings:
    """The function's settings from its functionConfig alone (no settings file)."""
    try:
        return resolve([layer(function_config)], defaults())
    except SettingsError as exc:
        raise KrmError(str(exc)) from None


def _annotations(item: dict[str, Any]) -> dict[str, Any]:
    meta = item.get("metadata")
    found = meta.get("annotations") if isinstance(meta, dict) else None
    return found if isinstance(found, dict) else {}


def _locate(item: dict[str, Any]) -> tuple[str | None, int | None]:
    annotations = _annotations(item)
    path = annotations.get(PATH, annotations.get(LEGACY_PATH))
    index = annotations.get(INDEX, annotations.get(LEGACY_INDEX))
    try:
        number = int(index) if index is not None else None
    except (TypeError, ValueError):
        number = None
    return (str(path) if path is not None else None), number


def _working_copy(item: dict[str, Any]) -> dict[str, Any]:
    """The item without the tools' bookkeeping annotations, so they never reach rendered objects."""
    body = copy.deepcopy(item)
    annotations = _annotations(body)
    for key in [k for k in annotations if str(k).startswith(_TOOL_ANNOTATIONS)]:
        del annotations[key]
    if "annotations" in (body.get("metadata") or {}) and not annotations:
        del body["metadata"]["annotations"]
    return body


def _restore(body: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    kept = {k: v for k, v in _annotations(item).items() if str(k).startswith(_TOOL_ANNOTATIONS)}
    if kept:
        meta = body.setdefault("metadata", {})
        meta["annotations"] = {**(meta.get("annotations") or {}), **kept}
    return body


def _placed(body: dict[str, Any], output_dir: str) -> dict[str, Any]:
    out = copy.deepcopy(body)
    meta = out.setdefault("metadata", {})
    where = f"{output_dir}/{output_path(out)}" if output_dir else output_path(out)
    meta["annotations"] = {**(meta.get("annotations") or {}), PATH: where, INDEX: "0"}
    return out


def _result(diagnostic: Diagnostic, items: dict[str, _Item]) -> dict[str, Any]:
    result: dict[str, Any] = {"message": diagnostic.message, "severity": diagnostic.severity}
    if diagnostic.code:
        result["tags"] = {"code": diagnostic.code}
    found = items.get(diagnostic.path)
    if found is None:
        result["file"] = {"path": diagnostic.path}
    else:
        if found.path is not None:
            result["file"] = {"path": found.path, **({"index": found.index} if found.index is not None else {})}
        given = found.item.get("metadata")
        meta: dict[str, Any] = given if isinstance(given, dict) else {}
        ref = {
            "apiVersion": found.item.get("apiVersion"),
            "kind": found.item.get("kind"),
            "name": meta.get("name"),
            "namespace": meta.get("namespace"),
        }
        result["resourceRef"] = {k: v for k, v in ref.items() if v}
    if diagnostic.json_path and diagnostic.json_path != "$":
        result["field"] = {"path": diagnostic.json_path.removeprefix("$").removeprefix(".")}
    return result


def _items(resource_list: ResourceList) -> tuple[dict[str, _Item], list[tuple[str, object]]]:
    """Each item by a key naming its place (``path#index``, else ``<item N>``), and its working copy to load."""
    items: dict[str, _Item] = {}
    documents: list[tuple[str, object]] = []
    for n, item in enumerate(resource_list.items):
        path, index = _locate(item) if isinstance(item, dict) else (None, None)
        key = f"{path}#{index if index is not None else 0}" if path is not None else f"<item {n}>"
        key = key if key not in items else f"{key} (item {n})"
        items[key] = _Item(item if isinstance(item, dict) else {}, path, index)
        documents.append((key, _working_copy(item) if isinstance(item, dict) else item))
    return items, documents


def request(items: dict[str, _Item], given: Given, config: Settings, budget: Budget | None) -> BuildRequest:
    """The build of the ResourceList's ``items`` (``given``, loaded) and of ``paths`` and search paths read from
    disk beside them: the items are the function's own; an InferenceService read only from a search path is not
    rendered."""
    inputs = Inputs.of(config, config.paths)  # searchPath resolves parents and models, as for build
    searched = inputs.only_searched()
    return BuildRequest(
        inputs=inputs,
        settings=config,
        options=build_options(config, config.paths, kube_version=config.kube_version, budget=budget),
        emit=EmitOptions(
            kinds=config.emit,
            owned=lambda o: o.path in items,
            renders=lambda o: o.path in items or not searched(o),
            keep_local_config=True,
            replace_rendered=True,
        ),
        given=given,
    )


def process(
    resource_list: ResourceList,
    config: Settings,
    budget: Budget | None = None,
    place_rendered: bool = True,
    reported: list[Diagnostic] | None = None,
) -> tuple[Manifest, bool]:
    """The output ResourceList, and whether it holds an error result.

    ``reported``, when given, receives the diagnostics behind the results, with their line and column
    (a KRM result has none): the kustomize generator plugin prints them as ``file:line:col``.
    """
    items, documents = _items(resource_list)
    given = Given(*objects_from_documents(documents, config.namespace))
    outcome = build.run(request(items, given, config, budget))
    assert outcome.payload is not None  # a request made here has no usage problem
    result, selection = outcome.payload.result, outcome.payload.selection
    loaded = {o.path for o in given.objects}
    out_items: list[object] = []
    if PASSTHROUGH in config.emit:  # items that are no object omerender knows keep their place in the package
        out_items.extend(resource_list.items[n] for n, key in enumerate(items) if key not in loaded)
    for source, body in selection.pairs:
        if source is None:
            out_items.append(_placed(body, config.output_dir or "") if place_rendered else body)
        elif body is source.body:
            out_items.append(items[source.path].item)
        else:
            out_items.append(_restore(copy.deepcopy(body), items[source.path].item))
    diagnostics = [d for d in result.diagnostics + selection.diagnostics if d.severity != INFO]
    if reported is not None:
        reported.extend(diagnostics)
    output: Manifest = {"apiVersion": resource_list.api_version, "kind": "ResourceList", "items": out_items}
    if resource_list.has_config:
        output["functionConfig"] = resource_list.config
    if diagnostics:
        output["results"] = [_result(d, items) for d in diagnostics]
    return output, has_errors(diagnostics)
