"""Hostile and broken input: one golden folder per case, each a located one-line error (or a warning).

tests/hostile/<case>/ holds input/ (committed files), optional args (one CLI argument per line;
default ``build input``) and expected/ (stdout, stderr, exit_code). Inputs that are big, binary or
special files (FIFOs, symlinks) are made by GENERATORS below into a copy of the folder, never
committed. Run pytest with --update-golden to rewrite expected/ from the current output.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

HERE = Path(__file__).parent
EXAMPLE = HERE.parents[1] / "fixtures" / "llama-demo"
MB = 1024 * 1024


def _example(input_dir: Path) -> None:
    for path in EXAMPLE.glob("*.yaml"):
        shutil.copy(path, input_dir / path.name)


def _nested(depth: int) -> str:
    return (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n  a: "
        + "[" * (depth - 2)
        + "]" * (depth - 2)
        + "\n"
    )


def _big_config_map(size: int) -> str:
    head = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  blob: "
    return head + "x" * (size - len(head) - 1) + "\n"


def _symlinks_outside(input_dir: Path) -> None:
    outside = input_dir.parent / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n", encoding="utf-8")
    os.symlink(outside / "secret.yaml", input_dir / "link.yaml")
    os.symlink(outside, input_dir / "linked-dir")


def _bom_crlf(input_dir: Path) -> None:
    for path in EXAMPLE.glob("*.yaml"):
        (input_dir / path.name).write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))


def _write(name: str, data: bytes | str) -> Callable[[Path], None]:
    def make(input_dir: Path) -> None:
        target = input_dir / name
        target.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))

    return make


def _fifo(input_dir: Path) -> None:
    _example(input_dir)
    os.mkfifo(input_dir / "pipe.yaml")


def _dangling(input_dir: Path) -> None:
    os.symlink(input_dir / "deleted.yaml", input_dir / "gone.yaml")


def _over_cap(input_dir: Path) -> None:
    (input_dir / "big.yaml").write_text(_big_config_map(20 * MB), encoding="utf-8")


def _under_raised_cap(input_dir: Path) -> None:
    _example(input_dir)
    _over_cap(input_dir)


def _nested_ok(input_dir: Path) -> None:
    _example(input_dir)
    (input_dir / "deep.yaml").write_text(_nested(50), encoding="utf-8")


LATIN1_RUNTIME = "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: caf\xe9\n".encode(
    "latin-1"
)

GENERATORS: dict[str, Callable[[Path], None]] = {
    "deep-flow-nesting": _write("deep.yaml", "[" * 100_000),
    "deep-block-nesting": _write("deep.yaml", "- " * 100_000 + "x\n"),
    "nesting-101-levels": _write("deep.yaml", _nested(101)),
    "nesting-50-levels": _nested_ok,
    "file-over-cap": _over_cap,
    "file-under-raised-cap": _under_raised_cap,
    "not-utf8": _write("latin1.yaml", LATIN1_RUNTIME),
    "utf16": _write("utf16.yaml", "kind: ConfigMap\n".encode("utf-16")),
    "nul-bytes": _write("nul.yaml", b"apiVersion: v1\nkind: ConfigMap\x00\nmetadata: {}\n"),
    "bom-crlf": _bom_crlf,
    "symlink-outside": _symlinks_outside,
    "special-file-fifo": _fifo,
    "unreadable-dangling-symlink": _dangling,
}

CASES = sorted(p.name for p in HERE.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


def test_every_generator_has_a_folder() -> None:
    assert sorted(set(GENERATORS) - {p.name for p in HERE.iterdir() if p.is_dir()}) == []


@pytest.mark.parametrize("name", CASES)
def test_hostile_case(name: str, run_golden, tmp_path: Path) -> None:
    case = HERE / name
    work = tmp_path / name
    (work / "input").mkdir(parents=True)
    if (case / "input").is_dir():
        shutil.copytree(case / "input", work / "input", dirs_exist_ok=True)
    if name in GENERATORS:
        GENERATORS[name](work / "input")
    result = run_golden(case, work)
    assert "Traceback" not in result.stderr
    if result.exit_code:
        assert result.stdout == "", "nothing is printed when the build fails"
        errors = [line for line in result.stderr.splitlines() if ": error: " in line]
        assert errors and all(line.startswith("input/") for line in errors), "every error is located in an input file"
