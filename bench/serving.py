#!/usr/bin/env python3
"""What the serving checks cost: ``omerender build`` with them against the same build without them.

    python bench/serving.py [--scale 1 2] [--repeat 5] [--jobs default 1]

For each scale it writes a gen_tree.py tree, then in each round times two whole processes one after the other,
alternating which goes first: ``omerender build TREE`` as shipped, and the same command in a process where
``omerender.verify.serving.checking.check`` finds nothing (the checks' whole cost: their view of the pods, the
reading of every engine's arguments, the checks and their silencing). Output is discarded; the two outputs are
compared once (the checks change no object). It prints the best wall time and CPU time (the process and its
workers) of each, and their ratio: the checks' share of the build is the ratio less 1. On a shared machine the two
processes meet different loads; the last line of each scale is steadier: the CPU time spent in the checks over the
rest of one ``build -j 1`` process (the median of the rounds).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from time import perf_counter

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
INSIDE = (
    "import os, resource, sys, time\n"
    "import omerender.verify.serving.checking as checking\n"
    "spent = [0.0]\n"
    "check = checking.check\n"
    "def timed(*args, **kwargs):\n"
    "    start = time.process_time()\n"
    "    try:\n"
    "        return check(*args, **kwargs)\n"
    "    finally:\n"
    "        spent[0] += time.process_time() - start\n"
    "checking.check = timed\n"
    "def report():\n"
    "    usage = resource.getrusage(resource.RUSAGE_SELF)\n"
    "    print(f'{spent[0]} {usage.ru_utime + usage.ru_stime}', file=sys.stderr)\n"
    "from omerender.cli import main\n"
    "try:\n"
    "    main(['build', *sys.argv[1:]], standalone_mode=False)\n"
    "finally:\n"
    "    sys.stdout.flush()\n"
    "    report()\n"
    "    os._exit(0)\n"
)
WITHOUT = (
    "import sys\n"
    "import omerender.verify.serving.checking as checking\n"
    "checking.check = lambda *args, **kwargs: []\n"
    "from omerender.cli import run\n"
    "sys.argv = ['omerender', *sys.argv[1:]]\n"
    "run()\n"
)


def timed(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of ``cmd`` (its workers included: they are waited for before it ends)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=REPO)
    wall = perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best_alternating(runs: dict[str, Callable[[], tuple[float, float]]], repeat: int) -> dict[str, tuple[float, float]]:
    for run in runs.values():
        run()  # untimed: warms the file cache and the bytecode
    best = dict.fromkeys(runs, (float("inf"), float("inf")))
    for round_no in range(repeat):
        order = list(runs.items())
        for name, run in order if round_no % 2 == 0 else reversed(order):
            wall, cpu = run()
            best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
    return best


def inside(tree: Path, repeat: int) -> float:
    """The checks' CPU time over the rest of one ``build -j 1`` process, the median of ``repeat`` runs: measured in
    the same process, so a busy machine slows both sides alike."""
    shares = []
    for _ in range(repeat):
        cmd = [sys.executable, "-c", INSIDE, str(tree), "-j", "1"]
        done = subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=REPO, text=True)
        spent, total = (float(x) for x in done.stderr.strip().splitlines()[-1].split())
        shares.append(spent / (total - spent))
    return sorted(shares)[len(shares) // 2]


def main(argv: list[str] | None = None) -> int:
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, nargs="+", default=[1])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--jobs", nargs="+", default=["default", "1"], help="default (the cores), or a number")
    args = parser.parse_args(argv)
    out = BENCH / "out"
    work = Path(tempfile.mkdtemp(prefix="serving-", dir=out if out.is_dir() else None))
    try:
        print(f"{'scale':>5}  {'jobs':>7}  {'without':>15}  {'with':>15}  {'wall':>6}  {'CPU':>6}")
        for scale in args.scale:
            tree = work / f"tree-{scale}"
            gen = [sys.executable, str(BENCH / "gen_tree.py"), str(tree), "--scale", str(scale)]
            subprocess.run(gen, check=True, capture_output=True)
            for jobs in args.jobs:
                extra = [] if jobs == "default" else ["-j", jobs]
                shipped = [sys.executable, "-m", "omerender", "build", str(tree), *extra]
                without = [sys.executable, "-c", WITHOUT, "build", str(tree), *extra]
                same = [subprocess.run(c, check=True, capture_output=True, cwd=REPO) for c in (shipped, without)]
                if same[0].stdout != same[1].stdout or same[0].stderr:
                    print("the two builds differ, or the checks reported something", file=sys.stderr)
                    return 1
                best = best_alternating({"without": lambda c=without: timed(c), "with": lambda c=shipped: timed(c)},
                                        args.repeat)  # fmt: skip
                (wall0, cpu0), (wall1, cpu1) = best["without"], best["with"]
                print(
                    f"{scale:>5}  {jobs:>7}  {wall0:>6.2f}s {cpu0:>6.2f}s  {wall1:>6.2f}s {cpu1:>6.2f}s  "
                    f"{wall1 / wall0:>5.3f}x  {cpu1 / cpu0:>5.3f}x"
                )
            print(
                f"{scale:>5}  in-process, -j 1: the checks take {inside(tree, args.repeat):.1%} of the rest of the CPU"
            )
    finally:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
