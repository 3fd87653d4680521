"""docs/serving-checks.md's example of a user's model facts runs as shown: the overlay it shows, extending
ome:v0.1.5, makes OME's srt-ling-plus report the gpu-memory-fit line it shows, and nothing else. Skipped when
../shared/ome (OME's corpus, laid out as OME's config/) is absent."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from stage_objects import API, objects

from omerender.load.metadata import apply_overlay
from omerender.load.modelfacts import model_facts

REPO = Path(__file__).resolve().parents[2]
OME = REPO.parent / "shared" / "ome"
PAGE = REPO / "docs" / "serving-checks.md"
HEADING = "### Model sizes: what `ome:v0.1.5` ships, and adding your own"
ISVC = """apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {name: ling, namespace: demo}
spec: {model: {name: ling-plus}, runtime: {name: srt-ling-plus}, engine: {}}
"""


def _section() -> str:
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(HEADING)
    end = text.find("\n##", start + len(HEADING))  # the next heading (a YAML comment starts with one #)
    return text[start : end if end != -1 else len(text)]


def _block(section: str, language: str) -> str:
    found = re.search(rf"^```{language}\n(.*?)^```$", section, re.S | re.M)
    assert found is not None, f"no {language} block under {HEADING}"
    return found.group(1)


def test_the_section_shows_an_overlay_of_a_few_lines_and_what_it_reports() -> None:
    overlay = _block(_section(), "yaml")
    lines = [line for line in overlay.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert lines[0] == "extends: ome:v0.1.5" and len(lines) <= 6, overlay
    assert _block(_section(), "text").rstrip().endswith("; ...")


@pytest.mark.skipif(not OME.is_dir(), reason="../shared/ome (OME's corpus) is not present")
def test_the_example_overlay_reports_what_the_page_shows(tmp_path: Path) -> None:
    section = _section()
    (tmp_path / "model-facts.yaml").write_text(_block(section, "yaml"), encoding="utf-8")
    (tmp_path / "isvc.yaml").write_text(ISVC, encoding="utf-8")
    runtime = OME / "runtimes" / "srt" / "inclusionAI" / "ling-plus-rt.yaml"
    model = OME / "models" / "inclusionAI" / "Ling-plus.yaml"
    command = [sys.executable, "-m", "omerender", "build", "isvc.yaml", str(runtime), str(model)]
    command += ["--model-metadata", "model-facts.yaml", "-o", "name"]
    proc = subprocess.run(command, capture_output=True, text=True, check=False, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr  # a warning: the build goes on
    shown = _block(section, "text").rstrip().removesuffix("; ...")
    reported = [line.replace(str(OME) + "/", "config/") for line in proc.stderr.splitlines()]
    assert len(reported) == 1 and reported[0].startswith(shown + "; "), proc.stderr


def test_model_metadata_pages_example_applies_as_it_says(tmp_path: Path) -> None:
    """docs/model-metadata.md's example, extending ome:v0.1.5: no problem, the file's facts and the shipped fields."""
    text = (REPO / "docs" / "model-metadata.md").read_text(encoding="utf-8")
    [example] = [b for b in re.findall(r"^```yaml\n(.*?)^```$", text, re.S | re.M) if b.startswith("extends:")]
    path = tmp_path / "model-facts.yaml"
    path.write_text(example, encoding="utf-8")
    made = [
        objects({"apiVersion": API, "kind": "ClusterBaseModel", "metadata": {"name": name}, "spec": {}})[0]
        for name in ("ling-plus", "minimax-m2")
    ]
    assert apply_overlay(str(path), made) == []
    sizes = []
    for facts in map(model_facts, made):
        assert facts.parameter_count is not None and facts.bytes_per_parameter is not None
        sizes.append((facts.parameter_count.value, facts.bytes_per_parameter.value))
    assert sizes == [(290 * 10**9, 2.0), (230 * 10**9, 1.0)]
    assert all(m.body["spec"]["modelFormat"]["name"] == "safetensors" for m in made)  # the shipped entries' fields
