"""Settings of the Argo CD Config Management Plugin, from the environment Argo CD gives ``generate``.

Pure: the CLI passes ``os.environ`` in; nothing here reads the environment itself. The parameters are the
settings registry's Argo CD route (``omerender.settings``), by the same stems as the command-line options.
Layers, later ones winning: the plugin's defaults (and ``ARGOCD_APP_NAMESPACE``, ``KUBE_VERSION`` from Argo
CD's build environment), the ``.omerender.yaml`` file, ``ARGOCD_ENV_OMERENDER_*`` (the Application's
``plugin.env``), then ``ARGOCD_APP_PARAMETERS`` (the Application's ``plugin.parameters`` as JSON). Argo CD
does not send the defaults announced in plugin.yaml, so ``DEFAULTS`` must match them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from omerender.load import jsondepth
from omerender.output.emit import kinds_problem
from omerender.settings import (
    ARGOCD_ENV_PREFIX,
    BY_STEM,
    INPUTS,
    PASSTHROUGH,
    Kind,
    Layer,
    Origin,
    Route,
    Settings,
    SettingsError,
    coerce,
    for_route,
)

PARAMETERS = "ARGOCD_APP_PARAMETERS"
SOURCE_PATH = "ARGOCD_APP_SOURCE_PATH"
DEFAULT_EMIT = (INPUTS, PASSTHROUGH)
DEFAULT_MAX_ERRORS = 20
ALIASES = {"search-paths": "search-path"}  # the parameter's earlier name, still read
ALLOW_EMPTY = "allow-empty"  # the plugin's own: --no-fail-empty and no --fail-empty-input
KUSTOMIZE_BUILD = "kustomize-build"  # the plugin's own: render `kustomize build .` (gitops.kustomize_run)
OWN = (ALLOW_EMPTY, KUSTOMIZE_BUILD)
FROM_SIDECAR = ("jobs",)
"""What the repo-server's own environment (``OMERENDER_*``) gives besides the plugin's settings: how many processes
render, not what; neither the repository (its settings file) nor the Application (a parameter) chooses it."""


def defaults(env: Mapping[str, str]) -> Settings:
    """What the plugin renders with when nothing is set: inputs and passthrough, at most 20 diagnostics,
    fail rather than print nothing, the Application's namespace and the cluster's Kubernetes version."""
    return Settings(
        emit=DEFAULT_EMIT,
        max_errors=DEFAULT_MAX_ERRORS,
        fail_empty=True,
        fail_empty_input=True,
        namespace=env.get("ARGOCD_APP_NAMESPACE") or "default",
        kube_version=env.get("KUBE_VERSION") or None,
    )


EMPTY_IS_DEFAULT = (Kind.TEXT, Kind.PATH, Kind.CHOICE, Kind.NUMBER)  # the UI sends "" for a parameter left blank


def _typed(name: str, where: str, value: str | tuple[str, ...]) -> dict[str, Any]:
    """``{stem: value}`` for parameter ``name`` (``emit``, ``search-path``, ...) given as ``value``."""
    label = f"{where} {name}"
    stem = ALIASES.get(name, name)
    if stem == ALLOW_EMPTY:
        allowed = coerce(BY_STEM["fail-empty"], value if isinstance(value, str) else ",".join(value), label)
        return {"fail-empty": not allowed, "fail-empty-input": not allowed}
    if stem == KUSTOMIZE_BUILD:
        return {}  # read by kustomize_build
    if stem not in {s.stem for s in for_route(Route.ARGOCD)}:
        known = sorted([*(s.stem for s in for_route(Route.ARGOCD)), *OWN])
        raise SettingsError(f"{label}: unknown parameter; known: {', '.join(known)}")
    if isinstance(value, str) and not value.strip() and BY_STEM[stem].kind in EMPTY_IS_DEFAULT:
        return {}  # an empty text parameter keeps the default (the Application's namespace, the cluster's version)
    typed = coerce(BY_STEM[stem], value, label)
    if stem == "emit":
        problem = kinds_problem(typed) or ("" if typed else "at least one value is needed")
        if problem:
            raise SettingsError(f"{label}: {problem}")
    return {stem: typed}


def _parameters(raw: str) -> list[tuple[str, str | tuple[str, ...]]]:
    try:
        entries: Any = jsondepth.loads(raw)
    except json.JSONDecodeError as exc:
        raise SettingsError(f"{PARAMETERS} is not valid JSON: {exc.msg} at character {exc.pos}") from None
    except ValueError as exc:
        raise SettingsError(f"{PARAMETERS}: {exc}") from None
    if not isinstance(entries, list):
        raise SettingsError(f"{PARAMETERS} must be a JSON list of parameters")
    found: list[tuple[str, str | tuple[str, ...]]] = []
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise SettingsError(f"{PARAMETERS}: every parameter needs a name, got {entry!r}")
        name = entry["name"]
        if isinstance(entry.get("array"), list):
            found.append((name, tuple(str(v) for v in entry["array"])))
        elif "string" in entry:
            found.append((name, str(entry["string"])))
        elif "map" in entry:
            raise SettingsError(f"{PARAMETERS} {name}: a map is not accepted here")
        else:
            found.append((name, ""))
    return found


def layers(env: Mapping[str, str]) -> list[Layer]:
    """The plugin env (``ARGOCD_ENV_OMERENDER_*``), then the parameters; raises SettingsError naming a bad one."""
    from_env: dict[str, Any] = {}
    for key in sorted(env):
        if key.startswith(ARGOCD_ENV_PREFIX):
            from_env.update(_typed(key[len(ARGOCD_ENV_PREFIX) :].lower().replace("_", "-"), "plugin env", env[key]))
    given: dict[str, Any] = {}
    if env.get(PARAMETERS, "").strip():
        for name, value in _parameters(env[PARAMETERS]):
            given.update(_typed(name, "parameter", value))
    return [Layer(Origin.ENV, from_env), Layer(Origin.PARAMETER, given)]


def kustomize_build(env: Mapping[str, str]) -> bool:
    """Whether the Application asks to render ``kustomize build`` of its folder (``kustomize-build``: a parameter,
    else ``ARGOCD_ENV_OMERENDER_KUSTOMIZE_BUILD``; off by default). Not a setting: the repository's settings file
    never chooses to run a program. Raises SettingsError for a value that is no boolean."""
    env_name = ARGOCD_ENV_PREFIX + KUSTOMIZE_BUILD.upper().replace("-", "_")
    given: tuple[str, str | tuple[str, ...]] | None = None
    if env_name in env:
        given = (f"plugin env {KUSTOMIZE_BUILD}", env[env_name])
    if env.get(PARAMETERS, "").strip():
        for name, value in _parameters(env[PARAMETERS]):
            if name == KUSTOMIZE_BUILD:
                given = (f"parameter {KUSTOMIZE_BUILD}", value)
    if given is None:
        return False
    label, value = given
    return bool(coerce(BY_STEM["fail-empty"], value if isinstance(value, str) else ",".join(value), label))
