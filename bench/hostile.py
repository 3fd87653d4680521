"""Exhaustion inputs from issue 10, each run as a whole ``omerender`` process: wall time and peak RSS.

    python bench/hostile.py            # the table in docs/guarantees.md
    python bench/hostile.py --scale 2  # the inputs whose size can grow, twice as large (linearity)

Every case must finish, or be refused, in under 2 s and 300 MB. The inputs are generated into a
temporary folder (never committed); ``CASES`` is also what tests/hostile/test_exhaustion.py uses.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "fixtures" / "llama-demo"
OMERENDER = [sys.executable, "-m", "omerender"]


def example(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for path in EXAMPLE.glob("*.yaml"):
        shutil.copy(path, folder / path.name)


def _replace(folder: Path, name: str, old: str, new: str) -> None:
    path = folder / name
    text = path.read_text(encoding="utf-8")
    assert old in text, (name, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def lock_laughs(folder: Path, scale: int) -> list[str]:
    example(folder)
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 9):
        lines.append(f"{chr(97 + i)}: &{chr(97 + i)} [" + ",".join([f"*{chr(96 + i)}"] * 9) + "]")
    (folder / "omerender.lock").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ["build", str(folder)]


def lock_recursive(folder: Path, scale: int) -> list[str]:
    example(folder)
    (folder / "omerender.lock").write_text("x: &a [*a]\n", encoding="utf-8")
    return ["build", str(folder)]


def lock_nested(folder: Path, scale: int) -> list[str]:
    example(folder)
    (folder / "omerender.lock").write_text("[" * 100_000 * scale + "\n", encoding="utf-8")
    return ["build", str(folder)]


def many_env(folder: Path, scale: int) -> list[str]:
    example(folder)
    entries = "".join(
        f"        - name: VAR_{i:05d}\n          value: $(VAR_{max(i - 1, 0):05d})-x\n" for i in range(16_000 * scale)
    )
    _replace(folder, "runtime.yaml", "      args:\n", "      env:\n" + entries + "      args:\n")
    return ["build", str(folder), "--kube-version", "none"]


def many_undefined_mounts(folder: Path, scale: int) -> list[str]:
    """The runner mounts 20,000 volumes no one defines: each an error, located in linear time."""
    example(folder)
    mounts = "".join(
        f"        - name: gone-{i:05d}\n          mountPath: /gone/{i:05d}\n" for i in range(20_000 * scale)
    )
    _replace(folder, "profile.yaml", "      volumeMounts:\n", "      volumeMounts:\n" + mounts)
    return ["build", str(folder), "--kube-version", "none", "--max-errors", "3"]


def doubling_env(folder: Path, scale: int) -> list[str]:
    """Each env value twice the one before, 40 times over, and an argument naming the last: 2**40 characters
    were the kubelet to expand them; the serving checks stop at 64 KiB."""
    example(folder)
    entries = "        - name: V0\n          value: " + "x" * 1024 + "\n"
    entries += "".join(
        f"        - name: V{i}\n          value: $(V{i - 1})$(V{i - 1})\n" for i in range(1, 40 * scale + 1)
    )
    _replace(folder, "runtime.yaml", "      args:\n", "      env:\n" + entries + "      args:\n")
    _replace(
        folder,
        "profile.yaml",
        "        - --port=8080\n",
        f"        - --port=8080\n        - --nnodes=$(V{40 * scale})\n",
    )
    return ["build", str(folder), "--kube-version", "none"]


def long_script(folder: Path, scale: int) -> list[str]:
    """A 6 MB sh -c script: the serving checks do not split a script over 64 KiB."""
    example(folder)
    script = "python3 -m sglang.launch_server --tp-size 4 " + "--x y " * 1_000_000 * scale
    _replace(folder, "profile.yaml", "        - python3\n        - -m\n        - sglang.launch_server\n",
             f"        - sh\n        - -c\n        - '{script}'\n")  # fmt: skip
    return ["build", str(folder), "--kube-version", "none"]


def curly_arg(folder: Path, scale: int) -> list[str]:
    example(folder)
    _replace(folder, "runtime.yaml", "        - --tp-size=1\n", f"        - '{'{{' * 32_768 * scale}'\n")
    return ["build", str(folder)]


def long_size(folder: Path, scale: int) -> list[str]:
    example(folder)
    _replace(folder, "model.yaml", "modelParameterSize: 3B", f"modelParameterSize: '{'9' * 32_000 * scale}x'")
    return ["build", str(folder)]


def fifo_metadata(folder: Path, scale: int) -> list[str]:
    example(folder)
    os.mkfifo(folder.parent / "meta.fifo")
    return ["build", str(folder), "--model-metadata", str(folder.parent / "meta.fifo")]


def zero_metadata(folder: Path, scale: int) -> list[str]:
    example(folder)
    return ["build", str(folder), "--model-metadata", "/dev/zero"]


def fifo_krm(folder: Path, scale: int) -> list[str]:
    folder.mkdir(parents=True)
    os.mkfifo(folder / "config.fifo")
    return ["krm", str(folder / "config.fifo")]


def fifo_lock(folder: Path, scale: int) -> list[str]:
    example(folder)
    os.mkfifo(folder / "config.lock")
    return ["build", str(folder), "--lock-file", str(folder / "config.lock")]


def big_configmaps(folder: Path, scale: int) -> list[str]:
    example(folder)
    for n in range(10 * scale):
        lines = [f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big{n}\ndata:\n"]
        size, i = len(lines[0]), 0
        while size < 6_400_000:
            line = f"  key{i:07d}: value-{i:07d}\n"
            lines.append(line)
            size, i = size + len(line), i + 1
        (folder / f"cm{n:02d}.yaml").write_text("".join(lines), encoding="utf-8")
    return ["build", str(folder)]


STREAM = 2_600_000_000  # bytes of zeros piped to stdin


def stdin_flood(folder: Path, scale: int) -> list[str]:
    return ["build", "-"]


def krm_flood(folder: Path, scale: int) -> list[str]:
    return ["krm"]


@dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[Path, int], list[str]]
    stream: bool = False  # STREAM bytes of zeros on stdin


CASES = [
    Case("lock: billion laughs (342 bytes)", lock_laughs),
    Case("lock: x: &a [*a]", lock_recursive),
    Case("lock: 100k nested [", lock_nested),
    Case("runtime with 16,000 env entries", many_env),
    Case("65 KB arg of repeated {{", curly_arg),
    Case("runner mounting 20,000 undefined volumes", many_undefined_mounts),
    Case("env values doubling 40 times", doubling_env),
    Case("6 MB sh -c script", long_script),
    Case("32,000-digit modelParameterSize", long_size),
    Case("FIFO as --model-metadata", fifo_metadata),
    Case("/dev/zero as --model-metadata", zero_metadata),
    Case("FIFO as the krm config", fifo_krm),
    Case("FIFO as --lock-file", fifo_lock),
    Case("ten 6.4 MB ConfigMaps", big_configmaps),
    Case("2.6 GB on stdin (build -)", stdin_flood, stream=True),
    Case("2.6 GB on stdin (krm)", krm_flood, stream=True),
]


def run(case: Case, work: Path, scale: int = 1, timeout: float = 120) -> tuple[float, float, int]:
    """(seconds, peak RSS in MB, exit code) of one case, the input made in ``work``."""
    args = case.make(work / "in", scale)
    feeder = subprocess.Popen(["head", "-c", str(STREAM), "/dev/zero"], stdout=subprocess.PIPE) if case.stream else None
    start = time.perf_counter()
    proc = subprocess.Popen(
        [*OMERENDER, *args],
        stdin=feeder.stdout if feeder else subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=work,
    )
    if feeder and feeder.stdout:
        feeder.stdout.close()
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.01)
    elapsed = time.perf_counter() - start
    if feeder:
        feeder.kill()
        feeder.wait()
    return elapsed, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--only", help="run the cases whose name contains this text")
    args = parser.parse_args()
    print("| input | time | peak RSS | exit |\n| --- | --- | --- | --- |")
    for case in CASES:
        if args.only and args.only not in case.name:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            seconds, mb, code = run(case, Path(tmp), args.scale)
        print(f"| {case.name} | {seconds:.2f} s | {mb:.0f} MB | {code} |", flush=True)


if __name__ == "__main__":
    main()
