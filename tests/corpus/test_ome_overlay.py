"""The shipped overlay ``ome:v0.1.5`` is what scripts/ome_model_metadata.py writes from ../shared/ome, and agrees with
what OME's model agent reads where it matters to matching. Skipped when ../shared/ome is absent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
OME = REPO.parent / "shared" / "ome"
SHIPPED = REPO / "omerender" / "catalogue" / "ome-v0.1.5.yaml"

pytestmark = pytest.mark.skipif(not OME.is_dir(), reason="../shared/ome (OME's corpus) is not present")


def test_the_shipped_overlay_is_what_the_generator_writes() -> None:
    command = [sys.executable, "scripts/ome_model_metadata.py", str(OME), "v0.1.5"]
    written = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert written == SHIPPED.read_text(encoding="utf-8")


def test_kimi_k2_is_fp8_as_the_model_agent_reads_it() -> None:
    """OME's agent sets quantization from config.json's quant_method (pkg/modelagent/config_parser.go:325-337 at
    17b77eda), fp8 for Kimi-K2-Instruct (pkg/hfutil/modelconfig/testdata/kimi_k2_instruct.json:38-46), and
    srt-kimi-k2-pd, which upstream's sample names, requires it."""
    models = yaml.safe_load(SHIPPED.read_text(encoding="utf-8"))["models"]
    assert models["kimi-k2-instruct"]["quantization"] == "fp8"
