"""Settings in a kpt package: kpt reads every file of a package as a KRM resource, so a plain `.omerender.yaml`
fails ("resource must have `apiVersion`"). The package keeps its settings in an `OmeRenderSettings` object
annotated `config.kubernetes.io/local-config: "true"` (or lists `.omerender.yaml` in `.krmignore`); tested with
the real `kpt fn render` and `kpt fn eval --exec`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from gitops_helpers import FIXTURE, Proc, env_with_omerender, kpt_package, need, objects, run


def _settings(spec: dict[str, Any], local: bool = True) -> str:
    meta: dict[str, Any] = {"name": "omerender"}
    if local:
        meta["annotations"] = {"config.kubernetes.io/local-config": "true"}
    body = {"apiVersion": "omerender.io/v1alpha1", "kind": "OmeRenderSettings", "metadata": meta, "spec": spec}
    return yaml.safe_dump(body)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with a kpt package (the llama-demo app, namespaces taken out) whose pipeline runs omerender."""
    root = tmp_path / "repo"
    pkg = root / "pkg"
    pkg.mkdir(parents=True)
    (root / ".git").mkdir()
    for source in sorted(FIXTURE.glob("*.yaml")):
        docs = list(yaml.safe_load_all(source.read_text(encoding="utf-8")))
        for doc in docs:
            doc["metadata"].pop("namespace", None)
        (pkg / source.name).write_text(yaml.safe_dump_all(docs), encoding="utf-8")
    kpt_package(pkg, root)
    return root


def _render(root: Path, *where: str, cwd: Path | None = None) -> Proc:
    kpt = need("kpt")
    return run([kpt, "fn", "render", *where, "--allow-exec", "-o", "unwrap"], cwd=cwd or root, env=env_with_omerender())


def _eval(root: Path, *args: str) -> Proc:
    kpt = need("kpt")
    return run([kpt, "fn", "eval", "pkg", "--exec", "omerender krm", "-o", "unwrap", *args], cwd=root)


def _namespaces(proc: Proc) -> set[str]:
    assert proc.code == 0, proc
    return {d["metadata"]["namespace"] for d in objects(proc.out) if d["kind"] == "Deployment"}


def test_a_plain_settings_file_in_a_package_is_what_kpt_refuses(repo: Path) -> None:
    (repo / "pkg" / ".omerender.yaml").write_text("namespace: team-a\n", encoding="utf-8")
    proc = _render(repo, "pkg")
    assert proc.code != 0 and "resource must have `apiVersion`" in proc.out + proc.err, proc


def test_the_package_s_settings_object_is_read_by_render_and_eval(repo: Path) -> None:
    (repo / "pkg" / "omerender-settings.yaml").write_text(_settings({"namespace": "team-a"}), encoding="utf-8")
    assert _namespaces(_render(repo, "pkg")) == {"team-a"}
    assert _namespaces(_eval(repo)) == {"team-a"}
    assert _namespaces(_eval(repo, "--", "namespace=from-config")) == {"from-config"}  # functionConfig wins
    (repo / ".omerender.yaml").write_text("namespace: from-file\n", encoding="utf-8")  # the repository's, below it
    assert _namespaces(_eval(repo)) == {"team-a"}
    kpt = need("kpt")
    env = env_with_omerender({"OMERENDER_NAMESPACE": "from-env"})
    proc = run([kpt, "fn", "eval", "pkg", "--exec", "omerender krm", "-o", "unwrap"], cwd=repo, env=env)
    assert _namespaces(proc) == {"from-env"}


def test_the_settings_object_stays_in_the_package(repo: Path) -> None:
    kpt = need("kpt")
    (repo / "pkg" / "omerender-settings.yaml").write_text(_settings({"namespace": "team-a"}), encoding="utf-8")
    proc = run([kpt, "fn", "render", "pkg", "--allow-exec"], cwd=repo, env=env_with_omerender())
    assert proc.code == 0, proc
    kept = yaml.safe_load((repo / "pkg" / "omerender-settings.yaml").read_text(encoding="utf-8"))
    assert kept["kind"] == "OmeRenderSettings" and kept["spec"] == {"namespace": "team-a"}
    rendered = sorted((repo / "pkg" / "rendered").rglob("*.yaml"))
    assert rendered and all(d["metadata"]["namespace"] == "team-a" for p in rendered for d in objects(p.read_text()))


def test_a_krmignore_d_settings_file_is_read_from_the_folder_kpt_runs_in(repo: Path) -> None:
    (repo / "pkg" / ".omerender.yaml").write_text("namespace: team-b\n", encoding="utf-8")
    (repo / "pkg" / ".krmignore").write_text(".omerender.yaml\n", encoding="utf-8")
    assert _namespaces(_render(repo, ".", cwd=repo / "pkg")) == {"team-b"}


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ({"output-dir": "out"}, "says where omerender writes"),
        ({"search-path": ["../../elsewhere"]}, "leads out of the repository"),
        ({"search-path": ["/etc"]}, "leads out of the repository"),
        ({"lock-file": "/tmp/omerender.lock"}, "leads out of the repository"),
        ({"namespce": "x"}, "unknown setting"),
        ({"validate": "loose"}, "unknown value"),
        ({"serving-check-severity": {"gpu-parallelism": "info"}}, ".omerender.yaml only"),
    ],
)
def test_the_settings_object_follows_the_settings_file_s_rules(repo: Path, spec: dict[str, Any], says: str) -> None:
    (repo / "pkg" / "omerender-settings.yaml").write_text(_settings(spec), encoding="utf-8")
    proc = _eval(repo)
    assert proc.code != 0 and says in proc.out + proc.err and "Exit code: 2" in proc.out + proc.err, proc


def test_a_settings_object_must_be_local_config_and_alone(repo: Path) -> None:
    (repo / "pkg" / "omerender-settings.yaml").write_text(_settings({"namespace": "a"}, local=False), encoding="utf-8")
    proc = _eval(repo)
    assert proc.code != 0 and "config.kubernetes.io/local-config" in proc.out + proc.err, proc
    (repo / "pkg" / "omerender-settings.yaml").write_text(_settings({"namespace": "a"}), encoding="utf-8")
    (repo / "pkg" / "more-settings.yaml").write_text(_settings({"namespace": "b"}), encoding="utf-8")
    proc = _eval(repo)
    assert proc.code != 0 and "at most one OmeRenderSettings" in proc.out + proc.err, proc
