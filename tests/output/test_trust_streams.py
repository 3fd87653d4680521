"""Where output goes when it is not an ordinary file (issue 22), measured on the real process: a non-blocking
pipe, a closed or full stdout, report files that are devices, FIFOs, the process's own descriptors or symlinks,
and what killed runs leave behind. Golden cases cannot hold these; each test here fails on the code before."""

from __future__ import annotations

import fcntl
import os
import shutil
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from omerender.output import leftovers

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo"
OMERENDER = [sys.executable, "-m", "omerender"]


def _tree(tmp_path: Path, blob_bytes: int = 0) -> Path:
    tree = tmp_path / "in"
    shutil.copytree(EXAMPLE, tree)
    if blob_bytes:
        blob = "x" * blob_bytes
        (tree / "big.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  a: {blob}\n")
    return tree


def _run(*args: str, **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*OMERENDER, *args], capture_output=True, check=False, **kwargs)  # type: ignore[call-overload, no-any-return]


def _one_error_line(stderr: bytes) -> str:
    text = stderr.decode()
    assert "Traceback" not in text, text
    assert text.count("\n") == 1 and text.startswith("omerender: error: "), text
    return text


def test_a_non_blocking_stdout_pipe_gets_every_byte(tmp_path: Path) -> None:
    tree = _tree(tmp_path, blob_bytes=1_000_000)
    args = ["build", str(tree), "--emit", "rendered", "--emit", "passthrough", "--kube-version", "none"]
    whole = _run(*args)
    assert whole.returncode == 0 and len(whole.stdout) > 1_000_000
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)  # as a parent (node, some CI runners) may leave it
    proc = subprocess.Popen([*OMERENDER, *args], stdout=write_end, stderr=subprocess.PIPE)
    os.close(write_end)
    time.sleep(0.5)  # not a threshold: lets the pipe fill before anyone reads, whatever the speed
    received = bytearray()
    while chunk := os.read(read_end, 1 << 16):
        received += chunk
    os.close(read_end)
    _, errors = proc.communicate()
    assert proc.returncode == 0, errors
    assert bytes(received) == whole.stdout


def test_a_closed_stdout_is_one_line_and_exit_1(tmp_path: Path) -> None:
    done = subprocess.run(
        [*OMERENDER, "build", str(_tree(tmp_path))],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
        preexec_fn=lambda: os.close(1),
    )
    assert done.returncode == 1
    assert _one_error_line(done.stderr) == "omerender: error: cannot write to standard output: it is closed\n"


def test_a_closed_stdout_does_not_matter_when_nothing_is_printed(tmp_path: Path) -> None:
    out = tmp_path / "rendered"
    done = subprocess.run(
        [*OMERENDER, "build", str(_tree(tmp_path)), "--output-dir", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
        preexec_fn=lambda: os.close(1),
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert (out / ".omerender-manifest").is_file()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["--help"], ["--version"], ["completion", "bash"], ["build", "TREE"]])
def test_a_full_stdout_is_one_line_and_exit_1(tmp_path: Path, args: list[str]) -> None:
    args = [str(_tree(tmp_path)) if a == "TREE" else a for a in args]
    with open("/dev/full", "wb") as full:
        done = subprocess.run([*OMERENDER, *args], stdout=full, stderr=subprocess.PIPE, check=False)
    assert done.returncode == 1
    assert (
        _one_error_line(done.stderr) == "omerender: error: cannot write to standard output: No space left on device\n"
    )


def test_report_file_naming_stderr_writes_to_the_descriptor(tmp_path: Path) -> None:
    # /proc/self/fd/2 is handled as /dev/stderr is; a regression cannot replace anything under /proc
    done = _run("build", str(_tree(tmp_path)), "-v", "--report-format", "json", "--report-file", "/proc/self/fd/2")
    assert done.returncode == 0
    assert b'"deployment-mode"' in done.stderr  # the stderr pipe, not a file put in place of the link


def _device(tmp_path: Path) -> str:
    """A character device to write to: a null device of the test's own as root (a regression then replaces
    only that), else /dev/null (which a non-root regression cannot replace)."""
    if os.geteuid() != 0:
        return "/dev/null"
    node = tmp_path / "null"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return str(node)


@pytest.mark.parametrize("option", ["--report-file", "--status-file"])
def test_a_character_device_is_written_through_never_replaced(tmp_path: Path, option: str) -> None:
    device = _device(tmp_path)
    before = os.stat(device)
    done = _run("build", str(_tree(tmp_path)), option, device)
    assert (done.returncode, done.stderr) == (0, b"")
    after = os.stat(device)
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev and after.st_ino == before.st_ino


def test_a_fifo_report_file_is_a_stream(tmp_path: Path) -> None:
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    done = _run("build", str(_tree(tmp_path)), "-v", "--report-file", str(fifo))
    reader.join(timeout=60)
    assert done.returncode == 0, done.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert b"[deployment-mode]" in got[0]


def test_a_symlinked_report_file_is_refused_and_its_target_kept(tmp_path: Path) -> None:
    secret = tmp_path / "id_rsa"
    secret.write_text("key\n", encoding="utf-8")
    (tmp_path / "report.txt").symlink_to(secret)
    done = _run("build", str(_tree(tmp_path)), "-v", "--report-file", str(tmp_path / "report.txt"))
    assert done.returncode == 1
    assert "is a symlink; refusing to write through it" in _one_error_line(done.stderr)
    assert secret.read_text(encoding="utf-8") == "key\n" and (tmp_path / "report.txt").is_symlink()


def test_a_private_report_file_stays_private(tmp_path: Path) -> None:
    report = tmp_path / "report.txt"
    report.write_text("old\n", encoding="utf-8")
    report.chmod(0o600)
    assert _run("build", str(_tree(tmp_path)), "-v", "--report-file", str(report)).returncode == 0
    assert stat.S_IMODE(report.stat().st_mode) == 0o600 and "[deployment-mode]" in report.read_text(encoding="utf-8")


def test_a_temporary_file_a_live_run_holds_is_kept(tmp_path: Path) -> None:
    live, dead = tmp_path / ".report.txt.aaaaaaaa.tmp", tmp_path / ".report.txt.bbbbbbbb.tmp"
    live.write_text("being written\n", encoding="utf-8")
    dead.write_text("left by a killed run\n", encoding="utf-8")
    fd = os.open(live, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert _run("build", str(_tree(tmp_path)), "--report-file", str(tmp_path / "report.txt")).returncode == 0
    finally:
        os.close(fd)
    assert live.exists() and not dead.exists()


def test_a_killed_diff_scratch_folder_is_removed_by_the_next(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    dead = 2**22 + 7  # beyond the largest process id Linux gives (PID_MAX_LIMIT): no process has it
    (tmp_path / f"omerender-diff-{dead}-abcdefgh" / "in").mkdir(parents=True)
    (tmp_path / f"omerender-diff-{os.getpid()}-abcdefgh").mkdir()  # a live run's (this process)
    with leftovers.scratch("omerender-diff-") as scratch:
        assert Path(scratch).is_dir()
        names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted([f"omerender-diff-{os.getpid()}-abcdefgh", Path(scratch).name])
    assert not Path(scratch).exists()
