"""A file holding only AcceleratorClasses or FineTunedWeights is an OME input, not an empty path."""

from __future__ import annotations

from pathlib import Path

WEIGHT = """apiVersion: ome.io/v1beta1
kind: FineTunedWeight
metadata: {name: lora-a}
spec:
  baseModelRef: {name: m}
  modelType: LoRA
  storage: {storageUri: "oci://n/ns/b/bucket/o/lora-a.zip"}
"""
NOT_OME = """apiVersion: v1
kind: ConfigMap
metadata: {name: x}
"""


def test_a_file_of_fine_tuned_weights_is_not_reported_empty(run_cli, tmp_path: Path) -> None:
    (tmp_path / "weights.yaml").write_text(WEIGHT, encoding="utf-8")
    (tmp_path / "other.yaml").write_text(NOT_OME, encoding="utf-8")
    result = run_cli("build", "--fail-empty-input", str(tmp_path / "weights.yaml"), str(tmp_path / "other.yaml"))
    assert "weights.yaml holds no OME object" not in result.stderr
    assert "other.yaml holds no OME object" in result.stderr  # the check still works
