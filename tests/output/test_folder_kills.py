"""``output.folder.replacing`` killed (``os._exit``: no cleanup runs) at each step of the swap, then run again: the
folder is always the old or the new whole, the next run finishes the job, and nothing stays beside it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from omerender.output import writer

OLD = {"a.yaml": "old: 1\n", "gone.yaml": "old: 2\n"}
NEW = {"a.yaml": "new: 1\n", "b/c.yaml": "new: 2\n"}

KILLER = textwrap.dedent(
    """
    import os, sys
    from omerender.output import folder, writer
    point, exchange = sys.argv[2], sys.argv[3] == "exchange"
    real_rename, real_exchange, real_recover = os.rename, folder._exchange, folder.recover
    calls = {"rename": 0, "recover": 0}

    def rename(*args, **kwargs):
        calls["rename"] += 1
        if point == f"before-rename-{calls['rename']}":
            os._exit(9)
        real_rename(*args, **kwargs)

    def exchange_then(parent_fd, a, b):
        if not exchange:
            return False
        done = real_exchange(parent_fd, a, b)
        if point == "after-exchange":
            os._exit(9)
        return done

    def recover(*args):
        calls["recover"] += 1
        if point == "before-final-recover" and calls["recover"] == 2:
            os._exit(9)
        real_recover(*args)

    os.rename, folder._exchange, folder.recover = rename, exchange_then, recover
    writer.write_dir(sys.argv[1], {"a.yaml": "new: 1\\n", "b/c.yaml": "new: 2\\n"})
    """
)


NOT_ON_THE_PATH = {("before-rename-2", "exchange"), ("after-exchange", "two-renames")}


def _tree(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
        for p in folder.rglob("*")
        if p.is_file() and p.name != writer.MANIFEST
    }


@pytest.mark.parametrize("exchange", ["exchange", "two-renames"])
@pytest.mark.parametrize("point", ["before-rename-1", "before-rename-2", "after-exchange", "before-final-recover"])
def test_a_kill_at_each_step_leaves_old_or_new_and_the_next_run_recovers(
    tmp_path: Path, point: str, exchange: str
) -> None:
    out = tmp_path / "rendered"
    writer.write_dir(str(out), OLD)
    (out / "mine.txt").write_text("kept\n", encoding="utf-8")
    killed = subprocess.run([sys.executable, "-c", KILLER, str(out), point, exchange], check=False)
    assert killed.returncode == (0 if (point, exchange) in NOT_ON_THE_PATH else 9), "the kill happened"
    if out.exists():
        assert _tree(out) in ({**OLD, "mine.txt": "kept\n"}, {**NEW, "mine.txt": "kept\n"})
    else:
        assert (tmp_path / ".rendered.old").is_dir(), "without the folder, the old one waits beside it"
    writer.write_dir(str(out), NEW)
    assert _tree(out) == {**NEW, "mine.txt": "kept\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rendered"]
