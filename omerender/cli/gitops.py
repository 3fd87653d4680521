"""The GitOps entry points: the Argo CD plugin's ``argocd-generate`` and the KRM function ``krm``."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable

import click

from omerender.cli.build import present_build
from omerender.cli.guard import guard, stdin
from omerender.cli.options import file_layer, say_origins
from omerender.cli.present import resolve_kube_version
from omerender.cli.report import report
from omerender.cli.verdict import concluded, count_reported
from omerender.diagnostics import Diagnostic, sorted_unique
from omerender.errors import EXIT_FINDINGS
from omerender.gitops.confine import confine, root_of
from omerender.settings import Layer, Origin, Route, Settings, SettingsError, for_route, from_env, resolve


def _routed(
    route: Route,
    base: Settings,
    layers: list[Layer],
    paths: list[str],
    root: str,
    env_only: tuple[str, ...] = (),
    package: Layer | None = None,
) -> Settings:
    """``base`` under the settings file (found up to ``root``; then the KRM package's settings object,
    ``package``), the ``OMERENDER_*`` variables (the keys this route takes, and ``env_only``) and the route's own
    ``layers``: the precedence of every route (docs/usage.md)."""
    found, config = file_layer(None, paths, root)
    ours = {spec.stem for spec in for_route(route)}
    files = [found, *([package] if package else [])]
    kept = [Layer(Origin.FILE, {k: v for k, v in layer.values.items() if k in ours}) for layer in files]
    try:
        env = from_env(os.environ, ours | set(env_only))
        return resolve([*kept, env, *layers], dataclasses.replace(base, config=config))
    except SettingsError as exc:
        raise click.UsageError(str(exc)) from None


@click.command("argocd-generate", short_help="Argo CD plugin generate: build with the settings Argo CD passes.")
@click.argument("paths", nargs=-1, type=click.Path())
@guard
def argocd_generate(paths: tuple[str, ...]) -> None:
    """Argo CD plugin generate: build PATHS (default .) with the settings Argo CD passes.

    Reads ARGOCD_APP_PARAMETERS, ARGOCD_ENV_OMERENDER_*, the sidecar's OMERENDER_* (OMERENDER_JOBS too),
    ARGOCD_APP_NAMESPACE, ARGOCD_APP_SOURCE_PATH, KUBE_VERSION and the repository's .omerender.yaml
    (docs/integrations.md). Paths in settings stay inside the repository. With the kustomize-build parameter,
    renders what `kustomize build PATH` prints. Prints only objects, and fails rather than print nothing.
    """
    from omerender.commands.build import BuildRequest  # the core: only when the command runs (start-up)
    from omerender.gitops.argocd import FROM_SIDECAR, SOURCE_PATH, defaults, kustomize_build, layers

    given = list(paths or (".",))
    try:
        route = layers(os.environ)
        kustomized = kustomize_build(os.environ)
    except SettingsError as exc:
        raise click.UsageError(str(exc)) from None
    root = root_of(".", os.environ.get(SOURCE_PATH, ""))
    settings = _routed(Route.ARGOCD, defaults(os.environ), route, given, root, FROM_SIDECAR)
    confine(settings, root, ".")
    say_origins(settings)
    label = "KUBE_VERSION" if settings.origin("kube-version") is Origin.DEFAULT else "kube-version"
    read = _kustomize_output(given, root, settings) if kustomized else stdin
    request = BuildRequest.from_settings(settings, ["-"] if kustomized else given, stdin=read, kube_label=label)
    with concluded(settings):
        present_build(request)


def _kustomize_output(given: list[str], root: str, settings: Settings) -> Callable[..., bytes]:
    """What ``kustomize build`` prints for the one folder in ``given``, as the build's stdin; a kustomization that
    names what lies outside the repository, or a build that fails, is reported (located) and ends the run (exit 1).
    """
    from omerender.gitops.kustomize_run import kustomized
    from omerender.paths import resolves_within

    if len(given) != 1 or not os.path.isdir(given[0]) or not resolves_within(given[0], root):
        raise click.UsageError("kustomize-build: give one folder inside the repository (the application's path)")
    built = kustomized(given[0], root, os.environ, settings.max_file_size)
    if built.problems:
        with concluded(settings):
            report(sorted_unique(list(built.problems)), (), None, settings.max_errors, 0)
            sys.exit(EXIT_FINDINGS)

    def output(limit: int = -1) -> bytes:
        return built.output if limit < 0 else built.output[:limit]

    output.bounded = True  # type: ignore[attr-defined]
    return output


@click.command(short_help="KRM function and kustomize generator plugin: ResourceList in and out.")
@click.argument("config", required=False, type=click.Path(dir_okay=False))
@guard
def krm(config: str | None) -> None:
    """KRM function: a ResourceList on stdin, one on stdout (kpt fn eval --exec, kustomize --enable-exec).

    With CONFIG, act as a kustomize exec generator plugin: read the functionConfig from CONFIG and
    print the emitted objects as a plain stream (docs/integrations.md).
    """
    from omerender.gitops.krm import (
        ItemsUnreadable,
        KrmError,
        defaults,
        layer,
        package_lock,
        package_settings,
        process,
        read_resource_list,
    )
    from omerender.load.bounded import Budget
    from omerender.yamlwrite import dump_one, dump_stream

    budget = Budget()
    try:
        resource_list = read_resource_list(config, stdin, budget)
    except ItemsUnreadable as exc:
        report([exc.diagnostic], (), None, None, 0)
        sys.exit(EXIT_FINDINGS)
    except KrmError as exc:
        raise click.UsageError(str(exc)) from None
    root = root_of(".", "")
    try:
        found = layer(resource_list.config)
        package = package_settings(resource_list, ".", root)
    except (KrmError, SettingsError) as exc:
        raise click.UsageError(str(exc)) from None
    settings = _routed(Route.KRM, defaults(), [found], ["."], root, package=package)
    lock = package_lock(resource_list, ".", root) if not settings.lock_file and not settings.paths else None
    if lock is not None:  # the package's lock, as `build PACKAGE` reads it, not the one where kpt runs
        settings = dataclasses.replace(settings, lock_file=lock)
    confine(settings, root, ".")
    if settings.origin("kube-version") is not Origin.DEFAULT:
        kube = resolve_kube_version(settings.kube_version, label="kubeVersion")
        settings = dataclasses.replace(settings, kube_version=kube)
    reported: list[Diagnostic] = []
    output, failed = process(resource_list, settings, budget, place_rendered=not config, reported=reported)
    with concluded(settings):
        if not config:
            count_reported(reported)  # they are the ResourceList's results
            click.echo(dump_one(output), nl=False)
        else:
            report(sorted_unique(reported), (), None, settings.max_errors, 0)  # file:line:col, as build reports
            if not failed:
                click.echo(dump_stream(output["items"]), nl=False)
        if failed:
            sys.exit(EXIT_FINDINGS)


COMMANDS = (argocd_generate, krm)
