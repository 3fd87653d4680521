"""The KRM function reads the package's lock, as ``build PACKAGE`` does: kpt runs ``--exec`` functions in its own
working folder, so ``kpt fn render apps/team-a`` run from the repository's top read ``./omerender.lock`` (none) and
rendered a pinned InferenceService (``autoSync: false``) from its live runtime, a rollout the lock forbids, while
``build``, Argo CD and the kustomize generator kept its snapshot. ``kpt fn render`` names each item's package folder
(``internal.config.kubernetes.io/package-path``); ``kpt fn eval`` does not, so there the lock is given
(``lockFile``)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from gitops_helpers import env_with_omerender, kpt_package, need, objects, run
from ome_repository import OME, committed_repository, profile_change

from omerender.gitops.krm import PACKAGE_PATH, ResourceList, package_lock


def _listed(*folders: str) -> ResourceList:
    items: list[object] = [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{n}", "annotations": {PACKAGE_PATH: f}}}
        for n, f in enumerate(folders)
    ]
    return ResourceList("config.kubernetes.io/v1", [*items, "not a mapping"])


def test_the_package_lock_is_in_the_folder_holding_every_package(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "apps" / "team-a" / "sub").mkdir(parents=True)
    package = str(root / "apps" / "team-a")
    assert package_lock(_listed(package), str(root), str(root)) == "apps/team-a/omerender.lock"
    assert package_lock(_listed(package, f"{package}/sub"), str(root), str(root)) == "apps/team-a/omerender.lock"
    assert package_lock(_listed(package), str(root / "apps"), str(root)) == "team-a/omerender.lock"


def test_no_package_folder_or_one_outside_the_repository_places_no_lock(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    assert package_lock(_listed(), str(root), str(root)) is None  # kpt fn eval names none
    assert package_lock(_listed(str(tmp_path / "elsewhere")), str(root), str(root)) is None
    assert package_lock(_listed("../elsewhere"), str(root), str(root)) is None


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """Issue 33's repository after the profile change; apps/team-a is a kpt package whose pipeline runs omerender."""
    if not (OME / "runtimes").is_dir() or shutil.which("git") is None:
        pytest.skip("needs OME's folders and git")
    root = committed_repository(tmp_path / "repo")
    profile_change(root)
    kpt_package(root / "apps" / "team-a", tmp_path, {"emit": "rendered"})
    return root


def _nccl(text: str) -> dict[str, str]:
    """NCCL_DEBUG of each Deployment's engine container."""
    found: dict[str, str] = {}
    for doc in objects(text):
        if doc["kind"] == "Deployment":
            env: list[dict[str, Any]] = doc["spec"]["template"]["spec"]["containers"][0].get("env", [])
            found[doc["metadata"]["name"]] = next(e["value"] for e in env if e["name"] == "NCCL_DEBUG")
    return found


def _sorted(text: str) -> list[str]:
    return sorted(yaml.safe_dump(doc, sort_keys=True) for doc in objects(text))


def test_kpt_fn_render_from_the_top_keeps_the_pinned_snapshot(repo: Path) -> None:
    kpt = need("kpt")
    built = run(["omerender", "build", "apps/team-a"], cwd=repo, env=env_with_omerender())
    assert built.code == 0, built
    assert _nccl(built.out)["batch-engine"] == "WARN" and _nccl(built.out)["platform-3b-engine"] == "INFO"
    rendered = run(
        [kpt, "fn", "render", "apps/team-a", "--allow-exec", "-o", "unwrap"], cwd=repo, env=env_with_omerender()
    )
    assert rendered.code == 0, rendered
    assert "snapshot of runtime" not in rendered.err, rendered.err
    assert _sorted(rendered.out) == _sorted(built.out)


def test_kpt_fn_eval_takes_the_lock_as_lock_file(repo: Path) -> None:
    kpt = need("kpt")
    built = run(["omerender", "build", "apps/team-a"], cwd=repo, env=env_with_omerender())
    args = [kpt, "fn", "eval", "apps/team-a", "--exec", "omerender krm", "-o", "unwrap", "--", "emit=rendered"]
    unlocked = run(args, cwd=repo, env=env_with_omerender())
    assert unlocked.code == 0, unlocked  # eval names no package folder: the lock is looked for where kpt runs
    assert "there is no lock file omerender.lock to hold a snapshot" in unlocked.err, unlocked.err
    locked = run([*args, "lockFile=apps/team-a/omerender.lock"], cwd=repo, env=env_with_omerender())
    assert locked.code == 0 and "snapshot of runtime" not in locked.err, locked
    assert _sorted(locked.out) == _sorted(built.out)
