"""The Argo CD plugin's `kustomize-build` parameter: a kustomization with `patches` renders through
`kustomize build` (the sidecar's binary; `kubectl kustomize` where no kustomize is installed), run with a fixed
argv, the load restrictor, no helm or plugins, the app folder only, and a bound on its output."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from gitops_helpers import FIXTURE, Proc, env_with_omerender, objects, omerender, run

PATCH = """resources: [../../base]
patches:
  - target: {kind: InferenceService}
    patch: |-
      - op: add
        path: /metadata/labels
        value: {team: overlay-team}
"""
FAKE = """#!{python}
import json, os, sys
with open({record!r}, "w") as out:
    json.dump({{"argv": sys.argv[1:], "env": sorted(os.environ), "cwd": os.getcwd()}}, out)
mode = {mode!r}
if mode == "fail":
    sys.stderr.write("Error: accumulating resources: no such thing\\n")
    sys.exit(1)
if mode == "flood":
    chunk = "# " + "x" * 1022 + "\\n"
    for _ in range(12 * 1024):
        sys.stdout.write(chunk)
    sys.exit(0)
sys.stdout.write(open({fixture!r}).read())
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with a base (the llama-demo app) and a patched overlay under apps/llama."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    shutil.copytree(FIXTURE, root / "base")
    (root / "base" / "kustomization.yaml").write_text(
        "resources: [model.yaml, profile.yaml, runtime.yaml, isvc.yaml]\n", encoding="utf-8"
    )
    (root / "apps" / "llama").mkdir(parents=True)
    (root / "apps" / "llama" / "kustomization.yaml").write_text(PATCH, encoding="utf-8")
    return root


def _generate(repo: Path, *parameters: dict[str, object], env: dict[str, str] | None = None) -> Proc:
    given = [{"name": "emit", "array": ["rendered"]}, *parameters]
    extra = {"ARGOCD_APP_SOURCE_PATH": "apps/llama", "ARGOCD_APP_PARAMETERS": json.dumps(given), **(env or {})}
    return run(["omerender", "argocd-generate", "."], cwd=repo / "apps" / "llama", env=env_with_omerender(extra))


ON = {"name": "kustomize-build", "string": "true"}


def _kustomize() -> list[str]:
    found = shutil.which("kustomize")
    if found:
        return [found, "build"]
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("neither kustomize nor kubectl is installed")
    return [kubectl, "kustomize"]


def _fake(tmp_path: Path, mode: str = "ok") -> tuple[dict[str, str], Path]:
    """A PATH whose `kustomize` records how it was run (argv, environment names, folder) and prints the fixture."""
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir(exist_ok=True)
    record = tmp_path / "kustomize-ran.json"
    fixture = "\n---\n".join(p.read_text(encoding="utf-8") for p in sorted(FIXTURE.glob("*.yaml")))
    (tmp_path / "fixture.yaml").write_text(fixture, encoding="utf-8")
    text = FAKE.format(python=sys.executable, record=str(record), mode=mode, fixture=str(tmp_path / "fixture.yaml"))
    (bin_dir / "kustomize").write_text(text, encoding="utf-8")
    (bin_dir / "kustomize").chmod(0o755)
    path = os.pathsep.join([str(bin_dir), env_with_omerender()["PATH"]])
    return {"PATH": path, "SECRET_TOKEN": "x", "KUSTOMIZE_PLUGIN_HOME": "/elsewhere"}, record


def test_a_patched_overlay_renders_what_kustomize_builds(repo: Path) -> None:
    refused = _generate(repo)
    assert refused.code == 1 and refused.out == "" and "kustomize build DIR | omerender build -" in refused.err
    proc = _generate(repo, ON)
    assert proc.code == 0, proc
    built = run([*_kustomize(), str(repo / "apps" / "llama")])
    assert built.code == 0, built
    piped = omerender("build", "-", "-n", "default", stdin=built.out)
    assert piped.code == 0, piped
    assert objects(proc.out) == objects(piped.out)
    deployments = [d for d in objects(proc.out) if d["kind"] == "Deployment"]
    assert deployments and all(d["metadata"]["labels"]["team"] == "overlay-team" for d in deployments)


def test_kustomize_runs_with_a_fixed_argv_in_the_app_folder_and_a_bare_environment(repo: Path, tmp_path: Path) -> None:
    env, record = _fake(tmp_path)
    proc = _generate(repo, ON, env=env)
    assert proc.code == 0 and objects(proc.out), proc
    ran = json.loads(record.read_text(encoding="utf-8"))
    assert ran["argv"] == ["build", "--load-restrictor", "LoadRestrictionsRootOnly", "."]
    assert set(ran["env"]) <= {"PATH", "HOME", "LANG", "LC_CTYPE"}  # LC_CTYPE: Python's own locale coercion
    assert Path(ran["cwd"]).resolve() == (repo / "apps" / "llama").resolve()


@pytest.mark.parametrize(
    ("mode", "says"), [("fail", "kustomize build failed (exit 1): Error: accumulating"), ("flood", "printed more than")]
)
def test_a_failing_or_flooding_kustomize_fails_the_generation_located(
    repo: Path, tmp_path: Path, mode: str, says: str
) -> None:
    env, _ = _fake(tmp_path, mode)
    proc = _generate(repo, ON, env=env)
    assert proc.code == 1 and proc.out == "" and says in proc.err, proc
    assert proc.err.startswith("kustomization.yaml:1:1: error: [kustomization] kustomize-build:"), proc


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ("resources: [../../base, ../../../outside]", "leads out of the repository"),
        ("resources: [../../base, /etc]", "leads out of the repository"),
        ("resources: [../../base, 'https://github.com/org/repo//deploy?ref=v1']", "remote resource"),
        ("resources: [../../base, github.com/org/repo/deploy]", "remote resource"),
        ("resources: [../../base, ../../missing]", "not in the repository"),
        ("resources: [../../base]\nhelmCharts: [{name: x, repo: 'https://charts.example'}]", "needs helm"),
        ("resources: [../../base]\nconfigMapGenerator: [{name: c, files: [k=../../../outside/f]}]", "out of the rep"),
    ],
)
def test_a_kustomization_reaching_outside_the_repository_is_refused_before_kustomize_runs(
    repo: Path, tmp_path: Path, entry: str, says: str
) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "kustomization.yaml").write_text("resources: [f]\n", encoding="utf-8")
    (tmp_path / "outside" / "f").write_text("kind: ConfigMap\n", encoding="utf-8")
    (repo / "apps" / "llama" / "kustomization.yaml").write_text(entry + "\n", encoding="utf-8")
    env, record = _fake(tmp_path)
    proc = _generate(repo, ON, env=env)
    assert proc.code == 1 and proc.out == "" and says in proc.err, proc
    assert proc.err.startswith("kustomization.yaml:"), proc  # located at the entry
    assert not record.exists(), "kustomize ran"


def test_a_base_linked_out_of_the_repository_is_refused(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "kustomization.yaml").write_text("resources: []\n", encoding="utf-8")
    (repo / "linked").symlink_to(tmp_path / "outside")
    (repo / "base" / "kustomization.yaml").write_text("resources: [model.yaml, ../linked]\n", encoding="utf-8")
    env, record = _fake(tmp_path)
    proc = _generate(repo, ON, env=env)
    assert proc.code == 1 and "base/kustomization.yaml:1:" in proc.err and "out of the repository" in proc.err, proc
    assert not record.exists()


def test_without_kustomize_or_kubectl_it_is_a_usage_error(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    extra = {
        "ARGOCD_APP_SOURCE_PATH": "apps/llama",
        "ARGOCD_APP_PARAMETERS": json.dumps([ON]),
        "PATH": str(tmp_path / "empty"),
    }
    proc = omerender("argocd-generate", ".", cwd=repo / "apps" / "llama", env=env_with_omerender(extra))
    assert proc.code == 2 and proc.out == "" and "neither kustomize nor kubectl" in proc.err, proc


def test_only_the_application_turns_it_on(repo: Path, tmp_path: Path) -> None:
    (repo / ".omerender.yaml").write_text("kustomize-build: true\n", encoding="utf-8")
    proc = _generate(repo)
    assert proc.code == 2 and "unknown setting 'kustomize-build'" in proc.err, proc
    (repo / ".omerender.yaml").unlink()
    env, _ = _fake(tmp_path)
    proc = _generate(repo, env={**env, "ARGOCD_ENV_OMERENDER_KUSTOMIZE_BUILD": "true"})
    assert proc.code == 0, proc  # the Application's plugin.env
    proc = _generate(repo, {"name": "kustomize-build", "string": "perhaps"}, env=env)
    assert proc.code == 2 and "parameter kustomize-build" in proc.err, proc


def test_what_lies_in_the_repository_and_inline_patches_reach_kustomize(repo: Path, tmp_path: Path) -> None:
    app = repo / "apps" / "llama"
    (app / "patch.yaml").write_text("kind: InferenceService\n", encoding="utf-8")
    (app / "settings.env").write_text("A=1\n", encoding="utf-8")
    (repo / "component").mkdir()
    (repo / "component" / "kustomization.yaml").write_text("kind: Component\n", encoding="utf-8")
    (app / "kustomization.yaml").write_text(
        PATCH
        + "  - path: patch.yaml\n"
        + 'patchesStrategicMerge: [\'{"kind": "InferenceService"}\', patch.yaml]\n'
        + "components: [../../component]\n"
        + "configMapGenerator: [{name: c, envs: [settings.env], files: [k=patch.yaml]}]\n",
        encoding="utf-8",
    )
    env, record = _fake(tmp_path)
    proc = _generate(repo, ON, env=env)
    assert proc.code == 0 and record.exists(), proc
