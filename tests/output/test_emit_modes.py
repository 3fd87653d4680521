"""`build --emit`: rendered, flattened, passthrough, inputs; their order; search paths."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gitops_helpers import FIXTURE, by_identity, identity, objects, omerender

INHERIT_FROM = "ome.io/inherit-from"


def _kinds(docs: list[dict[str, Any]]) -> list[str]:
    return [d["kind"] for d in docs]


def test_flattened_output_fed_back_renders_the_same_deployments(
    tmp_path: Path, reference_build: list[dict[str, Any]]
) -> None:
    flat = omerender("build", str(FIXTURE), "--emit", "flattened")
    assert flat.code == 0, flat
    (tmp_path / "flat.yaml").write_text(flat.out, encoding="utf-8")
    again = omerender("build", str(tmp_path / "flat.yaml"))
    assert again.code == 0, again
    before = [d for d in reference_build if d["kind"] == "Deployment"]
    after = [d for d in objects(again.out) if d["kind"] == "Deployment"]
    assert before and after == before


def test_flattened_drops_profiles_and_inherit_from() -> None:
    proc = omerender("build", str(FIXTURE), "--emit", "flattened")
    assert proc.code == 0, proc
    docs = by_identity(objects(proc.out))
    runtimes = [d for d in docs.values() if d["kind"] in ("ServingRuntime", "ClusterServingRuntime")]
    assert [r["metadata"]["name"] for r in runtimes] == ["sglang-llama-3-2-3b"]
    child = runtimes[0]
    assert INHERIT_FROM not in (child["metadata"].get("annotations") or {})
    runner = child["spec"]["engineConfig"]["runner"]
    assert runner["image"] == "docker.io/lmsysorg/sglang:v0.5.5.post3-cu129-amd64"  # from the profile
    assert runner["args"] == ["--tp-size=1", "--mem-frac=0.9"]  # from the child
    assert child["spec"]["disabled"] is False
    assert {"InferenceService", "ClusterBaseModel"} <= {d["kind"] for d in docs.values()}


def test_inputs_are_as_given_with_parents_first() -> None:
    proc = omerender("build", str(FIXTURE), "--emit", "inputs")
    assert proc.code == 0, proc
    docs = objects(proc.out)
    assert _kinds(docs) == ["ClusterBaseModel", "ClusterServingRuntime", "ServingRuntime", "InferenceService"]
    child = docs[2]
    assert child["metadata"]["annotations"][INHERIT_FROM] == "sglang-profile"
    assert "image" not in child["spec"]["engineConfig"]["runner"]  # not merged


def test_passthrough_keeps_other_objects_and_skips_tool_files(tree: Path) -> None:
    (tree / "secret.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: llama-demo\ndata:\n  a: 'b'\n",
        encoding="utf-8",
    )
    listed = sorted(p.name for p in tree.glob("*.yaml"))  # a kustomize folder: what it lists is read
    (tree / "kustomization.yaml").write_text(
        f"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [{', '.join(listed)}]\n",
        encoding="utf-8",
    )
    proc = omerender("build", str(tree), "--emit", "passthrough", "--emit", "rendered")
    assert proc.code == 0, proc
    docs = objects(proc.out)
    assert docs[0] == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "extra", "namespace": "llama-demo"},
        "data": {"a": "b"},
    }
    assert "Kustomization" not in _kinds(docs)
    assert "Deployment" in _kinds(docs)
    assert not {"InferenceService", "ServingRuntime"} & set(_kinds(docs))


def test_order_is_fixed_whatever_the_flag_order() -> None:
    one = omerender("build", str(FIXTURE), "--emit", "rendered", "--emit", "passthrough", "--emit", "inputs")
    two = omerender(
        "build", str(FIXTURE), "--emit", "inputs", "--emit", "rendered", "--emit", "passthrough", "--emit", "inputs"
    )
    assert one.code == 0 and two.code == 0, (one, two)
    assert one.out == two.out
    kinds = _kinds(objects(one.out))
    assert kinds.index("InferenceService") < kinds.index("Deployment")


def test_inputs_and_flattened_exclude_each_other() -> None:
    proc = omerender("build", str(FIXTURE), "--emit", "inputs", "--emit", "flattened")
    assert proc.code == 2, proc
    assert "choose one" in proc.err
    assert proc.out == ""


def test_search_path_resolves_parents_without_emitting_them(tmp_path: Path) -> None:
    app, platform = tmp_path / "app", tmp_path / "platform"
    app.mkdir()
    platform.mkdir()
    for name in ("isvc.yaml", "runtime.yaml"):
        (app / name).write_text((FIXTURE / name).read_text(encoding="utf-8"), encoding="utf-8")
    for name in ("profile.yaml", "model.yaml"):
        (platform / name).write_text((FIXTURE / name).read_text(encoding="utf-8"), encoding="utf-8")
    alone = omerender("build", str(app), "--emit", "inputs")
    assert alone.code == 1 and 'inherit-from parent "sglang-profile" not found' in alone.err, alone
    proc = omerender("build", str(app), "--search-path", str(platform), "--emit", "inputs", "--emit", "rendered")
    assert proc.code == 0, proc
    names = {identity(d)[1:] for d in objects(proc.out)}
    assert ("ServingRuntime", "llama-demo", "sglang-llama-3-2-3b") in names
    assert ("InferenceService", "llama-demo", "llama-3-2-3b-instruct") in names
    assert ("Deployment", "llama-demo", "llama-3-2-3b-instruct-engine") in names
    assert not {k for k, _, _ in names} & {"ClusterServingRuntime", "ClusterBaseModel"}


def test_inference_services_on_a_search_path_are_not_rendered(tmp_path: Path) -> None:
    app, platform = tmp_path / "app", tmp_path / "platform"
    app.mkdir()
    platform.mkdir()
    for name in ("profile.yaml", "runtime.yaml", "model.yaml"):
        (app / name).write_text((FIXTURE / name).read_text(encoding="utf-8"), encoding="utf-8")
    (platform / "isvc.yaml").write_text((FIXTURE / "isvc.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    proc = omerender("build", str(app), "--search-path", str(platform))
    assert proc.code == 0, proc
    assert proc.out == ""


def test_an_input_object_named_like_a_rendered_one_is_an_error(tmp_path: Path) -> None:
    for name in ("profile.yaml", "runtime.yaml", "model.yaml", "isvc.yaml"):
        (tmp_path / name).write_text((FIXTURE / name).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "svc.yaml").write_text(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: llama-3-2-3b-instruct\n  namespace: llama-demo\n",
        encoding="utf-8",
    )
    proc = omerender("build", str(tmp_path), "--emit", "passthrough", "--emit", "rendered")
    assert proc.code == 1 and proc.out == ""
    assert proc.err == (
        f"{tmp_path}/svc.yaml:4:9: error: [duplicate-output] Service llama-demo/llama-3-2-3b-instruct is emitted "
        "twice: "
        "also an object omerender renders; applying both would keep only one\n"
    )
