"""The same precedence on every route: default < settings file < OMERENDER_* variable < the route's own option
(a command-line flag, a pre-commit hook's args, an Argo CD parameter, a KRM functionConfig key).

Each route renders one app whose objects set no namespace; the layers are added one by one, and the namespace
the rendered Deployment lands in says which layer won. The pre-commit hook runs its entry and args from
.pre-commit-hooks.yaml as pre-commit does; the KRM function runs under the real kpt.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from gitops_helpers import FIXTURE, REPO, Proc, env_with_omerender, need, objects, run

APP = "apps/llama"
NAMESPACES = ("default", "from-file", "from-env", "from-flag")  # what each layer gives, weakest first
LAYERS = ("default", "settings file", "env", "flag")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository holding the llama-demo app with every namespace taken out."""
    root = tmp_path / "repo"
    app = root / APP
    app.mkdir(parents=True)
    (root / ".git").mkdir()
    for source in sorted(FIXTURE.glob("*.yaml")):
        docs = list(yaml.safe_load_all(source.read_text(encoding="utf-8")))
        for doc in docs:
            doc["metadata"].pop("namespace", None)
        (app / source.name).write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    return root


def _namespace(proc: Proc, docs: list[dict[str, object]] | None = None) -> str:
    found = docs if docs is not None else objects(proc.out)
    deployments = [d for d in found if d["kind"] == "Deployment"]
    assert len(deployments) == 1, proc
    meta = deployments[0]["metadata"]
    assert isinstance(meta, dict)
    return str(meta["namespace"])


def _build(root: Path, env: dict[str, str], flag: str | None) -> str:
    proc = run(["omerender", "build", APP, *(["-n", flag] if flag else [])], cwd=root, env=env)
    assert proc.code == 0, proc
    return _namespace(proc)


def _hook(root: Path, env: dict[str, str], flag: str | None) -> str:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    hook = next(h for h in hooks if h["id"] == "omerender-build")
    out = root / "rendered"
    args = ["--output-dir", "rendered", *(["--namespace", flag] if flag else []), APP]  # the user's args
    proc = run([*shlex.split(hook["entry"]), *args], cwd=root, env=env)
    assert proc.code in (0, 1) and out.is_dir(), proc  # 1: --fail-on-change, the folder was written
    docs = [d for path in sorted(out.rglob("*.yaml")) for d in objects(path.read_text(encoding="utf-8"))]
    return _namespace(proc, docs)


def _argocd(root: Path, env: dict[str, str], flag: str | None) -> str:
    parameters = [{"name": "emit", "array": ["rendered"]}, *([{"name": "namespace", "string": flag}] if flag else [])]
    env = {**env, "ARGOCD_APP_SOURCE_PATH": APP, "ARGOCD_APP_PARAMETERS": json.dumps(parameters)}
    proc = run(["omerender", "argocd-generate", "."], cwd=root / APP, env=env)
    assert proc.code == 0, proc
    return _namespace(proc)


def _krm(root: Path, env: dict[str, str], flag: str | None) -> str:
    kpt = need("kpt")
    config = ["--", f"namespace={flag}"] if flag else []
    proc = run([kpt, "fn", "eval", APP, "--exec", "omerender krm", "-o", "unwrap", *config], cwd=root, env=env)
    assert proc.code == 0, proc
    return _namespace(proc)


ROUTES: dict[str, Callable[[Path, dict[str, str], str | None], str]] = {
    "build": _build,
    "pre-commit hook": _hook,
    "argocd-generate": _argocd,
    "krm (kpt fn eval --exec)": _krm,
}


@pytest.mark.parametrize("route", ROUTES)
def test_every_route_stacks_the_layers_in_the_same_order(repo: Path, route: str) -> None:
    render = ROUTES[route]
    got = {}
    for n, name in enumerate(LAYERS):
        if n >= 1:
            (repo / ".omerender.yaml").write_text(f"namespace: {NAMESPACES[1]}\n", encoding="utf-8")
        env = env_with_omerender({"OMERENDER_NAMESPACE": NAMESPACES[2]} if n >= 2 else {})
        got[name] = render(repo, env, NAMESPACES[3] if n >= 3 else None)
    assert got == dict(zip(LAYERS, NAMESPACES, strict=True)), route


def test_argocd_plugin_env_lies_between_the_sidecar_s_variables_and_the_parameters(repo: Path) -> None:
    (repo / ".omerender.yaml").write_text("namespace: from-file\n", encoding="utf-8")
    env = env_with_omerender({"OMERENDER_NAMESPACE": "from-env", "ARGOCD_ENV_OMERENDER_NAMESPACE": "from-app-env"})
    assert _argocd(repo, env, None) == "from-app-env"
    assert _argocd(repo, env, "from-flag") == "from-flag"
