#!/usr/bin/env python3
"""Whole-process start-up cost of omerender, beside the floor of the same interpreter doing nothing.

    python bench/startup.py [-n RUNS] [--json]

Times, as one process each (what Argo CD's repo-server and pre-commit pay per invocation):
``python -c pass``, ``omerender --version`` and ``omerender build fixtures/llama-demo`` (output
discarded), plus ``omerender argocd-generate`` in a copy of the example. Reports best and median
of RUNS wall-clock runs, in milliseconds. ``omerender`` is the console script beside this Python.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "fixtures" / "llama-demo"


def _omerender() -> str:
    beside = Path(sys.executable).parent / "omerender"
    return str(beside) if beside.exists() else (shutil.which("omerender") or "omerender")


def _time(argv: list[str], runs: int, cwd: Path | None = None, env: dict[str, str] | None = None) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
        times.append((time.perf_counter() - start) * 1000)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode(errors='replace')[:500]}")
    return times


def main() -> int:
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # the timed children cache bytecode, as a wheel install does
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--runs", type=int, default=20)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    tool = _omerender()
    with tempfile.TemporaryDirectory() as tmp:
        app = Path(tmp) / "app"
        shutil.copytree(EXAMPLE, app)
        argo_env = {**os.environ, "ARGOCD_APP_NAMESPACE": "llama-demo", "KUBE_VERSION": "1.33.0"}
        cases = [
            ("python -c pass", [sys.executable, "-c", "pass"], None, None),
            ("omerender --version", [tool, "--version"], None, None),
            ("omerender build fixtures/llama-demo", [tool, "build", str(EXAMPLE)], None, None),
            ("omerender argocd-generate (example)", [tool, "argocd-generate", "."], app, argo_env),
        ]
        rows = []
        for name, argv, cwd, env in cases:
            _time(argv, 2, cwd, env)  # warm the page cache and __pycache__
            times = _time(argv, args.runs, cwd, env)
            rows.append(
                {
                    "command": name,
                    "best_ms": round(min(times), 1),
                    "median_ms": round(statistics.median(times), 1),
                    "runs": args.runs,
                }
            )
    if args.json:
        floor_ms = rows[0]["best_ms"]
        for r in rows:
            r["x_pass"] = round(r["best_ms"] / floor_ms, 2)
        print(json.dumps({"python": sys.version.split()[0], "results": rows}, indent=2))
        return 0
    width = max(len(r["command"]) for r in rows)
    floor = rows[0]["best_ms"]
    print(
        f"{'command':<{width}}  {'best ms':>8}  {'median ms':>9}  {'x pass':>6}   "
        f"(Python {sys.version.split()[0]}, {args.runs} runs; x pass: best / best of python -c pass)"
    )
    for r in rows:
        print(f"{r['command']:<{width}}  {r['best_ms']:>8.1f}  {r['median_ms']:>9.1f}  {r['best_ms'] / floor:>5.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
