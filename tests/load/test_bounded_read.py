"""Reading an input file within the run's budget: whole, in as few reads as its size allows."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from omerender.load.bounded import Budget, ReadProblem, read_bytes


def _counted_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = os.read

    def read(fd: int, size: int) -> bytes:
        calls.append(size)
        return real(fd, size)

    monkeypatch.setattr(os, "read", read)
    return calls


@pytest.mark.parametrize("size", [0, 1, 4095, (1 << 20) - 1, 1 << 20, (3 << 20) + 5])
def test_a_file_is_read_whole_in_one_read_of_its_size(
    size: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One read asks for the size fstat gave and one byte more; coming back short at that size, it is the end.
    Not a fixed chunk: os.read allocates what it is asked for, and 1 MiB for a small file costs more than the read."""
    path = tmp_path / "f.yaml"
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    path.write_bytes(data)
    calls = _counted_reads(monkeypatch)
    assert read_bytes(str(path), Budget(max_file_bytes=8 << 20)) == data
    assert calls == [size + 1]


def test_a_file_longer_than_fstat_said_is_read_on_to_its_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file that grew after fstat: read on in chunks of at most 1 MiB, to its end (or the cap)."""
    path = tmp_path / "f.yaml"
    data = b"a: b\n" * 1000
    path.write_bytes(data)
    real_fstat = os.fstat
    monkeypatch.setattr(os, "fstat", lambda fd: os.stat_result((*real_fstat(fd)[:6], 10, *real_fstat(fd)[7:])))
    calls = _counted_reads(monkeypatch)
    assert read_bytes(str(path), Budget(max_file_bytes=8 << 20)) == data
    assert calls[0] == 11
    assert all(ask <= 1 << 20 for ask in calls)


def test_a_file_over_the_cap_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_bytes(b"a" * 101)
    with pytest.raises(ReadProblem, match="over the 100-byte cap"):
        read_bytes(str(path), Budget(max_file_bytes=100))
