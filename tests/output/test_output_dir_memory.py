"""``build --output-dir DIR`` under ``ulimit -v`` (issue 31): whatever the limit, one line says what is true (DIR
holds the new output, or DIR is as it was), and nothing is left beside DIR (no ``.DIR.old``, no ``.DIR.stage``).

Measured on the development machine with the six-namespace tree below (an old DIR with six sub-folders): before,
at 75-90 MB the new DIR was swapped in and then the threads removing ``.DIR.old`` could not start ("internal
error: RuntimeError: can't start new thread", exit 3, ``.DIR.old`` left); at 60-70 MB the writing threads could
not start (exit 3, DIR old); at 50-55 MB jsonschema-rs (Rust) failed an allocation and aborted the process with
"memory allocation of N bytes failed" and, RUST_BACKTRACE being set, a backtrace (exit 134). Now each limit
ends in exit 0 (threads only where there is room, native code only with room to spare) or in the one line
"cannot write: out of memory; DIR is as it was" (exit 1). Below about 30 MB Python cannot import omerender at
all: that limit is skipped, with the reason.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "llama-demo"
TEAMS = 6
LIMITS_KIB = (90_000, 75_000, 60_000, 50_000)
"""``ulimit -v`` values (KiB): where the old DIR was left behind, where threads could not start, where Rust aborted."""


def _tree(root: Path) -> Path:
    """The example's profile and model, and a child runtime and InferenceService in each of six namespaces."""
    root.mkdir()
    for name in ("profile.yaml", "model.yaml"):
        (root / name).write_text((DEMO / name).read_text())
    for team in range(TEAMS):
        for name in ("runtime.yaml", "isvc.yaml"):
            text = (DEMO / name).read_text().replace("namespace: llama-demo", f"namespace: team-{team}")
            (root / f"{team}-{name}").write_text(text)
    return root


def _run(limit_kib: int | None, *args: str) -> subprocess.CompletedProcess[str]:
    """omerender (or ``python -c``) as a shell starts it after ``ulimit -v`` (none: no limit)."""
    command = " ".join(["exec", *(f"'{a}'" for a in (sys.executable, *args))])
    script = command if limit_kib is None else f"ulimit -v {limit_kib} && {command}"
    env = {**os.environ, "RUST_BACKTRACE": "1"}  # as in the report: a Rust abort then printed a backtrace
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=120, check=False)


def _contents(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("limit", LIMITS_KIB)
def test_output_dir_under_ulimit_v_is_old_or_new_and_said_so_in_one_line(tmp_path: Path, limit: int) -> None:
    starts = _run(limit, "-c", "import omerender.cli, click, yaml")
    if starts.returncode != 0:
        pytest.skip(f"Python cannot import omerender under ulimit -v {limit} on this machine: {starts.stderr[-200:]}")
    tree, out = _tree(tmp_path / "tree"), tmp_path / "out"
    build = ("-m", "omerender", "build", str(tree), "--output-dir", str(out))
    assert _run(None, *build).returncode == 0
    new = _contents(out)
    for path in out.rglob("*.yaml"):  # the old DIR: what the run must either keep or replace, byte for byte
        path.write_text("# old\n" + path.read_text())
    old = _contents(out)
    assert len([p for p in out.iterdir() if p.is_dir()]) == TEAMS  # the old DIR's removal may use threads for them

    done = _run(limit, *build)
    assert "memory allocation of" not in done.stderr and done.returncode != 134, done.stderr
    assert done.stderr.count("\n") <= 1, f"more than one line:\n{done.stderr}"
    if done.returncode == 0:
        assert done.stderr == ""
        assert _contents(out) == new
    else:
        assert (done.returncode, done.stderr) == (
            1,
            f"omerender: error: {out}: cannot write: out of memory; {out} is as it was\n",
        )
        assert _contents(out) == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "tree"], "left beside DIR"
