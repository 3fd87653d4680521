#!/usr/bin/env python3
"""From how many bytes of input do parsing workers pay? ``load`` in one process against ``load`` in N.

    python bench/parse_least.py [--isvcs 100 250 500 1000 2000 5000] [--jobs 2] [--repeat 7]

For each size it writes a tree with gen_tree.py (one runtime per five InferenceServices, at least 50),
then in each round times, in this process, ``reader.load`` of it parsing file by file and parsing in
``--jobs`` forked workers (``fanout.parse_in_workers``, the threshold set to 0), each followed by the
CRD schema check of the OME objects (the workers do it as they parse), alternating which goes first;
the best of each is kept (wall time: forking and sending the objects back included). It prints the
input's text size, both times and their ratio: below 1 the workers pay. The result sets
``reader.PARSE_LEAST_BYTES`` (bench/README.md).
"""

from __future__ import annotations

import argparse
import functools
import gc
import shutil
import sys
import tempfile
from pathlib import Path
from time import perf_counter

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))

from jobs_least import best_alternating, small_tree  # noqa: E402 - after the path is set

from omerender.admission.schema import crd_schema_issues  # noqa: E402
from omerender.fanout import parse_in_workers  # noqa: E402
from omerender.load import reader  # noqa: E402


def timed(tree: Path, jobs: int) -> float:
    parse_many = functools.partial(parse_in_workers, count=jobs) if jobs > 1 else None
    gc.collect()
    gc.unfreeze()  # each load starts from the same heap (the workers freeze it)
    start = perf_counter()
    loaded = reader.load([str(tree)], parse_many=parse_many)
    for obj in loaded.objects:  # what admission does next: the workers did it already
        if obj.is_ome and obj.schema_issues is None:
            obj.schema_issues = crd_schema_issues(obj.body)
    return perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--isvcs", type=int, nargs="+", default=[100, 250, 500, 1000, 2000, 5000])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    reader.PARSE_LEAST_BYTES = 0
    work = Path(tempfile.mkdtemp(prefix="parse-", dir=BENCH / "out" if (BENCH / "out").is_dir() else None))
    try:
        print(f"{'isvcs':>6}  {'text':>9}  {'one':>8}  {f'{args.jobs} workers':>10}  {'ratio':>6}")
        for count in args.isvcs:
            tree = small_tree(work, count)
            size = sum(p.stat().st_size for p in tree.rglob("*.yaml"))
            runs = {"one": functools.partial(timed, tree, 1), "many": functools.partial(timed, tree, args.jobs)}
            best = best_alternating(runs, args.repeat)
            one, many = best["one"], best["many"]
            print(f"{count:>6}  {size / 1024:>7.0f}KB  {one:>7.3f}s  {many:>9.3f}s  {many / one:>5.2f}x")
    finally:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
