"""Trees for the runtime-lifecycle tests: the spec's example, and a profile with ten children."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from omerender.result import BuildResult

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "llama-demo"
ISVC = "llama-3-2-3b-instruct"
NS = "llama-demo"
OLD_IMAGE = "docker.io/lmsysorg/sglang:v0.5.5.post3-cu129-amd64"
NEW_IMAGE = "docker.io/lmsysorg/sglang:v0.5.6-cu129-amd64"


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """A copy of the spec's example (profile, runtime, model, InferenceService)."""
    target = tmp_path / "demo"
    shutil.copytree(DEMO, target)
    return target


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def set_sync(tree: Path, *, auto_sync: bool | None = None, revision: str | None = None) -> None:
    lines = ["    name: sglang-llama-3-2-3b"]
    if auto_sync is not None:
        lines.append(f"    autoSync: {str(auto_sync).lower()}")
    if revision is not None:
        lines.append(f'    revision: "{revision}"')
    edit(tree / "isvc.yaml", "    name: sglang-llama-3-2-3b\n", "\n".join(lines) + "\n")


def deployments(rendered: str | BuildResult) -> dict[str, dict]:
    """The Deployments ``build`` prints (its stdout), or a build's."""
    objects = yaml.safe_load_all(rendered) if isinstance(rendered, str) else rendered.objects
    return {d["metadata"]["name"]: d for d in objects if d and d.get("kind") == "Deployment"}


def image(rendered: str | BuildResult, name: str = f"{ISVC}-engine") -> str:
    return deployments(rendered)[name]["spec"]["template"]["spec"]["containers"][0]["image"]


def codes(result: BuildResult) -> set[str]:
    """The codes of the diagnostics ``build`` reports (notes aside)."""
    return {d.code for d in result.diagnostics if d.severity != "info"}


FLEET_NS = "fleet"
CHILDREN = 10


def _child(i: int, image_override: bool) -> dict:
    runner: dict = {"name": "ome-container", "args": [f"--tp-size={1 + i % 2}", f"--seed={i}"]}
    if image_override:
        runner["image"] = "registry.example/sglang:own-build"
    return {
        "apiVersion": "ome.io/v1beta1",
        "kind": "ServingRuntime",
        "metadata": {
            "name": f"child-{i}",
            "namespace": FLEET_NS,
            "annotations": {"ome.io/inherit-from": "fleet-profile"},
        },
        "spec": {
            "disabled": False,
            "supportedModelFormats": [
                {
                    "modelFormat": {"name": "safetensors", "version": "1.0.0"},
                    "modelFramework": {"name": "transformers", "version": "4.45.0.dev0"},
                    "modelArchitecture": "LlamaForCausalLM",
                    "autoSelect": False,
                }
            ],
            "modelSizeRange": {"min": "2B", "max": "4B"},
            "engineConfig": {"runner": runner},
        },
    }


def _profile(name: str, image: str) -> dict:
    return {
        "apiVersion": "ome.io/v1beta1",
        "kind": "ClusterServingRuntime",
        "metadata": {"name": name, "annotations": {"ome.io/runtime-profile": "true"}},
        "spec": {
            "disabled": True,
            "engineConfig": {
                "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory"}}],
                "runner": {
                    "name": "ome-container",
                    "image": image,
                    "command": ["python3", "-m", "sglang.launch_server", "--port=8080"],
                    "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}],
                },
            },
        },
    }


def _isvc(name: str, runtime: str, auto_sync: bool = True) -> dict:
    ref: dict = {"name": runtime}
    if not auto_sync:
        ref["autoSync"] = False
    return {
        "apiVersion": "ome.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": name, "namespace": FLEET_NS},
        "spec": {"model": {"name": ISVC}, "runtime": ref, "engine": {"minReplicas": 1, "maxReplicas": 1}},
    }


@pytest.fixture
def fleet(tmp_path: Path) -> Path:
    """``fleet-profile`` with ten children and an InferenceService on each: child-3 sets its own image,
    svc-7 is pinned (``autoSync: false``). ``other-profile`` has one child and one InferenceService."""
    root = tmp_path / "fleet"
    root.mkdir()
    shutil.copy(DEMO / "model.yaml", root / "model.yaml")
    docs = [_profile("fleet-profile", OLD_IMAGE), _profile("other-profile", OLD_IMAGE)]
    docs += [_child(i, image_override=(i == 3)) for i in range(CHILDREN)]
    other = _child(99, False)
    other["metadata"].update({"name": "other-child", "annotations": {"ome.io/inherit-from": "other-profile"}})
    docs.append(other)
    docs += [_isvc(f"svc-{i}", f"child-{i}", auto_sync=(i != 7)) for i in range(CHILDREN)]
    docs.append(_isvc("svc-other", "other-child"))
    (root / "profiles.yaml").write_text(yaml.safe_dump_all(docs[:2], sort_keys=False), encoding="utf-8")
    (root / "children.yaml").write_text(yaml.safe_dump_all(docs[2 : 3 + CHILDREN], sort_keys=False), encoding="utf-8")
    (root / "isvcs.yaml").write_text(yaml.safe_dump_all(docs[3 + CHILDREN :], sort_keys=False), encoding="utf-8")
    return root
