"""Run ``kustomize build`` on an application folder for the Argo CD plugin's ``kustomize-build`` parameter.

One fixed argument vector, no shell: ``kustomize build --load-restrictor LoadRestrictionsRootOnly FOLDER`` (or
``kubectl kustomize`` with the same flags where no ``kustomize`` is installed). Never ``--enable-helm``,
``--enable-alpha-plugins`` or ``--enable-exec``, so no kustomization can make it run a program. The child gets
only ``PATH``, ``HOME`` and ``LANG`` of the environment, no stdin, a deadline and a cap on what it prints; past
either it is killed and the build fails, located at the kustomization.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from omerender import codes
from omerender.diagnostics import ERROR, Diagnostic
from omerender.errors import UsageError
from omerender.gitops import kustomize_scope
from omerender.load.kustomize import kustomization_in
from omerender.names import clip

TIMEOUT_SECONDS = 60.0
MAX_STDERR = 64 * 1024  # what is kept of kustomize's own message
RESTRICTOR = ("--load-restrictor", "LoadRestrictionsRootOnly")
KEPT_ENV = ("PATH", "HOME", "LANG")
_CHUNK = 64 * 1024


class NoKustomize(UsageError):
    """Neither ``kustomize`` nor ``kubectl`` is on PATH: the sidecar image is not the one documented."""


@dataclass(frozen=True)
class Built:
    """kustomize's output, or the diagnostic saying why there is none."""

    output: bytes = b""
    problems: tuple[Diagnostic, ...] = ()


def program(search_path: str | None) -> tuple[str, ...]:
    """The command that builds a kustomization: ``kustomize build``, else ``kubectl kustomize``, looked up on
    ``search_path`` (the PATH variable); raises NoKustomize when neither is there."""
    found = shutil.which("kustomize", path=search_path)
    if found is not None:
        return (found, "build")
    kubectl = shutil.which("kubectl", path=search_path)
    if kubectl is not None:
        return (kubectl, "kustomize")
    raise NoKustomize("kustomize-build: neither kustomize nor kubectl is on PATH (the sidecar image ships kustomize)")


def argv(command: tuple[str, ...], folder: str) -> list[str]:
    return [*command, *RESTRICTOR, folder]


def _drain(process: subprocess.Popen[bytes], limit: int, deadline: float) -> tuple[bytes, bytes, str | None]:
    """stdout (at most ``limit`` bytes), stderr (at most ``MAX_STDERR``), and why the child was stopped, if it
    was: reads both pipes until they close, the deadline passes or stdout passes its cap."""
    out, err = bytearray(), bytearray()
    assert process.stdout is not None and process.stderr is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ, out)
        selector.register(process.stderr, selectors.EVENT_READ, err)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return bytes(out), bytes(err), f"took longer than {TIMEOUT_SECONDS:.0f} s"
            for key, _ in selector.select(timeout=left):
                chunk = os.read(key.fd, _CHUNK)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                buffer: bytearray = key.data
                buffer.extend(chunk if buffer is out else chunk[: max(0, MAX_STDERR - len(buffer))])
                if len(out) > limit:
                    return bytes(out), bytes(err), f"printed more than {limit} bytes"
    return bytes(out), bytes(err), None


def _stop(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # its own session: whatever it started goes too
    process.wait()


def build(command: tuple[str, ...], folder: str, env: Mapping[str, str], limit: int, shown: str) -> Built:
    """``kustomize build`` of ``folder``: its output, at most ``limit`` bytes, or a diagnostic at ``shown`` (the
    kustomization file) saying why it failed."""
    child_env = {key: env[key] for key in KEPT_ENV if key in env}
    try:
        process = subprocess.Popen(
            argv(command, folder),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=child_env,
            start_new_session=True,
        )
    except OSError as exc:
        raise NoKustomize(f"kustomize-build: cannot run {command[0]}: {exc.strerror}") from None
    deadline = time.monotonic() + TIMEOUT_SECONDS
    try:
        out, err, stopped = _drain(process, limit, deadline)
        if stopped is None:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                stopped = f"took longer than {TIMEOUT_SECONDS:.0f} s"
    finally:
        if process.poll() is None:
            _stop(process)
        for pipe in (process.stdout, process.stderr):
            if pipe is not None:
                pipe.close()
    said = clip(" ".join(err.decode("utf-8", "replace").split()), 600)
    if stopped is not None:
        return Built(problems=(_problem(shown, f"{' '.join(command[-2:])} {stopped}; stopped"),))
    if process.returncode != 0:
        return Built(problems=(_problem(shown, f"kustomize build failed (exit {process.returncode}): {said}"),))
    return Built(output=out)


def _problem(shown: str, message: str) -> Diagnostic:
    return Diagnostic(shown, 1, 1, ERROR, f"kustomize-build: {message}", codes.KUSTOMIZATION)


def kustomized(folder: str, root: str, env: Mapping[str, str], limit: int) -> Built:
    """What ``kustomize build folder`` prints for an application in the repository ``root``, once every path its
    kustomizations name is found inside it (``kustomize_scope``), or why there is none (located problems)."""
    refused = kustomize_scope.refusals(folder, root)
    if refused:
        return Built(problems=tuple(refused))
    found = kustomization_in(Path(folder))
    shown = os.path.normpath(str(found) if found is not None else os.path.join(folder, "kustomization.yaml"))
    return build(program(env.get("PATH")), folder, env, limit, shown)
