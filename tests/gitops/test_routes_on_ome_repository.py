"""Issue 33's acceptance, through every route: on the repository of the issue (``tests/ome_repository.py``: OME's
vendored catalogue, profiles, three teams, ``search-path: [platform]`` in ``.omerender.yaml``), after the pull
request that changes ``NCCL_DEBUG`` in ``platform/profiles/sglang-profile.yaml``, each app renders the same objects
whichever way it is rendered: ``build`` as YAML, JSON, ``--output-dir`` and from standard input, ``argocd-generate``
(byte for byte), ``kpt fn eval`` and ``kpt fn render``, the kustomize exec generator and Flux's folder. team-a's
pinned InferenceService (``autoSync: false``, ``apps/team-a/omerender.lock``) keeps its snapshot on each of them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from gitops_helpers import REPO, Proc, env_with_omerender, kpt_package, need, objects, run
from ome_repository import APPS, OME, committed_repository, profile_change

pytestmark = pytest.mark.skipif(
    not (OME / "runtimes").is_dir() or shutil.which("git") is None, reason="needs OME's folders and git"
)

PLUGIN_HOME = REPO / "integrations" / "kustomize" / "plugin"
FLUX_ANNOTATION = "kustomize.toolkit.fluxcd.io/substitute"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = committed_repository(tmp_path_factory.mktemp("routes") / "repo")
    profile_change(root)
    return root


@pytest.fixture(scope="module")
def reference(repo: Path) -> dict[str, str]:
    """Each app's ``build`` (YAML): the objects every other route must give."""
    built = {app: _ok(run(["omerender", "build", app], cwd=repo, env=env_with_omerender())).out for app in APPS}
    assert _nccl(built["apps/team-a"]) == {
        "assistant-engine": "WARN",  # team-a's own runtimes
        "chat-engine": "WARN",
        "batch-engine": "WARN",  # pinned: the snapshot in apps/team-a/omerender.lock
        "platform-3b-engine": "INFO",  # follows the changed profile
    }
    return built


def _ok(proc: Proc) -> Proc:
    assert proc.code == 0, proc
    return proc


def _same(docs: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(doc, sort_keys=True) for doc in docs)


def _nccl(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for doc in objects(text):
        if doc["kind"] == "Deployment":
            env: list[dict[str, Any]] = doc["spec"]["template"]["spec"]["containers"][0].get("env", [])
            found[doc["metadata"]["name"]] = next(e["value"] for e in env if e["name"] == "NCCL_DEBUG")
    return found


@pytest.mark.parametrize("app", APPS)
def test_build_as_json_as_a_folder_and_from_standard_input(repo: Path, reference: dict[str, str], app: str) -> None:
    env = env_with_omerender()
    as_json = json.loads(_ok(run(["omerender", "build", app, "-o", "json"], cwd=repo, env=env)).out)
    assert as_json["kind"] == "List" and _same(as_json["items"]) == _same(objects(reference[app]))
    folder = repo.parent / f"out-{app.replace('/', '-')}"
    _ok(run(["omerender", "build", app, "--output-dir", str(folder)], cwd=repo, env=env))
    written = [doc for path in sorted(folder.rglob("*.yaml")) for doc in objects(path.read_text(encoding="utf-8"))]
    assert _same(written) == _same(objects(reference[app]))
    files = sorted((repo / app).rglob("*.yaml"))
    stream = "".join(f"---\n{path.read_text(encoding='utf-8')}" for path in files if path.name != "kustomization.yaml")
    lock = ["--lock-file", f"{app}/omerender.lock"] if (repo / app / "omerender.lock").is_file() else []
    piped = _ok(run(["omerender", "build", "-", *lock], cwd=repo, env=env, stdin=stream))
    assert _same(objects(piped.out)) == _same(objects(reference[app]))


@pytest.mark.parametrize("app", APPS)
def test_argocd_generate_is_byte_identical(repo: Path, reference: dict[str, str], app: str) -> None:
    given = {
        "ARGOCD_APP_SOURCE_PATH": app,
        "ARGOCD_APP_NAMESPACE": app.rsplit("/", 1)[1],
        "ARGOCD_APP_PARAMETERS": json.dumps([{"name": "emit", "array": ["rendered"]}]),
    }
    generated = _ok(run(["omerender", "argocd-generate", "."], cwd=repo / app, env=env_with_omerender(given)))
    assert generated.out == reference[app]


@pytest.mark.parametrize("app", APPS)
def test_kpt_fn_eval_and_render(repo: Path, reference: dict[str, str], app: str, tmp_path: Path) -> None:
    kpt = need("kpt")
    lock = [f"lockFile={app}/omerender.lock"] if (repo / app / "omerender.lock").is_file() else []
    args = [kpt, "fn", "eval", app, "--exec", "omerender krm", "-o", "unwrap", "--", "emit=rendered", *lock]
    evaluated = _ok(run(args, cwd=repo, env=env_with_omerender()))
    assert _same(objects(evaluated.out)) == _same(objects(reference[app]))
    package = tmp_path / "repo"
    shutil.copytree(repo, package, symlinks=True)
    kpt_package(package / app, tmp_path, {"emit": "rendered"})
    rendered = _ok(
        run([kpt, "fn", "render", app, "--allow-exec", "-o", "unwrap"], cwd=package, env=env_with_omerender())
    )
    assert _same(objects(rendered.out)) == _same(objects(reference[app]))


@pytest.mark.parametrize("app", APPS)
def test_the_kustomize_generator(repo: Path, reference: dict[str, str], app: str, tmp_path: Path) -> None:
    kubectl = need("kubectl")
    work = tmp_path / "repo"
    shutil.copytree(repo, work, symlinks=True)
    deploy = work / "deploy"
    deploy.mkdir()
    kustomization = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization"}
    (deploy / "kustomization.yaml").write_text(yaml.safe_dump({**kustomization, "generators": ["omerender.yaml"]}))
    config = {"paths": [f"../{app}"], "emit": ["rendered"]}
    generator = {"apiVersion": "omerender.io/v1alpha1", "kind": "OmeRender", "metadata": {"name": "o"}, "spec": config}
    (deploy / "omerender.yaml").write_text(yaml.safe_dump(generator), encoding="utf-8")
    env = env_with_omerender({"KUSTOMIZE_PLUGIN_HOME": str(PLUGIN_HOME)})
    generated = _ok(run([kubectl, "kustomize", "--enable-alpha-plugins", "deploy"], cwd=work, env=env))
    assert _same(objects(generated.out)) == _same(objects(reference[app]))


@pytest.mark.parametrize("app", APPS)
def test_the_folder_flux_applies(repo: Path, reference: dict[str, str], app: str, tmp_path: Path) -> None:
    kubectl = need("kubectl")
    out = tmp_path / "out"
    args = ["omerender", "build", app, "--output-dir", str(out), "--kustomization", "--flux-substitute-disabled"]
    _ok(run(args, cwd=repo, env=env_with_omerender()))
    applied = _ok(run([kubectl, "kustomize", str(out)], env=env_with_omerender()))
    docs = objects(applied.out)
    for doc in docs:
        annotations = doc["metadata"].get("annotations", {})
        assert annotations.pop(FLUX_ANNOTATION) == "disabled", doc
        if not annotations:
            del doc["metadata"]["annotations"]
    assert _same(docs) == _same(objects(reference[app]))
