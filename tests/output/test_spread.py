"""``--output-dir`` with ``-j N``: files made and the previous run's removed in forked processes, the same result."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from omerender.errors import WriteError
from omerender.output import placing, writer
from omerender.output.spread import shares


def _files(count: int, tag: str) -> dict[str, str]:
    return {f"ns{i % 7}/deployment-{tag}-{i}.yaml": f"kind: Deployment\nname: {tag}-{i}\n" for i in range(count)}


def _tree(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def _no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@pytest.fixture
def spread_from_ten(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writer, "SPREAD_LEAST", 10)


@pytest.mark.usefixtures("spread_from_ten")
def test_spread_writes_and_replaces_what_one_process_does(tmp_path: Path) -> None:
    (tmp_path / "one" / "mine").mkdir(parents=True)
    (tmp_path / "one" / "mine" / "foreign.txt").write_text("kept")
    (tmp_path / "two" / "mine").mkdir(parents=True)
    (tmp_path / "two" / "mine" / "foreign.txt").write_text("kept")
    for tag in ("first", "second"):  # the second run removes the first's files, in processes for "two"
        writer.write_dir(str(tmp_path / "one"), _files(50, tag), 1)
        writer.write_dir(str(tmp_path / "two"), _files(50, tag), 3)
        assert _tree(tmp_path / "two") == _tree(tmp_path / "one")
    assert "mine/foreign.txt" in _tree(tmp_path / "two") and len(_tree(tmp_path / "two")) == 52
    assert sorted(p.name for p in tmp_path.iterdir()) == ["one", "two"]  # no staging or old folder left
    assert _no_children_left()


@pytest.mark.usefixtures("spread_from_ten")
def test_a_failed_write_in_a_process_is_the_same_error_and_leaves_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer.write_dir(str(tmp_path / "out"), _files(20, "old"), 2)
    before = _tree(tmp_path / "out")
    parent = os.getpid()
    real = placing.put_file

    def full(stage_fd: int, rel: str, data: bytes) -> None:
        if os.getpid() != parent and rel.endswith("-19.yaml"):
            raise OSError(errno.ENOSPC, "No space left on device")
        real(stage_fd, rel, data)

    monkeypatch.setattr(placing, "put_file", full)
    with pytest.raises(WriteError, match="No space left on device"):
        writer.write_dir(str(tmp_path / "out"), _files(20, "new"), 2)
    assert _tree(tmp_path / "out") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert _no_children_left()


def test_shares_are_contiguous_never_empty() -> None:
    assert [list(s) for s in shares([1, 2, 3, 4, 5], 2)] == [[1, 2, 3], [4, 5]]
    assert [list(s) for s in shares([1], 4)] == [[1]]
