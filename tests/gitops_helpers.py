"""Helpers for the GitOps integration tests: run omerender and the real clients as processes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "fixtures" / "llama-demo"
BIN = Path(sys.executable).parent  # the venv's bin: holds the omerender console script


@dataclass(frozen=True)
class Proc:
    code: int
    out: str
    err: str

    def __str__(self) -> str:
        return f"exit {self.code}\n--- stdout\n{self.out}\n--- stderr\n{self.err}"


def env_with_omerender(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment with the venv's bin first on PATH, so `omerender` resolves as a host would run it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "KUBE_VERSION", "PRE_COMMIT"))}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra or {})
    return env


def run(
    args: list[str],
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
    timeout: int = 120,
) -> Proc:
    done = subprocess.run(
        args,
        cwd=cwd,
        env=env or env_with_omerender(),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    return Proc(done.returncode, done.stdout, done.stderr)


def omerender(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, stdin: str | None = None) -> Proc:
    return run([sys.executable, "-m", "omerender", *args], cwd=cwd, env=env, stdin=stdin)


def app_repository(root: Path, files: dict[str, str]) -> Path:
    """A repository at ``root`` (``.git`` marks its top) holding one app, ``apps/llama``, of ``files`` (name: text)."""
    app = root / "apps" / "llama"
    app.mkdir(parents=True)
    (root / ".git").mkdir()
    for name, text in files.items():
        (app / name).write_text(text, encoding="utf-8")
    return root


def kpt_package(package: Path, shim_dir: Path, config: dict[str, str] | None = None) -> None:
    """Make ``package`` a kpt package whose pipeline runs ``omerender krm`` (through a shim in ``shim_dir``: kpt's
    ``exec`` takes one program), with ``config`` as the function's configMap."""
    shim = shim_dir / "omerender-krm"
    shim.write_text('#!/bin/sh\nexec omerender krm "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    mutator: dict[str, Any] = {"exec": str(shim), **({"configMap": config} if config else {})}
    kptfile = {
        "apiVersion": "kpt.dev/v1",
        "kind": "Kptfile",
        "metadata": {"name": package.name, "annotations": {"config.kubernetes.io/local-config": "true"}},
        "pipeline": {"mutators": [mutator]},
    }
    (package / "Kptfile").write_text(yaml.safe_dump(kptfile), encoding="utf-8")


def argocd_generate(
    app: Path, parameters: list[dict[str, object]], namespace: str = "demo", env: dict[str, str] | None = None
) -> Proc:
    """``argocd-generate`` in ``app`` as Argo CD's repo-server runs it for app ``apps/llama``: the rendered objects
    (``emit``) and ``parameters`` (Argo CD's ``ARGOCD_APP_PARAMETERS`` entries), ``env`` on top."""
    given = {
        "ARGOCD_APP_NAMESPACE": namespace,
        "ARGOCD_APP_SOURCE_PATH": "apps/llama",
        "KUBE_VERSION": "1.30.1",
        "ARGOCD_APP_PARAMETERS": json.dumps([{"name": "emit", "array": ["rendered"]}, *parameters]),
        **(env or {}),
    }
    return run(["omerender", "argocd-generate"], cwd=app, env=env_with_omerender(given))


def krm_with(repo: Path, spec: dict[str, object]) -> Proc:
    """``omerender krm fn.yaml`` in ``repo`` with an OmeRender functionConfig holding ``spec``."""
    config = {"apiVersion": "omerender.io/v1alpha1", "kind": "OmeRender", "metadata": {"name": "o"}, "spec": spec}
    (repo / "fn.yaml").write_text(yaml.safe_dump(config))
    return run(["omerender", "krm", "fn.yaml"], cwd=repo, env=env_with_omerender())


def need(binary: str) -> str:
    found = shutil.which(binary)
    if found is None:
        pytest.skip(f"{binary} is not installed")
    return found


def objects(text: str) -> list[dict[str, Any]]:
    """A YAML (or JSON) stream as Kubernetes objects; fails the test on anything else."""
    docs = [d for d in yaml.safe_load_all(text) if d is not None]
    for doc in docs:
        assert (
            isinstance(doc, dict)
            and doc.get("apiVersion")
            and doc.get("kind")
            and (doc.get("metadata") or {}).get("name")
        ), doc
    return docs


def identity(obj: dict[str, Any]) -> tuple[str, str, str, str]:
    meta = obj.get("metadata") or {}
    return (str(obj.get("apiVersion")), str(obj.get("kind")), str(meta.get("namespace", "")), str(meta.get("name")))


def by_identity(docs: list[dict[str, Any]]) -> dict[tuple[str, str, str, str], dict[str, Any]]:
    table = {identity(d): d for d in docs}
    assert len(table) == len(docs), "duplicate objects in the stream"
    return table


def without_tool_annotations(obj: dict[str, Any]) -> dict[str, Any]:
    """The object without kpt/kustomize bookkeeping annotations (path, index, seqindent, id)."""
    out = yaml.safe_load(yaml.safe_dump(obj))
    annotations = (out.get("metadata") or {}).get("annotations") or {}
    for key in [
        k
        for k in annotations
        if k.startswith(
            ("internal.config.kubernetes.io/", "config.kubernetes.io/", "config.k8s.io/", "kustomize.config.k8s.io/")
        )
    ]:
        del annotations[key]
    if "annotations" in (out.get("metadata") or {}) and not annotations:
        del out["metadata"]["annotations"]
    return out
