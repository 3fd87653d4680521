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

import hostile_inputs
import journal_inputs
import pytest
import trust_inputs
import untrusted_inputs

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

GENERATORS.update(hostile_inputs.GENERATORS)
GENERATORS.update(trust_inputs.GENERATORS)
GENERATORS.update(journal_inputs.GENERATORS)
GENERATORS.update(untrusted_inputs.GENERATORS)
CASES = sorted(p.name for p in HERE.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() or p.is_symlink()}


def _written_only_where_asked(case: Path, work: Path, root: Path, before: set[str]) -> None:
    """Nothing appears outside the --output-dir (nothing beside it either: its lock leaves no file);
    expected/files, when the case has one, lists every file the run leaves in the work folder outside input/."""
    args = [a for a in (case / "args").read_text(encoding="utf-8").split("\n") if a] if (case / "args").exists() else []
    out = args[args.index("--output-dir") + 1] if "--output-dir" in args else None
    prefix = work.relative_to(root).as_posix() + "/"
    allowed = [] if out is None else [prefix + out + "/"]
    allowed += [
        prefix + args[args.index(o) + 1] for o in ("--report-file", "--status-file", "--lock-file") if o in args
    ]
    new = sorted(_files(root) - before)
    stray = [p for p in new if not p.startswith(prefix + "input/") and not any(p.startswith(a) for a in allowed)]
    assert stray == [], f"written outside --output-dir: {stray}"
    listed = case / "expected" / "files"
    left = "".join(f"{p}\n" for p in sorted(_files(work)) if not p.startswith("input/"))
    if listed.exists():
        assert listed.read_text(encoding="utf-8") == left
    else:
        assert left == "" or out is not None, f"files left behind: {left}"


def test_every_generator_has_a_folder() -> None:
    assert sorted(set(GENERATORS) - {p.name for p in HERE.iterdir() if p.is_dir()}) == []


@pytest.mark.parametrize("name", CASES)
def test_hostile_case(name: str, run_golden, tmp_path: Path) -> None:
    case = HERE / name
    work = tmp_path / "d1" / "d2" / "d3" / name  # deep enough that ../../.. escapes land in tmp_path
    (work / "input").mkdir(parents=True)
    if (case / "input").is_dir():
        shutil.copytree(case / "input", work / "input", dirs_exist_ok=True)
    if name in GENERATORS:
        GENERATORS[name](work / "input")
    before = _files(tmp_path)
    result = run_golden(case, work)
    assert "Traceback" not in result.stderr
    assert result.exit_code in (0, 1, 2), "exit 3 is a bug"
    if result.exit_code:
        assert result.stdout == "", "nothing is printed when the build fails"
        errors = [line for line in result.stderr.splitlines() if ": error: " in line or line.startswith("Error: ")]
        located = ("input/", "input:", "omerender: error: ", "Error: ", "/dev/zero:")
        assert errors and all(line.startswith(located) for line in errors), "every error is located or names a path"
    _written_only_where_asked(case, work, tmp_path, before)
