"""Companion objects, component modes and OME's quirks, through the CLI (issue 3).

Expected values come from ../shared/research/ome-rendering.md (§ cited per test) and
ome-selection.md; messages are asserted whole.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from builders import FORMATS, MODEL, dump, isvc, objects, only, runtime

from omerender.render.companions import KEDA_DEFAULT_QUERY, go_sprintf_name
from omerender.render.modelconfig import go_json, models_json

RUNNER = {
    "name": "ome-container",
    "image": "engine:1",
    "command": ["serve"],
    "ports": [{"containerPort": 8080, "name": "http1"}],
}


def flat(**fields: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"supportedModelFormats": FORMATS, "engineConfig": {"runner": dict(RUNNER)}}
    spec.update(fields)
    return spec


def build(run_cli, tmp_path: Path, *docs: dict[str, Any], args: tuple[str, ...] = ()) -> Any:
    (tmp_path / "in.yaml").write_text(dump(MODEL, *docs), encoding="utf-8")
    return run_cli("build", *args, str(tmp_path / "in.yaml"))


def kinds(stdout: str) -> list[tuple[str, str]]:
    return sorted((o["kind"], o["metadata"]["name"]) for o in objects(stdout))


def line_of(tmp_path: Path, needle: str) -> int:
    lines = (tmp_path / "in.yaml").read_text(encoding="utf-8").splitlines()
    return next(i for i, text in enumerate(lines, 1) if needle in text)


def test_raw_engine_objects(run_cli, tmp_path):
    """§4: Deployment, Service, HPA, PDB, external Service, ConfigMap; no RBAC without a router."""
    result = build(run_cli, tmp_path, runtime("rt", flat()), isvc("svc", "rt"))
    assert result.exit_code == 0, result
    assert kinds(result.stdout) == [
        ("ConfigMap", "modelconfig-svc"),
        ("Deployment", "svc-engine"),
        ("HorizontalPodAutoscaler", "svc-engine"),
        ("PodDisruptionBudget", "svc-engine"),
        ("Service", "svc"),
        ("Service", "svc-engine"),
    ]
    assert only(result.stdout, "ConfigMap")["data"]["models.json"] == (
        '[{"modelName":"m3b","modelSpec":{"storageUri":"hf://example/m3b","path":"/models/m3b","modelFormatName":"safetensors","modelFormatVersion":"1.0.0",'
        '"modelFrameworkName":"transformers","modelFrameworkVersion":"4.45.0"}}]'
    )


def test_keda_scaled_object_replaces_the_hpa(run_cli, tmp_path):
    """§4 item 3: class from the component annotation; labels copied before `app` is added."""
    engine = {
        "annotations": {"ome.io/autoscalerClass": "keda"},
        "minReplicas": 2,
        "maxReplicas": 5,
        "runner": dict(RUNNER),
    }
    result = build(run_cli, tmp_path, runtime("rt", flat(engineConfig=engine)), isvc("svc", "rt"))
    assert result.exit_code == 0, result
    scaled = only(result.stdout, "ScaledObject")
    assert not [o for o in objects(result.stdout) if o["kind"] == "HorizontalPodAutoscaler"]
    assert scaled["apiVersion"] == "keda.sh/v1alpha1"
    assert scaled["metadata"]["name"] == "scaledobject-svc-engine"
    assert "app" not in scaled["metadata"]["labels"]
    # the webhook's defaults (1 and 3) override the runtime's 2 and 5 (§1.6)
    assert scaled["spec"] == {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "svc-engine"},
        "minReplicaCount": 1,
        "maxReplicaCount": 3,
        "triggers": [
            {
                "type": "prometheus",
                "metadata": {
                    "serverAddress": "http://prometheus-operated.monitoring.svc.cluster.local:9090",
                    "metricName": "tps",
                    "query": KEDA_DEFAULT_QUERY.replace("%s", "svc-engine"),
                    "threshold": "10",
                    "operator": "LessThanOrEqual",
                },
            }
        ],
    }
    warnings = [
        line
        for line in result.stderr.splitlines()
        if "replicas-overridden" in line or "admission webhook defaults" in line
    ]
    assert len(warnings) == 2


def test_external_autoscaler_and_service_annotations(run_cli, tmp_path):
    own = {"annotations": {"ome.io/autoscalerClass": "external"}, "minAvailable": 1}
    svc = isvc("svc", "rt", extra={"engine": own})
    svc["metadata"]["annotations"] = {
        "ome.io/service-type": "LoadBalancer",
        "ome.io/load-balancer-ip": "10.0.0.9",
        "ome.io/ingress-disable-creation": "false",
    }
    result = build(run_cli, tmp_path, runtime("rt", flat()), svc)
    assert result.exit_code == 0, result
    assert kinds(result.stdout) == [
        ("ConfigMap", "modelconfig-svc"),
        ("Deployment", "svc-engine"),
        ("Ingress", "svc"),
        ("PodDisruptionBudget", "svc-engine"),
        ("Service", "svc-engine"),
    ]
    # the annotation enables ingress creation: OME's IngressBuilder makes an Ingress instead of the external Service
    rules = only(result.stdout, "Ingress")["spec"]["rules"]
    assert [r["host"] for r in rules] == ["svc.default.svc.cluster.local"]
    service = only(result.stdout, "Service")
    assert service["spec"]["type"] == "LoadBalancer" and service["spec"]["loadBalancerIP"] == "10.0.0.9"
    assert only(result.stdout, "PodDisruptionBudget")["spec"] == {
        "minAvailable": 1,
        "selector": {"matchLabels": {"app": "svc-engine"}},
    }


def test_serverless_engine_renders_a_knative_service(run_cli, tmp_path):
    result = build(run_cli, tmp_path, runtime("rt", flat()), isvc("svc", "rt", extra={"engine": {"minReplicas": 0}}))
    assert result.exit_code == 0, result
    assert kinds(result.stdout) == [("ConfigMap", "modelconfig-svc"), ("Service", "svc"), ("Service", "svc-engine")]
    ksvc = next(d for d in yaml.safe_load_all(result.stdout) if d["apiVersion"] == "serving.knative.dev/v1")
    annotations = ksvc["spec"]["template"]["metadata"]["annotations"]
    assert annotations["autoscaling.knative.dev/min-scale"] == "0"
    assert annotations["autoscaling.knative.dev/max-scale"] == "3"
    assert annotations["autoscaling.knative.dev/class"] == "kpa.autoscaling.knative.dev"
    assert ksvc["spec"]["traffic"] == [{"latestRevision": True, "percent": 100}]


def test_multinode_ray_vllm_is_a_clear_error(run_cli, tmp_path):
    engine = {"minReplicas": 1, "annotations": {"ome.io/deploymentMode": "MultiNodeRayVLLM"}}
    result = build(run_cli, tmp_path, runtime("rt", flat()), isvc("svc", "rt", extra={"engine": engine}))
    assert result.exit_code == 1
    assert (
        "error: [unsupported-deployment-mode] engine component uses deployment mode MultiNodeRayVLLM, for which OME "
        "creates RayClusters" in (result.stderr)
    )


def test_virtual_deployment_renders_nothing(run_cli, tmp_path):
    svc = isvc("svc", "rt")
    svc["metadata"]["annotations"] = {"ome.io/deploymentMode": "VirtualDeployment"}
    result = build(run_cli, tmp_path, runtime("rt", flat()), svc, args=("-v",))
    assert result.exit_code == 0 and result.stdout == ""
    assert (
        "info: [virtual-deployment] ome.io/deploymentMode is VirtualDeployment: OME creates nothing for this "
        "InferenceService and marks it Ready" in result.stderr
    )


def test_multinode_without_worker_crashes_the_controller(run_cli, tmp_path):
    engine = {"leader": {"runner": dict(RUNNER)}}
    result = build(run_cli, tmp_path, runtime("rt", flat(engineConfig=engine)), isvc("svc", "rt"))
    assert result.exit_code == 1
    assert (
        "error: [ome-panic] engine runs in MultiNode mode (it has a leader) but has no worker: OME's LeaderWorkerSet "
        "builder dereferences the missing worker pod spec and the controller crashes (nil-pointer panic); add "
        "engine.worker with a size" in result.stderr
    )


def test_one_sided_size_range_is_an_error_at_the_runtime(run_cli, tmp_path):
    result = build(run_cli, tmp_path, runtime("rt", flat(modelSizeRange={"min": "1B"})), isvc("svc", "rt"))
    assert result.exit_code == 1
    line = line_of(tmp_path, "modelSizeRange:") + 1
    assert (
        f"in.yaml:{line}:5: error: [size-range-one-sided] modelSizeRange sets no max: OME's matcher dereferences both "
        "bounds, so the controller "
        "crashes (nil-pointer panic) when it checks a model with modelParameterSize against runtime rt; set both"
    ) in result.stderr
    assert "OME's runtime matcher would crash the controller here" in result.stderr


def test_one_sided_range_completed_by_the_parent_is_a_note_without_auto_selection(run_cli, tmp_path):
    # The spec endorses this pattern; it is a hazard only when OME auto-selects (tests/selection/test_size_range.py).
    parent = runtime("parent", flat(disabled=True, modelSizeRange={"min": "1B", "max": "9B"}))
    child = runtime("child", {"disabled": False, "modelSizeRange": {"max": "5B"}}, parent="parent")
    result = build(run_cli, tmp_path, parent, child, isvc("svc", "child"))
    assert result.exit_code == 0, result
    assert "modelSizeRange sets no min" not in result.stderr
    verbose = run_cli("build", "-v", str(tmp_path))
    assert (
        "info: [size-range-one-sided] modelSizeRange sets no min (the merged chain has both): when OME auto-selects"
        in verbose.stderr
    )


def test_accelerator_classes(run_cli, tmp_path):
    """ome-rendering §2.2 step 4a and §2.5: a named runtime lacking the class fails with OME's message."""
    svc = isvc("svc", "rt")
    svc["metadata"]["annotations"] = {"ome.io/accelerator-class": "a100"}
    result = build(
        run_cli, tmp_path, runtime("rt", flat(acceleratorRequirements={"acceleratorClasses": ["h100"]})), svc
    )
    assert result.exit_code == 1
    assert (
        "error: [RuntimeValidationError] Runtime rt does not support model m3b: runtime rt does not support model : "
        "runtime does not support the required accelerator class" in result.stderr
    )
    assert "does not model AcceleratorClasses" not in result.stderr  # modelled since issue 12


def test_replica_override_is_reported_at_the_runtime(run_cli, tmp_path):
    engine = {"minReplicas": 2, "runner": dict(RUNNER)}
    result = build(run_cli, tmp_path, runtime("rt", flat(engineConfig=engine)), isvc("svc", "rt"))
    assert result.exit_code == 0
    line = line_of(tmp_path, "minReplicas: 2")
    assert (
        f"in.yaml:{line}:18: warning: [replicas-overridden] runtime rt sets engineConfig.minReplicas: 2, but OME's "
        "admission webhook defaults "
        "spec.engine.minReplicas of InferenceService svc to 1 first, which overrides it; set it on the InferenceService"
    ) in result.stderr
    assert only(result.stdout, "HorizontalPodAutoscaler")["spec"]["minReplicas"] == 1


def test_namespaced_base_model_needs_kind(run_cli, tmp_path):
    """ome-selection §0 finding 7: the ConfigMap step honours spec.model.kind (default ClusterBaseModel)."""
    model = {**MODEL, "kind": "BaseModel", "metadata": {"name": "m3b", "namespace": "default"}}
    (tmp_path / "in.yaml").write_text(dump(model, runtime("rt", flat()), isvc("svc", "rt")), encoding="utf-8")
    result = run_cli("build", str(tmp_path / "in.yaml"))
    assert result.exit_code == 1
    assert (
        'error: [ModelConfigError] failed to get base model spec for m3b: clusterbasemodels.ome.io "m3b" not found '
        "(set spec.model.kind: BaseModel for a namespaced BaseModel)" in result.stderr
    )
    good = isvc("svc", "rt")
    good["spec"]["model"]["kind"] = "BaseModel"
    (tmp_path / "in.yaml").write_text(dump(model, runtime("rt", flat()), good), encoding="utf-8")
    assert run_cli("build", str(tmp_path / "in.yaml")).exit_code == 0


def test_model_metadata_overlay(run_cli, tmp_path):
    bare = {**MODEL, "spec": {"storage": MODEL["spec"]["storage"]}}
    (tmp_path / "in.yaml").write_text(dump(bare, runtime("rt", flat()), isvc("svc", "rt")), encoding="utf-8")
    overlay = tmp_path / "meta.yaml"
    overlay.write_text(
        "models:\n"
        "  m3b:\n"
        '    modelFormat: {name: safetensors, version: "1.0.0"}\n'
        '    modelFramework: {name: transformers, version: "4.45.0"}\n'
        "    modelArchitecture: LlamaForCausalLM\n"
        "    modelParameterSize: 3B\n"
        "  other: {quantization: fp8}\n",
        encoding="utf-8",
    )
    result = run_cli("build", "-v", str(tmp_path / "in.yaml"), "--model-metadata", str(overlay))
    assert result.exit_code == 0, result
    assert (
        f"{overlay}:7:10: info: [model-metadata] no ClusterBaseModel or BaseModel other in the input; entry not used"
        in result.stderr
    )
    assert '"modelFormatName":"safetensors"' in only(result.stdout, "ConfigMap")["data"]["models.json"]
    overlay.write_text(
        "models:\n  m3b:\n    modelType: llama\n    modelFormat: {name: safetensors, version: 1.0}\n", encoding="utf-8"
    )
    result = run_cli("build", str(tmp_path / "in.yaml"), "--model-metadata", str(overlay))
    assert result.exit_code == 1
    assert (
        f"{overlay}:3:16: error: [model-metadata] m3b: modelType is not a field the model agent fills (allowed: "
        "modelFormat, modelFramework, modelArchitecture, quantization, modelParameterSize, modelConfiguration)"
        in result.stderr
    )
    assert (
        f"{overlay}:4:47: error: [model-metadata] m3b: modelFormat.version must be a string (quote versions such as "
        '"1.0")' in result.stderr
    )


def test_go_formatting_helpers():
    assert go_sprintf_name('rate(x{svc="%s"}[1m])', "a-engine") == 'rate(x{svc="a-engine"}[1m])'
    assert go_sprintf_name("up", "a") == "up%!(EXTRA string=a)"
    assert go_sprintf_name("100%% %s %s", "a") == "100% a %!s(MISSING)"
    assert go_json({"q": "<a&b>", "u": "é\u2028"}) == '{"q":"\\u003ca\\u0026b\\u003e","u":"é\\u2028"}'
    assert models_json("m", {"storage": {"parameters": {"b": 1, "a": "x"}, "key": "k"}}) == (
        '[{"modelName":"m","modelSpec":{"parameters":{"a":"x","b":"1"},"storageKey":"k","modelFormatName":""}}]'
    )
