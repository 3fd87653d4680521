"""Every failed write is the environment, not a bug: one line naming the user's path, exit 1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from omerender.errors import WriteError
from omerender.output import placing, writer

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_stdout_is_a_user_error() -> None:
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "omerender", "build", str(EXAMPLE), "--kube-version", "none"],
            stdout=full,
            stderr=subprocess.PIPE,
            check=False,
        )
    assert proc.returncode == 1
    assert proc.stderr.decode() == "omerender: error: cannot write to standard output: No space left on device\n"


def test_a_failing_disk_names_the_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(placing, "put_file", full)  # every file of the staging folder is written through it
    with pytest.raises(WriteError, match=r"^.*out: cannot write: No space left on device$"):
        writer.write_dir(str(tmp_path / "out"), {"a/b.yaml": "x: 1\n"})
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "no staging left behind"


def test_an_interrupted_swap_is_recovered_by_the_next_run(tmp_path: Path) -> None:
    out = tmp_path / "out"
    writer.write_dir(str(out), {"a.yaml": "a: 1\n"})
    (out / "mine.txt").write_text("keep\n", encoding="utf-8")
    os.replace(out, tmp_path / ".out.old")  # killed after the first of two renames
    writer.write_dir(str(out), {"b.yaml": "b: 1\n"})
    assert sorted(p.name for p in out.iterdir()) == [".omerender-manifest", "b.yaml", "mine.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_file_cannot_leave_the_folder(tmp_path: Path) -> None:
    with pytest.raises(WriteError, match="outside"):
        writer.write_dir(str(tmp_path / "out"), {"../escaped.yaml": "x: 1\n"})
    assert not (tmp_path / "escaped.yaml").exists()


def test_a_foreign_symlink_on_the_way_is_never_written_through(tmp_path: Path) -> None:
    out, outside = tmp_path / "out", tmp_path / "outside"
    outside.mkdir()
    writer.write_dir(str(out), {"a.yaml": "a: 1\n"})
    os.symlink(outside, out / "ns")  # foreign: kept as a link, but no file goes through it
    os.symlink("a.yaml", out / "inner")  # even one that stays inside is not followed
    for rel in ("ns/deployment-x.yaml", "inner/x.yaml"):
        with pytest.raises(WriteError, match=f"refusing to write {rel}: .* is a symlink"):
            writer.write_dir(str(out), {rel: "x: 1\n"})
    assert list(outside.iterdir()) == []
    assert sorted(p.name for p in out.iterdir()) == [".omerender-manifest", "a.yaml", "inner", "ns"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "outside"]


@pytest.mark.parametrize("rel", ["/etc/x.yaml", "a//b.yaml", "a/./b.yaml", "a/../../b.yaml", "", "a/"])
def test_only_plain_relative_paths_are_written(tmp_path: Path, rel: str) -> None:
    with pytest.raises(WriteError, match="outside"):
        writer.write_dir(str(tmp_path / "out"), {rel: "x: 1\n"})
    assert sorted(p.name for p in tmp_path.iterdir()) == []
