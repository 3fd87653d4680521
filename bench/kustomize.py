#!/usr/bin/env python3
"""`omerender build` beside `kubectl kustomize` passing the same input through, on the acceptance fleet.

    python bench/kustomize.py [--isvcs 1000] [--runtimes 1000] [--repeat 5] [--kubectl kubectl]

Writes a bench tree with gen_tree.py (by default 1,000 InferenceServices over 1,000 runtimes), and
a kustomization.yaml in a sibling folder listing every input file as a resource, so kustomize reads,
parses and writes every document unchanged: the least a GitOps pipeline that already runs kustomize
pays. Then, in each round, it times `python -c pass`, `omerender build TREE` and
`kubectl kustomize --load-restrictor LoadRestrictionsNone DIR`, whole processes, output discarded,
and keeps the best of each.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from time import perf_counter

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import gen_tree  # noqa: E402


def _time(cmd: list[str]) -> float:
    start = perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.decode(errors='replace')[:800]}")
    return elapsed


def main() -> int:
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # the timed children cache bytecode, as a wheel install does
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--isvcs", type=int, default=1000)
    parser.add_argument("--runtimes", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--kubectl", default="kubectl")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kustomize-", dir=BENCH / "out" if (BENCH / "out").is_dir() else None))
    try:
        tree = work / "tree"
        stats = gen_tree.generate(tree, runtimes=args.runtimes, isvcs=args.isvcs, scale=1, seed=1)
        print(stats.summary(), file=sys.stderr)
        kdir = work / "kustomize"
        kdir.mkdir()
        files = sorted(p.relative_to(work).as_posix() for p in tree.rglob("*.yaml"))
        (kdir / "kustomization.yaml").write_text(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
            + "".join(f"- ../{f}\n" for f in files),
            encoding="utf-8",
        )
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "omerender build": [sys.executable, "-m", "omerender", "build", str(tree)],
            "kubectl kustomize": [args.kubectl, "kustomize", "--load-restrictor", "LoadRestrictionsNone", str(kdir)],
        }
        for cmd in commands.values():
            _time(cmd)  # warm the file cache and write omerender's bytecode
        best = {name: float("inf") for name in commands}
        for round_no in range(1, args.repeat + 1):
            for name, cmd in commands.items():
                best[name] = min(best[name], _time(cmd))
            print(f"  round {round_no}/{args.repeat}: " + ", ".join(f"{k} {v:.3f}s" for k, v in best.items()),
                  file=sys.stderr)  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{len(files)} files, {args.isvcs} InferenceServices, best of {args.repeat}:")
    for name, seconds in best.items():
        print(f"  {name:<18} {seconds:7.3f}s")
    ratio = best["omerender build"] / best["kubectl kustomize"]
    print(f"omerender / kubectl kustomize: {ratio:.2f}x ({'faster' if ratio < 1 else 'slower'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
