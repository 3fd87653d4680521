"""stdout is written in chunks as documents are produced: the same bytes as one dump, nothing on failure."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from omerender.cli import main
from omerender.cli import output as cli_output
from omerender.yamlwrite import pyyaml_stream

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo"


def test_chunks_join_to_the_whole_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    whole = CliRunner().invoke(main, ["build", str(EXAMPLE)])
    monkeypatch.setattr(cli_output, "CHUNK_BYTES", 100)
    chunked = CliRunner().invoke(main, ["build", str(EXAMPLE)])
    assert whole.exit_code == chunked.exit_code == 0
    assert chunked.stdout == whole.stdout
    assert pyyaml_stream(list(yaml.load_all(whole.stdout, Loader=yaml.CSafeLoader))) == whole.stdout


def test_nothing_written_when_the_build_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli_output, "CHUNK_BYTES", 100)
    tree = tmp_path / "tree"
    tree.mkdir()
    for item in EXAMPLE.rglob("*.yaml"):
        (tree / item.name).write_text(item.read_text(encoding="utf-8"), encoding="utf-8")
    (tree / "broken.yaml").write_text("kind: InferenceService\napiVersion: ome.io/v1beta1\nmetadata: {}\n")
    result = CliRunner().invoke(main, ["build", str(tree)])
    assert result.exit_code == 1
    assert result.stdout == ""
