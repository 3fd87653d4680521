"""The real Mermaid parser (the `mermaid` npm package under jsdom, tests/mermaid/), for the tests that draw.

.ci/run installs it with `npm ci --prefix tests/mermaid`; in CI (CI=true) a missing install fails the
test instead of skipping it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

CHECKER = Path(__file__).resolve().parent / "mermaid"


def node() -> str:
    program = shutil.which("node")
    if program is None or not (CHECKER / "node_modules" / "mermaid" / "package.json").is_file():
        message = "Mermaid parser not installed: run `npm ci --prefix tests/mermaid` (node and npm needed)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return program


def parse(texts: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    files = []
    for name, text in sorted(texts.items()):
        path = tmp_path / f"{name}.mmd"
        path.write_text(text, encoding="utf-8")
        files.append(str(path))
    return subprocess.run(
        [node(), str(CHECKER / "parse.mjs"), *files], capture_output=True, text=True, check=False, timeout=600
    )
