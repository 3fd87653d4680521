"""Two ``build --output-dir`` runs into one folder at once, 100 times: each exits 0 (or 1 with a clear
message), and the folder always holds one complete result, with nothing hidden left beside it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo"
ROUNDS = 100


def _inputs(root: Path) -> tuple[Path, Path]:
    first, second = root / "a", root / "b"
    shutil.copytree(EXAMPLE, first)
    shutil.copytree(EXAMPLE, second)
    runtime = second / "runtime.yaml"
    runtime.write_text(
        runtime.read_text(encoding="utf-8").replace("--mem-frac=0.9", "--mem-frac=0.8"), encoding="utf-8"
    )
    return first, second


def _command(source: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "omerender", "build", str(source), "--output-dir", str(out), "--kube-version", "none"]


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_two_builds_into_one_folder(tmp_path: Path) -> None:
    first, second = _inputs(tmp_path)
    out = tmp_path / "site" / "rendered"
    expected = []
    for source in (first, second):
        subprocess.run(_command(source, out), check=True, capture_output=True)
        expected.append(_tree(out))
    assert expected[0] != expected[1]
    for _ in range(ROUNDS):
        runs = [
            subprocess.Popen(_command(s, out), stdout=subprocess.PIPE, stderr=subprocess.PIPE) for s in (first, second)
        ]
        for proc in runs:
            stdout, stderr = proc.communicate(timeout=120)
            assert proc.returncode in (0, 1), stderr.decode()
            assert b"Traceback" not in stderr and b"internal error" not in stderr, stderr.decode()
            if proc.returncode:
                assert stderr.decode().startswith("omerender: error: "), stderr.decode()
        assert _tree(out) in expected, "the folder holds one complete result"
        beside = sorted(p.name for p in out.parent.iterdir())
        assert beside == ["rendered"], beside
