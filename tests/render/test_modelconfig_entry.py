"""models.json as OME's generateModelConfigEntry writes it (modelconfig_reconciler.go at 17b77eda)."""

from __future__ import annotations

import json
from typing import Any

from omerender.load.obj import Obj
from omerender.render.modelconfig import entry, models_json
from omerender.resolve.index import Universe

BASE = {"modelFormat": {"name": "safetensors"}, "storage": {"storageUri": "hf://x/y", "path": "/m"}}


def obj(kind: str, name: str, spec: dict[str, Any], namespace: str = "") -> Obj:
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return Obj(
        "in.yaml", 0, {"apiVersion": "ome.io/v1beta1", "kind": kind, "metadata": meta, "spec": spec}, None, namespace
    )


def universe(*objects: Obj) -> Universe:
    found = Universe()
    for o in objects:
        if o.kind == "ClusterBaseModel":
            found.cluster_models[o.name] = o
        elif o.kind == "BaseModel":
            found.models[(o.namespace, o.name)] = o
        else:
            found.others.append(o)
    return found


def test_fine_tuned_weight_spec_keys_in_struct_order() -> None:
    weight = {
        "modelType": "LoRA",
        "storage": {"key": "k", "parameters": {"b": "2", "a": "1"}, "path": "/w", "storageUri": "oci://w"},
        "hyperParameters": {"strategy": "lora"},
    }
    text = models_json("base", BASE, weight)
    assert text == (
        '[{"modelName":"base","modelSpec":{"storageUri":"hf://x/y","path":"/m","modelFormatName":"safetensors"},'
        '"fineTunedWeightSpec":{"storageUri":"oci://w","path":"/w","parameters":{"a":"1","b":"2"},'
        '"storageKey":"k","modelType":"LoRA"}}]'
    )


def test_a_weight_without_storage_or_type_is_an_empty_object_not_omitted() -> None:
    assert json.loads(models_json("base", BASE, {}))[0]["fineTunedWeightSpec"] == {}


def test_only_the_first_listed_weight_is_looked_up() -> None:
    found = universe(obj("ClusterBaseModel", "base", BASE), obj("FineTunedWeight", "w1", {"modelType": "LoRA"}))
    model, weight, error = entry({"name": "base", "fineTunedWeights": ["w1", "missing"]}, "ns", found)
    assert error is None and model is not None and weight is not None and weight.name == "w1"
    _, _, error = entry({"name": "base", "fineTunedWeights": ["missing"]}, "ns", found)
    assert error == (
        "failed to get fine tuned weight spec missing (listed in ModelRef.FineTunedWeights): "
        'finetunedweights.ome.io "missing" not found'
    )


def test_kind_fine_tuned_weight_names_the_weight_and_its_base() -> None:
    found = universe(
        obj("BaseModel", "base", BASE, namespace="models"),
        obj("FineTunedWeight", "w", {"baseModelRef": {"name": "base", "namespace": "models"}}),
        obj("FineTunedWeight", "orphan", {"baseModelRef": {}}),
        obj("FineTunedWeight", "lost", {"baseModelRef": {"name": "gone"}}),
    )
    model, weight, error = entry({"name": "w", "kind": "FineTunedWeight"}, "team-a", found)
    assert error is None and model is not None and model.name == "base" and weight is not None
    assert entry({"name": "nope", "kind": "FineTunedWeight"}, "team-a", found)[2] == (
        'failed to get referenced fine tuned weight spec for nope: finetunedweights.ome.io "nope" not found'
    )
    assert entry({"name": "orphan", "kind": "FineTunedWeight"}, "team-a", found)[2] == (
        "FineTunedWeight orphan has no BaseModelRef.Name specified"
    )
    assert entry({"name": "lost", "kind": "FineTunedWeight"}, "team-a", found)[2] == (
        'failed to get base model spec for gone (referenced by FTW lost): clusterbasemodels.ome.io "gone" not found'
    )
