"""Component deployment modes as utils/deployment.go decides them (ome-rendering §3.1)."""

from __future__ import annotations

from omerender.render.modes import component_modes, engine_mode, isvc_mode


def test_engine_mode_order() -> None:
    assert (
        engine_mode({"annotations": {"ome.io/deploymentMode": "MultiNodeRayVLLM"}, "leader": {}}) == "MultiNodeRayVLLM"
    )
    assert engine_mode({"annotations": {"ome.io/deploymentMode": "PDDisaggregated"}, "minReplicas": 0}) == "Serverless"
    assert engine_mode({"worker": {"size": 1}}) == "MultiNode"
    assert engine_mode({"minReplicas": 0}) == "Serverless"
    assert engine_mode({"minReplicas": 1}) == "RawDeployment"
    assert engine_mode({}) == "RawDeployment"


def test_decoder_and_router_rules() -> None:
    modes, error = component_modes(
        {"engine": {"minReplicas": 0}, "decoder": {"leader": {}}, "router": {"minReplicas": 0}}
    )
    assert error is None
    assert modes == {"engine": "RawDeployment", "decoder": "MultiNode", "router": "Serverless"}
    modes, error = component_modes({"engine": None, "decoder": {}, "router": None})
    assert error == "engine component is required"


def test_isvc_mode_ignores_invalid_values() -> None:
    assert isvc_mode({"ome.io/deploymentMode": "PDDisaggregated"}) == "RawDeployment"
    assert isvc_mode({"ome.io/deploymentMode": "VirtualDeployment"}) == "VirtualDeployment"
    assert isvc_mode(None) == "RawDeployment"
