#!/usr/bin/env python3
"""From how many InferenceServices do workers pay? ``build -j 1`` against ``build -j N`` on small trees.

    python bench/jobs_least.py [--isvcs 100 250 500 1000 2000] [--jobs 2] [--repeat 5]

For each size it writes a tree with gen_tree.py (one runtime per five InferenceServices, at least 50),
then in each round times ``build -j 1`` and ``build -j N`` one after the other (whole processes, wall
time), alternating which goes first; the best of each is kept. It prints both and their ratio: below
1 the workers pay. The result sets ``fanout.AUTO_LEAST`` (bench/README.md).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from time import perf_counter

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent


def timed(cmd: list[str]) -> float:
    start = perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=REPO)
    return perf_counter() - start


def small_tree(work: Path, count: int) -> Path:
    """A gen_tree.py tree of ``count`` InferenceServices (one runtime per five, at least 50) under ``work``."""
    tree = work / f"tree-{count}"
    gen = [sys.executable, str(BENCH / "gen_tree.py"), str(tree), "--isvcs", str(count)]
    subprocess.run([*gen, "--runtimes", str(max(50, count // 5))], check=True, capture_output=True)
    return tree


def best_alternating(runs: Mapping[str, Callable[[], float]], repeat: int) -> dict[str, float]:
    """Each run once untimed (it warms the file cache and bytecode), then ``repeat`` rounds of all of them, the
    order reversed every other round; the best time of each."""
    for run in runs.values():
        run()
    best = dict.fromkeys(runs, float("inf"))
    for round_no in range(repeat):
        order = list(runs.items())
        for name, run in order if round_no % 2 == 0 else reversed(order):
            best[name] = min(best[name], run())
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--isvcs", type=int, nargs="+", default=[100, 250, 500, 1000, 2000])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="jobs-", dir=BENCH / "out" if (BENCH / "out").is_dir() else None))
    try:
        print(f"{'isvcs':>6}  {'-j 1':>8}  {f'-j {args.jobs}':>8}  {'ratio':>6}")
        for count in args.isvcs:
            build = [sys.executable, "-m", "omerender", "build", str(small_tree(work, count)), "-j"]
            one, many = build + ["1"], build + [str(args.jobs)]
            best = best_alternating({"one": partial(timed, one), "many": partial(timed, many)}, args.repeat)
            print(f"{count:>6}  {best['one']:>7.3f}s  {best['many']:>7.3f}s  {best['many'] / best['one']:>5.2f}x")
    finally:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
