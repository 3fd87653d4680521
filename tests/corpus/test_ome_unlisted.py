"""OME's vendored folders as upstream ships them (config/runtimes and config/models with their kustomizations,
which list 48 of 208 runtimes and 86 of 209 models) and every upstream sample built against them, through the
CLI: each "not found" whose object a file in the folder defines names that file, its line, and the kustomization
that leaves it out (issue 33); each such statement is checked against the files. So does each auto-selection
that finds no runtime when an unlisted file defines one OME would pick (with the model agent's fields from
``--model-metadata ome:v0.1.5``, six samples). Skipped when ../shared/ome is absent."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
OME = REPO.parent / "shared" / "ome"
HINT = re.compile(
    r"(?P<kind>ClusterBaseModel|ClusterServingRuntime) (?P<name>\S+) is defined in (?P<path>\S+):(?P<line>\d+) but "
    r"(?P<kustomization>\S+) does not list it \(resources:\)"
)

SERVES = re.compile(
    r"(?P<kind>ClusterServingRuntime|ServingRuntime) (?P<name>\S+) in (?P<path>\S+):(?P<line>\d+) would serve it, "
    r"but (?P<kustomization>\S+) does not list (?P=path) \(resources:\)"
)
SELECTED = {  # sample -> the runtime an unlisted file defines that OME's selection would pick for it
    "BAAI/bge-reranker-v2-m3.yaml": "srt-bge-reranker-v2-m3",
    "Efficient-Large-Model/nvila-8b.yaml": "srt-nvila-8b",
    "Qwen/Qwen3-Embedding-0.6B.yaml": "srt-qwen3-embedding-0-6b",
    "microsoft/phi-3-5-moe-instruct.yaml": "srt-phi-3-5-moe-instruct",
    "microsoft/phi-4-multimodal-instruct.yaml": "srt-phi-4-multimodal-instruct",
    "openai/gpt-oss-20b.yaml": "srt-gpt-oss-20b",
}

pytestmark = pytest.mark.skipif(not OME.is_dir(), reason="../shared/ome is absent")


def _build(*extra: str) -> str:
    command = [sys.executable, "-m", "omerender", "build", "samples", "--search-path", ".", *extra]
    done = subprocess.run(command, cwd=OME, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stderr[-2000:]
    return done.stderr


@pytest.fixture(scope="module")
def stderr() -> str:
    return _build()


@pytest.fixture(scope="module")
def with_metadata() -> str:
    return _build("--model-metadata", "ome:v0.1.5")


def test_every_missing_object_a_left_out_file_defines_is_named(stderr: str) -> None:
    lines = stderr.splitlines()
    hinted = [line for line in lines if "does not list it" in line]
    models = [line for line in hinted if "[ModelReconcileError] referenced model" in line]
    runtimes = [line for line in hinted if "[RuntimeValidationError]" in line and "not found in namespace" in line]
    assert (len(models), len(runtimes), len(hinted)) == (80, 40, 120)
    unhinted = [line for line in lines if "not found in namespace" in line and "does not list it" not in line]
    # the one model no file of config/models defines keeps OME's advice
    assert len(unhinted) == 1 and "'llama-3-2-90b-fp8-dynamic'" in unhinted[0] and "ensure a BaseModel" in unhinted[0]


def test_each_hint_is_true(stderr: str) -> None:
    for match in (HINT.search(line) for line in stderr.splitlines() if "does not list it" in line):
        assert match is not None
        path, line = OME / match["path"], int(match["line"])
        docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
        assert any(d and d["kind"] == match["kind"] and d["metadata"]["name"] == match["name"] for d in docs), path
        assert path.read_text(encoding="utf-8").splitlines()[line - 1].strip() == f"name: {match['name']}"
        kustomization = OME / match["kustomization"]
        listed = yaml.safe_load(kustomization.read_text(encoding="utf-8"))["resources"]
        assert path.relative_to(kustomization.parent).as_posix() not in listed


def _true(match: re.Match[str]) -> None:
    path, line = OME / match["path"], int(match["line"])
    docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
    assert any(d and d["kind"] == match["kind"] and d["metadata"]["name"] == match["name"] for d in docs), path
    assert path.read_text(encoding="utf-8").splitlines()[line - 1].strip() == f"name: {match['name']}"
    kustomization = OME / match["kustomization"]
    listed = yaml.safe_load(kustomization.read_text(encoding="utf-8"))["resources"]
    assert path.relative_to(kustomization.parent).as_posix() not in listed


def test_each_failed_selection_an_unlisted_runtime_would_serve_names_it(with_metadata: str) -> None:
    # before: 6 RuntimeSelectionError, none naming a file; after: the same 6, each naming the one runtime
    failed = [line for line in with_metadata.splitlines() if "[RuntimeSelectionError]" in line]
    assert len(failed) == 6
    named = {}
    for line in failed:
        matches = list(SERVES.finditer(line))
        assert len(matches) == 1, line
        _true(matches[0])
        named[line.split(":")[0].removeprefix("samples/isvc/")] = matches[0]["name"]
    assert named == SELECTED
    assert len([line for line in with_metadata.splitlines() if "does not list it" in line]) == 120


def test_a_model_without_format_names_no_runtime(stderr: str) -> None:
    # without the model agent's fields seven models have no modelFormat: OME's selection accepts no runtime for
    # them, so none is named; the one sample whose model has a format names its runtime
    failed = [line for line in stderr.splitlines() if "[RuntimeSelectionError]" in line]
    unnamed = [line for line in failed if "would serve it" not in line]
    assert (len(failed), len(unnamed)) == (8, 7)
    assert all("model format name is required" in line for line in unnamed)
    (served,) = (SERVES.search(line) for line in failed if "would serve it" in line)
    assert served is not None and served["name"] == "srt-qwen3-embedding-0-6b"
    _true(served)
