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
def test_a_file_is_read_whole_with_no_read_past_its_end(
    size: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "f.yaml"
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    path.write_bytes(data)
    calls = _counted_reads(monkeypatch)
    assert read_bytes(str(path), Budget(max_file_bytes=8 << 20)) == data
    chunk = 1 << 20
    if size % chunk:  # the last read comes back short, at the size fstat gave: it is the end
        assert len(calls) == -(-size // chunk)
    else:  # only an empty read finds the end
        assert len(calls) == size // chunk + 1


def test_a_file_over_the_cap_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "f.yaml"
    path.write_bytes(b"a" * 101)
    with pytest.raises(ReadProblem, match="over the 100-byte cap"):
        read_bytes(str(path), Budget(max_file_bytes=100))
