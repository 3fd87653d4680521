"""ome-rendering.md §5.3 and §5.4, transcribed by hand, against the golden case tests/cases/ome-worked-example.

The golden harness pins the exact bytes; this test pins what those bytes mean against the research
note, field by field, so the golden file cannot drift from OME unnoticed. ownerReferences are left
out (the UID is unknown offline); server-side defaults are not part of §5.3 either.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

CASE = Path(__file__).parent / "cases" / "ome-worked-example"
ISVC = "llama-3-2-3b-instruct"
NAME = f"{ISVC}-engine"
NS = "llama-demo"
MODEL_PATH = "/raid/models/meta/llama-3-2-3b-instruct"

# §5.3 metadata.labels (vendor set, no category annotation on the model)
LABELS = {
    "app": NAME,
    "ome.io/inferenceservice": ISVC,
    "component": "engine",
    "serving-runtime": "sglang-llama-3-2-3b",
    "fine-tuned-serving": "false",
    "base-model-name": ISVC,
    "base-model-size": "SMALL",
    "base-model-type": "Serving",
    "base-model-vendor": "meta",
}
# §5.3 metadata.annotations
ANNOTATIONS = {
    "ome.io/deploymentMode": "RawDeployment",
    "ome.io/base-model-name": ISVC,
    "ome.io/base-model-format": "safetensors",
    "ome.io/base-model-format-version": "1.0.0",
    "ome.io/base-model-vendor": "meta",
    "ome.io/serving-runtime": "sglang-llama-3-2-3b",
}

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": NAME, "namespace": NS, "labels": LABELS, "annotations": ANNOTATIONS},
    "spec": {
        "selector": {"matchLabels": {"app": NAME}},
        "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}},
        "revisionHistoryLimit": 10,
        "progressDeadlineSeconds": 600,
        "template": {
            "metadata": {"name": NAME, "namespace": NS, "labels": LABELS, "annotations": ANNOTATIONS},
            "spec": {
                "containers": [
                    {
                        "name": "ome-container",
                        "image": "docker.io/lmsysorg/sglang:v0.5.5.post3-cu129-amd64",
                        "command": [
                            "python3",
                            "-m",
                            "sglang.launch_server",
                            "--host=0.0.0.0",
                            "--port=8080",
                            "--model-path=$(MODEL_PATH)",
                            "--served-model-name=llama-3-2-3b-instruct",
                        ],
                        "args": ["--tp-size=1", "--mem-frac=0.9"],
                        "ports": [{"containerPort": 8080, "name": "http1", "protocol": "TCP"}],
                        "env": [
                            {"name": "MODEL_PATH", "value": MODEL_PATH},
                            {"name": "PARALLELISM_SIZE", "value": "1"},
                        ],
                        "resources": {
                            "requests": {"cpu": "10", "memory": "30Gi", "nvidia.com/gpu": "1"},
                            "limits": {"cpu": "10", "memory": "30Gi", "nvidia.com/gpu": "1"},
                        },
                        "volumeMounts": [
                            {"name": "dshm", "mountPath": "/dev/shm"},
                            {"name": ISVC, "mountPath": MODEL_PATH, "readOnly": True},
                        ],
                        "readinessProbe": {
                            "httpGet": {"path": "/health_generate", "port": 8080},
                            "periodSeconds": 60,
                            "timeoutSeconds": 200,
                            "failureThreshold": 3,
                            "successThreshold": 1,
                        },
                        "startupProbe": {
                            "httpGet": {"path": "/health_generate", "port": 8080},
                            "initialDelaySeconds": 60,
                            "periodSeconds": 6,
                            "timeoutSeconds": 30,
                            "failureThreshold": 150,
                            "successThreshold": 1,
                        },
                        "terminationMessagePath": "/dev/termination-log",
                        "terminationMessagePolicy": "File",
                        "imagePullPolicy": "IfNotPresent",
                    }
                ],
                "volumes": [
                    {"name": "dshm", "emptyDir": {"medium": "Memory"}},
                    {"name": ISVC, "hostPath": {"path": MODEL_PATH}},
                ],
                "nodeSelector": {"models.ome.io/clusterbasemodel.llama-3-2-3b-instruct": "Ready"},
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                "dnsPolicy": "ClusterFirst",
                "restartPolicy": "Always",
                "terminationGracePeriodSeconds": 30,
                "securityContext": {},
                "schedulerName": "default-scheduler",
            },
        },
    },
}

# §5.4, one object per bullet
SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": NAME, "namespace": NS, "labels": LABELS, "annotations": ANNOTATIONS},
    "spec": {
        "type": "ClusterIP",
        "selector": {"app": NAME},
        "ports": [{"name": "http1", "port": 8080, "targetPort": 8080, "protocol": "TCP"}],
    },
}
HPA = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": NAME, "namespace": NS, "labels": LABELS, "annotations": ANNOTATIONS},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": NAME},
        "minReplicas": 1,
        "maxReplicas": 1,
        "metrics": [
            {
                "type": "Resource",
                "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
            }
        ],
        "behavior": {},
    },
}
PDB = {
    "apiVersion": "policy/v1",
    "kind": "PodDisruptionBudget",
    "metadata": {"name": NAME, "namespace": NS, "labels": LABELS, "annotations": ANNOTATIONS},
    "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": NAME}}},
}
EXTERNAL = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {
        "name": ISVC,
        "namespace": NS,
        "labels": {"ome.io/inferenceservice": ISVC, "component": "external-service"},
    },
    "spec": {
        "selector": {"ome.io/inferenceservice": ISVC, "component": "engine"},
        "ports": [{"name": "http", "port": 8080, "targetPort": 8080, "protocol": "TCP"}],
        "type": "ClusterIP",
    },
}
CONFIG_MAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {
        "name": "modelconfig-lama-3-2-3b-instruct",
        "namespace": NS,
        "labels": {"ome.io/inferenceservice": ISVC},
    },
    "data": {
        "models.json": (
            '[{"modelName":"llama-3-2-3b-instruct","modelSpec":{"storageUri":"hf://meta-llama/Llama-3.2-3B-Instruct",'
            '"path":"/raid/models/meta/llama-3-2-3b-instruct","modelFormatName":"safetensors","modelFormatVersion":"1.0.0",'
            '"modelFrameworkName":"transformers","modelFrameworkVersion":"4.45.0.dev0"}}]'
        )
    },
}
EXPECTED = [DEPLOYMENT, SERVICE, HPA, PDB, EXTERNAL, CONFIG_MAP]


def _key(obj: dict[str, Any]) -> tuple[str, str]:
    return obj["kind"], obj["metadata"]["name"]


def _check(objects: list[dict[str, Any]]) -> None:
    got = {_key(o): o for o in objects}
    want = {_key(o): o for o in EXPECTED}
    assert sorted(got) == sorted(want), "§5.4: no Ingress, no KEDA object, no RBAC"
    for key, obj in want.items():
        assert got[key] == obj, key


def test_golden_file_matches_the_research_note() -> None:
    _check([d for d in yaml.safe_load_all((CASE / "expected" / "stdout").read_text(encoding="utf-8")) if d])


def test_cli_output_matches_the_research_note(run_cli, monkeypatch) -> None:
    monkeypatch.chdir(CASE)
    result = run_cli("build", "input")
    assert result.exit_code == 0, result
    _check([d for d in yaml.safe_load_all(result.stdout) if d])
