"""Settings of the Argo CD Config Management Plugin, from the environment Argo CD gives ``generate``.

Pure: the CLI passes ``os.environ`` in; nothing here reads the environment itself. Sources, later
ones winning: defaults, ``ARGOCD_ENV_OMERENDER_*`` (the Application's ``plugin.env``, which Argo CD
prefixes with ``ARGOCD_ENV_``), then ``ARGOCD_APP_PARAMETERS`` (the Application's
``plugin.parameters`` as JSON). Argo CD does not send the defaults announced in plugin.yaml, so
the defaults below must match them. ``KUBE_VERSION`` and ``ARGOCD_APP_NAMESPACE`` come from Argo
CD's build environment.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from omerender.errors import UsageError
from omerender.load import jsondepth
from omerender.names import clip, is_dns_label
from omerender.output.emit import INPUTS, PASSTHROUGH, kinds_problem

ENV_PREFIX = "ARGOCD_ENV_OMERENDER_"
PARAMETERS = "ARGOCD_APP_PARAMETERS"
DEFAULT_EMIT = (INPUTS, PASSTHROUGH)
DEFAULT_MAX_ERRORS = 20
_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off", ""}


class SettingsError(UsageError):
    """A parameter or variable that cannot be used; the message names it."""


@dataclass(frozen=True)
class Settings:
    emit: tuple[str, ...] = DEFAULT_EMIT
    search_paths: tuple[str, ...] = ()
    namespace: str = "default"
    allow_empty: bool = False
    max_errors: int = DEFAULT_MAX_ERRORS
    kube_version: str | None = None


def _split(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.replace("\n", ",").split(",") if part.strip())


def _boolean(name: str, text: str) -> bool:
    if text.strip().lower() in _TRUE:
        return True
    if text.strip().lower() in _FALSE:
        return False
    raise SettingsError(f"{name}: expected true or false, got {text!r}")


def _count(name: str, text: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise SettingsError(f"{name}: expected a whole number, got {text!r}") from None
    if value < 0:
        raise SettingsError(f"{name}: expected a number >= 0, got {value}")
    return value


def _apply(settings: Settings, name: str, where: str, value: str | tuple[str, ...]) -> Settings:
    """``settings`` with parameter ``name`` (``emit``, ``search-paths``, ...) set from ``value``."""
    label = f"{where} {name}"
    items = value if isinstance(value, tuple) else _split(value)
    text = value if isinstance(value, str) else ",".join(value)
    if name == "emit":
        problem = kinds_problem(items) or ("" if items else "at least one value is needed")
        if problem:
            raise SettingsError(f"{label}: {problem}")
        return replace(settings, emit=tuple(dict.fromkeys(items)))
    if name == "search-paths":
        return replace(settings, search_paths=items)
    if name == "namespace":
        return replace(settings, namespace=text.strip()) if text.strip() else settings
    if name == "allow-empty":
        return replace(settings, allow_empty=_boolean(label, text))
    if name == "max-errors":
        return replace(settings, max_errors=_count(label, text))
    raise SettingsError(f"{label}: unknown parameter; known: emit, search-paths, namespace, allow-empty, max-errors")


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


def settings_from_env(env: Mapping[str, str]) -> Settings:
    """The plugin's settings from Argo CD's environment; raises SettingsError naming a bad value."""
    settings = Settings(
        namespace=env.get("ARGOCD_APP_NAMESPACE") or "default", kube_version=env.get("KUBE_VERSION") or None
    )
    for key in sorted(env):
        if key.startswith(ENV_PREFIX):
            name = key[len(ENV_PREFIX) :].lower().replace("_", "-")
            settings = _apply(settings, name, "plugin env", env[key])
    if env.get(PARAMETERS, "").strip():
        for name, value in _parameters(env[PARAMETERS]):
            settings = _apply(settings, name, "parameter", value)
    if not is_dns_label(settings.namespace):
        raise SettingsError(f"namespace {clip(settings.namespace)!r} is not a DNS-1123 label")
    return settings
