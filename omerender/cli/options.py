"""The shared options, made from the settings registry, and the one decorator that gives them to a command.

``@settings_options("build")`` adds every option the registry lists for ``build`` and, before the command
runs, folds their values (over the ``.omerender.yaml`` file and the ``OMERENDER_*`` variables) into one
``Settings``, passed as ``settings``: no command declares a shared option or passes one on by hand.
"""

from __future__ import annotations

import functools
import math
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

import click

from omerender.cli.guard import F, guard
from omerender.cli.params import folder_callback, namespace_callback
from omerender.cli.present import refuse_reports_in_input
from omerender.cli.report import report
from omerender.cli.verdict import concluded
from omerender.diagnostics import sorted_unique
from omerender.errors import EXIT_USAGE
from omerender.settings import (
    Kind,
    Layer,
    Origin,
    Settings,
    SettingsError,
    Spec,
    for_command,
    from_env,
    report_targets,
    resolve,
)

_TYPES: Mapping[Kind, Callable[[Spec], dict[str, Any]]] = {
    Kind.TEXT: lambda s: {},
    Kind.PATH: lambda s: {"type": click.Path(file_okay=s.stem != "output-dir", dir_okay=s.stem == "output-dir")},
    Kind.PATHS: lambda s: {"type": click.Path(), "multiple": True},
    Kind.CHOICE: lambda s: {"type": click.Choice(s.choices)},
    Kind.CHOICES: lambda s: {"type": click.Choice(s.choices), "multiple": True},
    Kind.COUNT: lambda s: {"type": click.IntRange(min=0)},
    Kind.SIZE: lambda s: {"type": click.IntRange(min=1, max=s.maximum)},
    Kind.NUMBER: lambda s: {"type": click.FloatRange(min=0, min_open=True, max=s.maximum)},
    Kind.FLAG: lambda s: {"is_flag": True},
    Kind.VERBOSITY: lambda s: {"count": True},
    Kind.REPORTS: lambda s: {"multiple": True},
}


def _reports_callback(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    try:
        report_targets(values)
    except SettingsError as exc:
        raise click.BadParameter(str(exc).removeprefix("report-format: "), ctx, param) from None
    return values


def _finite_callback(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and not math.isfinite(value):  # click's FloatRange lets nan through
        raise click.BadParameter(f"{value} is not a number", ctx, param)
    return value


_CALLBACKS = {
    "namespace": namespace_callback,
    "output-dir": folder_callback,
    "report-format": _reports_callback,
    "gpu-memory": _finite_callback,
}
_NEGATABLE = {"fail-empty"}  # --fail-empty/--no-fail-empty


def _option(spec: Spec, command: str) -> Callable[[F], F]:
    names = [f"--{spec.stem}/--no-{spec.stem}" if spec.stem in _NEGATABLE else f"--{spec.stem}"]
    if spec.short:
        names.insert(0, spec.short)
    extra = _TYPES[spec.kind](spec)
    shown = spec.default is not None and spec.kind not in (Kind.VERBOSITY, Kind.PATH, Kind.PATHS, Kind.REPORTS)
    shown = shown and (spec.kind is not Kind.FLAG or spec.stem in _NEGATABLE)
    if spec.metavar:
        extra["metavar"] = spec.metavar
    return click.option(
        *names,
        spec.name,
        default=spec.default,
        show_default=shown,
        callback=_CALLBACKS.get(spec.stem),
        help=spec.help_for.get(command, spec.help),
        **extra,
    )


def _given(ctx: click.Context, specs: tuple[Spec, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The values typed on the command line (not click's defaults), popped from ``kwargs``."""
    given: dict[str, Any] = {}
    for spec in specs:
        value = kwargs.pop(spec.name)
        if ctx.get_parameter_source(spec.name) is click.core.ParameterSource.COMMANDLINE:
            given[spec.stem] = value
    if kwargs.pop("strict", False):
        given["validate"] = "strict"
    return given


def fold(ctx: click.Context, specs: tuple[Spec, ...], kwargs: dict[str, Any], paths: list[str]) -> Settings:
    """The command's settings: its defaults, under the settings file, the environment and the command line."""
    given = _given(ctx, specs, kwargs)
    ours = {spec.stem for spec in specs}
    found, config = file_layer(kwargs.pop("config", None), paths)
    if "output" in kwargs:
        given["output"] = kwargs.pop("output")
    try:
        env = from_env(os.environ)
        layers = [
            Layer(Origin.FILE, {k: v for k, v in found.values.items() if k in ours}),
            Layer(Origin.ENV, {k: v for k, v in env.values.items() if k in ours}),
            Layer(Origin.CLI, given),
        ]
        return resolve(layers, Settings(config=config))
    except SettingsError as exc:
        raise click.UsageError(str(exc)) from None


def file_layer(config: str | None, paths: list[str], top: str | None = None) -> tuple[Layer, str | None]:
    """The settings file's values (``config``, else ``.omerender.yaml`` found from the first path, up to
    ``top`` at most, which is then the repository its paths stay in) and its path; its problems (the serving-check
    exemptions and severities too) are reported (located) and end the run with exit 2, as every settings error
    does."""
    from omerender.load import settings_file  # YAML: only when a command runs

    path = config or settings_file.find(paths, top)
    if path is None:
        return Layer(Origin.FILE, {}), None
    layer, problems = settings_file.read(path, top)
    if not problems:  # its serving-check rules too: a bad one is a settings error like any other key's
        from omerender.load import serving_rules

        problems = sorted_unique(serving_rules.read(path, "on")[1])
    if problems:
        report(problems, (), None, None, 0)
        sys.exit(EXIT_USAGE)
    return layer, path


def say_origins(settings: Settings) -> None:
    """At ``-v``: where each setting not typed on the command line came from."""
    if settings.verbose and settings.config:
        click.echo(f"omerender: settings file {settings.config}", err=True)
    for line in settings.provenance() if settings.verbose else ():
        if not line.endswith(f"({Origin.CLI})"):
            click.echo(f"omerender: setting {line}", err=True)


def settings_options(command: str) -> Callable[[F], F]:
    """Give ``command`` its shared options; it receives them folded into ``settings: Settings``."""
    specs = for_command(command)

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(**kwargs: Any) -> Any:
            ctx = click.get_current_context()
            paths = [p for p in kwargs.get("paths", ()) if p != "-"]
            kwargs["settings"] = fold(ctx, specs, kwargs, paths)
            say_origins(kwargs["settings"])
            inputs = [*paths, *kwargs.get("old", ()), *kwargs.get("new", ()), *kwargs["settings"].search_path]
            refuse_reports_in_input(kwargs["settings"], inputs, command)
            with concluded(kwargs["settings"]):
                return fn(**kwargs)

        decorated: Any = guard(wrapper)  # reading the settings file is the run's too: never a traceback
        decorated = click.option("--strict", is_flag=True, hidden=True, help="Same as --validate=strict.")(decorated)
        decorated = click.option(
            "--config",
            type=click.Path(dir_okay=False),
            help="Read settings from this file [default: .omerender.yaml in the first PATH or above it].",
        )(decorated)
        for spec in reversed(specs):
            decorated = _option(spec, command)(decorated)
        return decorated  # type: ignore[no-any-return]

    return decorate
