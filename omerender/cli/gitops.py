"""The GitOps entry points: the Argo CD plugin's ``argocd-generate`` and the KRM function ``krm``."""

from __future__ import annotations

import sys
from typing import Any

import click

from omerender.cli.build import build
from omerender.cli.common import (
    guard,
    report,
    resolve_kube_version,
    stdin,
)
from omerender.errors import EXIT_FINDINGS


@click.command("argocd-generate", short_help="Argo CD plugin generate: build with the settings Argo CD passes.")
@click.argument("paths", nargs=-1, type=click.Path())
@click.pass_context
@guard
def argocd_generate(ctx: click.Context, paths: tuple[str, ...]) -> None:
    """Argo CD plugin generate: build PATHS (default .) with the settings Argo CD passes.

    Reads ARGOCD_APP_PARAMETERS, ARGOCD_ENV_OMERENDER_*, ARGOCD_APP_NAMESPACE and KUBE_VERSION
    (docs/integrations.md). Prints only objects, and fails rather than print nothing.
    """
    import os

    from omerender.gitops.argocd import SettingsError, settings_from_env

    try:
        settings = settings_from_env(os.environ)
    except SettingsError as exc:
        raise click.UsageError(str(exc)) from None
    options: dict[str, Any] = {
        "paths": paths or (".",),
        "namespace": settings.namespace,
        "emit": settings.emit,
        "search_path": settings.search_paths,
        "fail_empty": not settings.allow_empty,
        "fail_empty_input": not settings.allow_empty,
        "max_errors": settings.max_errors,
    }
    if settings.kube_version:  # read as --kube-version is; Argo CD always passes its cluster's version
        options["kube_version"] = resolve_kube_version(settings.kube_version, label="KUBE_VERSION") or "none"
    ctx.invoke(build, **options)


@click.command(short_help="KRM function and kustomize generator plugin: ResourceList in and out.")
@click.argument("config", required=False, type=click.Path(dir_okay=False))
@guard
def krm(config: str | None) -> None:
    """KRM function: a ResourceList on stdin, one on stdout (kpt fn eval --exec, kustomize --enable-exec).

    With CONFIG, act as a kustomize exec generator plugin: read the functionConfig from CONFIG and
    print the emitted objects as a plain stream (docs/integrations.md).
    """
    from omerender.gitops.krm import KrmError, parse_config, process, read_resource_list
    from omerender.load.bounded import Budget
    from omerender.load.reader import LoadOptions, load
    from omerender.load.yamlio import dump_one, dump_stream

    budget = Budget()
    try:
        resource_list = read_resource_list(config, stdin, budget)
    except KrmError as exc:
        raise click.UsageError(str(exc)) from None
    try:
        settings = parse_config(resource_list.get("functionConfig") if isinstance(resource_list, dict) else None)
        loaded = (
            load(list(settings.paths), LoadOptions(namespace=settings.namespace, budget=budget))
            if settings.paths
            else None
        )
        extra = (loaded.objects, loaded.diagnostics) if loaded else ([], [])
        reported: list[Any] = []
        output, failed = process(resource_list, settings, extra, place_rendered=not config, reported=reported)
    except KrmError as exc:
        raise click.UsageError(str(exc)) from None
    if not config:
        click.echo(dump_one(output), nl=False)
    else:
        from omerender.diagnostics import sorted_unique

        report(sorted_unique(reported), ("text",), None, None, 0)  # file:line:col, as build reports them
        if not failed:
            click.echo(dump_stream(output["items"]), nl=False)
    if failed:
        sys.exit(EXIT_FINDINGS)


COMMANDS = (argocd_generate, krm)
