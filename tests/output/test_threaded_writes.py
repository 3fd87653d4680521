"""``--output-dir`` creates its files in background threads while the next ones are formatted: a failure on
either side aborts the whole write (DIR as it was, no staging folder, no thread left running)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from omerender.errors import WriteError
from omerender.output import placing, writer

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo"
MANY = 500  # files: more than the writing threads' queue holds, so writing and producing overlap


def _files(count: int, folders: int = 5) -> dict[str, str]:
    return {f"ns-{n % folders}/obj-{n}.yaml": f"n: {n}\n" for n in range(count)}


def _previous(out: Path) -> dict[str, str]:
    writer.write_dir(str(out), {"old.yaml": "old: 1\n"})
    return {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()}


def _left(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in tmp_path.iterdir())


def test_every_file_is_written_from_a_lazy_producer(tmp_path: Path) -> None:
    files = _files(MANY)
    produced: list[str] = []

    def lazily() -> Iterator[tuple[str, str]]:
        for rel, text in files.items():
            produced.append(rel)
            yield rel, text

    writer.write_items(str(tmp_path / "out"), list(files), lazily())
    assert produced == list(files)
    written = {p.relative_to(tmp_path / "out").as_posix(): p.read_text() for p in (tmp_path / "out").rglob("*.yaml")}
    assert written == files
    manifest = (tmp_path / "out" / writer.MANIFEST).read_text(encoding="utf-8")
    assert manifest == "".join(f"{rel}\n" for rel in sorted(files))


@pytest.mark.parametrize("writers", [0, 1, 3])
def test_the_placer_writes_the_same_files_with_any_number_of_threads(tmp_path: Path, writers: int) -> None:
    files = _files(MANY)
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        placing.Placer(fd, str(tmp_path), writers).put_all(files.items())
    finally:
        os.close(fd)
    assert {p.relative_to(tmp_path).as_posix(): p.read_text() for p in tmp_path.rglob("*.yaml")} == files


def test_a_failure_in_a_writing_thread_aborts_the_whole_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    before = _previous(out)
    real = placing.put_file
    count = iter(range(MANY))

    def fails_later(fd: int, rel: str, data: bytes) -> None:
        if next(count) == MANY // 2:
            raise OSError(28, "No space left on device")
        real(fd, rel, data)

    monkeypatch.setattr(placing, "put_file", fails_later)
    threads = threading.active_count()
    with pytest.raises(WriteError, match=r"^.*out: cannot write: No space left on device$"):
        writer.write_dir(str(out), _files(MANY))
    assert threading.active_count() == threads, "no writing thread left running"
    assert {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()} == before, "DIR as it was"
    assert _left(tmp_path) == ["out"], "no staging folder left"


@pytest.mark.parametrize("failure", [RuntimeError("formatting failed"), KeyboardInterrupt()])
def test_a_failure_of_the_producer_stops_the_writing_threads(tmp_path: Path, failure: BaseException) -> None:
    out = tmp_path / "out"
    before = _previous(out)
    files = _files(MANY)

    def breaks() -> Iterator[tuple[str, str]]:
        for n, item in enumerate(files.items()):
            if n == MANY // 2:
                raise failure
            yield item

    threads = threading.active_count()
    with pytest.raises(type(failure)):
        writer.write_items(str(out), list(files), breaks())
    assert threading.active_count() == threads, "no writing thread left running"
    assert {p.name: p.read_text(encoding="utf-8") for p in out.iterdir()} == before, "DIR as it was"
    assert _left(tmp_path) == ["out"], "no staging folder left"


def _small_files_only() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))


def test_the_cli_reports_a_failing_write_in_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "omerender", "build", str(EXAMPLE), "--kube-version", "none", "--output-dir", str(out)],
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=_small_files_only,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == f"omerender: error: {out}: cannot write: File too large\n"
    assert _left(tmp_path) == []
