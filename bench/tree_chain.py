#!/usr/bin/env python3
"""``omerender tree`` on one long inheritance chain, beside a floor measured in the same run.

    python bench/tree_chain.py [--runtimes 10000] [--repeat 3] [--keep DIR]

Writes a chain of RUNTIMES ClusterServingRuntimes into a temporary folder, one file each: ``rt-0`` is
a root and ``rt-K`` inherits from ``rt-(K-1)`` through ``ome.io/inherit-from``. The spec caps chains at
five runtimes, so every runtime from ``rt-5`` on is a MaxDepthExceeded error: the run exits 1 and
writes one diagnostic per such runtime on stderr. Times REPEAT whole-process runs of
``python -m omerender tree DIR`` and of the floor (``python -c pass``, and a process that parses the
same files with libyaml's ``CSafeLoader``), taken in turn, and prints the best wall time, the CPU time (user +
system) and the peak RSS of each (``resource.getrusage(RUSAGE_CHILDREN)`` around each run, taken
from the process that ran it alone), the size of the output, and the ratios to the floor.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FLOOR_PARSE = """
import sys, yaml
from pathlib import Path
for path in sorted(Path(sys.argv[1]).iterdir()):
    list(yaml.load_all(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader))
"""


def write_chain(folder: Path, count: int) -> None:
    """``count`` runtimes, one file each; the names sort in chain order only by accident of zero-padding."""
    for index in range(count):
        parent = f'    ome.io/inherit-from: "rt-{index - 1}"\n' if index else ""
        spec = (
            "  disabled: true\n  containers:\n  - name: ome-container\n    image: engine:1\n"
            if index == 0
            else f'  containers:\n  - name: ome-container\n    env:\n    - name: LAYER\n      value: "{index}"\n'
        )
        text = (
            "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n"
            f"  name: rt-{index}\n  annotations:\n{parent}spec:\n{spec}"
        )
        (folder / f"rt-{index:06d}.yaml").write_text(text, encoding="utf-8")


def run(argv: list[str]) -> dict[str, float]:
    """One child process: wall seconds, CPU seconds, peak RSS in MB, bytes on stdout and stderr."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(argv, stdout=out, stderr=err, check=False)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        size, err_size = out.seek(0, os.SEEK_END), err.seek(0, os.SEEK_END)
        if done.returncode not in (0, 1):
            err.seek(0)
            raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {err.read()[:2000].decode(errors='replace')}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "size": size, "stderr": err_size, "rc": done.returncode}


def peak_mb(argv: list[str]) -> float:
    """Peak RSS of ``argv`` alone: a fresh Python whose only child it is (ru_maxrss is a maximum over children)."""
    probe = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True, check=True)
    return int(done.stdout.strip()) / 1024  # kB on Linux


def best(cases: list[list[str]], repeat: int) -> list[dict[str, float]]:
    """The best of ``repeat`` runs of each command, the commands taken in turn each round: on a shared machine the
    load drifts over minutes, and all of one command's runs back to back would meet a different machine."""
    rounds = [[run(argv) for argv in cases] for _ in range(repeat)]
    out = []
    for index, argv in enumerate(cases):
        runs = [one[index] for one in rounds]
        top = min(runs, key=lambda r: r["wall"])
        out.append({**top, "cpu": min(r["cpu"] for r in runs), "peak": peak_mb(argv)})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtimes", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="write the chain here and keep it")
    args = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # the timed children cache bytecode, as a wheel install does
    if args.keep is not None and args.keep.exists() and any(args.keep.iterdir()):
        parser.error(f"--keep {args.keep}: not empty; the chain would be measured with what is there")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp) / "chain"
        folder.mkdir(parents=True, exist_ok=True)
        write_chain(folder, args.runtimes)
        cases = [
            ("python -c pass", [sys.executable, "-c", "pass"]),
            ("libyaml parse (floor)", [sys.executable, "-c", FLOOR_PARSE, str(folder)]),
            ("omerender tree", [sys.executable, "-m", "omerender", "tree", str(folder)]),
        ]
        for _, argv in cases:
            run(argv)  # warm the page cache and __pycache__
        rows = list(zip([name for name, _ in cases], best([argv for _, argv in cases], args.repeat), strict=True))
    floor = rows[1][1]
    print(f"{args.runtimes} runtimes in one chain, best of {args.repeat}")
    print(f"{'command':<24} {'wall':>8} {'CPU':>8} {'peak RSS':>9} {'stdout':>10} {'wall/floor':>10} {'CPU/floor':>9}")
    for name, r in rows:
        print(
            f"{name:<24} {r['wall']:>7.2f}s {r['cpu']:>7.2f}s {r['peak']:>6.0f} MB {int(r['size']):>10,} "
            f"{r['wall'] / floor['wall']:>9.2f}x {r['cpu'] / floor['cpu']:>8.2f}x"
        )
    tree = rows[2][1]
    print(f"omerender tree: exit {int(tree['rc'])}, {int(tree['stderr']):,} bytes of diagnostics on stderr")
    return 0


if __name__ == "__main__":
    sys.exit(main())
