#!/usr/bin/env python3
"""Benchmark `omerender build` against the libyaml floor on synthetic trees.

    python bench/run.py [--scale 1 2 4] [--repeat 5] [--seed 1] [--json FILE] [--keep]

For each scale it writes a tree with gen_tree.py into a new directory under bench/out/ and runs
`python -m omerender build TREE > FILE` and bench/floor.py once, untimed, to check they work and
to warm caches. Then, in each of `--repeat` rounds, it times `python -c pass` and, for every
scale, one run of omerender and one of the floor (whole processes, wall time by
time.perf_counter); the best run of each is kept. The floor's time excludes the preload of
omerender's output that floor.py reports. Each round also times the C floor (floor.py --json:
the same parse, then json.dumps of the output). It prints input sizes, the times, the ratios to
both floors, omerender's peak RSS (wait4), the scaling factor for each doubling of the input, and
the start-up time of a bare `python -c pass`.
It warns if omerender's source or output changed during the run.
"""

from __future__ import annotations

import argparse
import filecmp
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from time import perf_counter

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
OUT = BENCH / "out"
sys.path.insert(0, str(BENCH))

import gen_tree  # noqa: E402

RATIO_TARGET = 1.3  # omerender / project floor, at scales 1, 2 and 4
C_RATIO_TARGET = 4.0  # omerender / C floor (libyaml parse + json.dumps of the output)
SCALING_TARGET = 2.1  # time at 2x the input / time at 1x
RSS_TARGET_MB = 1536  # peak RSS at scale 8


class BenchError(Exception):
    pass


@dataclass
class Result:
    scale: int
    files: int
    documents: int
    bytes: int
    runtimes: int
    isvcs: int
    output_documents: int = 0
    output_bytes: int = 0
    floor_output_identical: bool = False
    omerender_stderr_lines: int = 0
    omerender_stderr_first: str = ""
    omerender_seconds: float = 0.0
    floor_seconds: float = 0.0
    c_floor_seconds: float = 0.0
    floor_preload_seconds: float = 0.0
    omerender_peak_rss_mb: float = 0.0
    omerender_runs: list[float] = field(default_factory=list)
    floor_runs: list[float] = field(default_factory=list)
    c_floor_runs: list[float] = field(default_factory=list)
    cpu_runs: dict[str, list[float]] = field(default_factory=dict)  # "omerender", "floor", "c_floor"
    # --outputs: "yaml" (stdout again), "json" (-o json), "dir" (--output-dir, a new folder), "replace" (over the
    # previous output), "files" (files_floor.py): runs, and peak RSS in MB
    output_runs: dict[str, list[float]] = field(default_factory=dict)
    output_rss_mb: dict[str, float] = field(default_factory=dict)
    output_identical: dict[str, bool] = field(default_factory=dict)
    # --jobs: the same build with -j 1 (the main column runs with the default jobs): runs, peak RSS, same bytes
    j1_runs: list[float] = field(default_factory=list)
    j1_peak_rss_mb: float = 0.0
    j1_identical: bool | None = None

    def cpu(self, what: str) -> float:
        return min(self.cpu_runs.get(what) or [float("nan")])

    @property
    def ratio(self) -> float:
        return self.omerender_seconds / self.floor_seconds

    @property
    def c_ratio(self) -> float:
        return self.omerender_seconds / self.c_floor_seconds

    @property
    def j1_c_ratio(self) -> float:
        return min(self.j1_runs) / self.c_floor_seconds if self.j1_runs else float("nan")


PEAK_RSS_MB: dict[str, float] = {}  # of the last run of each command, by the command line
CPU_SECONDS: dict[str, float] = {}  # user + system CPU of the last run of each command (less noisy than wall)


def run_timed(cmd: list[str], stdout_path: Path | None) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    """Wall time of the whole process ``cmd``, its stdout to ``stdout_path`` (or /dev/null).

    Its peak RSS (from wait4) is left in ``PEAK_RSS_MB[" ".join(cmd)]``.
    """
    target = stdout_path if stdout_path is not None else Path("/dev/null")
    with target.open("wb") as out, tempfile.TemporaryFile() as err:
        start = perf_counter()
        child = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=REPO)
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        proc = subprocess.CompletedProcess(cmd, child.returncode, b"", err.read())
    PEAK_RSS_MB[" ".join(cmd)] = usage.ru_maxrss / 1024  # KiB on Linux
    CPU_SECONDS[" ".join(cmd)] = usage.ru_utime + usage.ru_stime
    return elapsed, proc


def omerender_cmd(tree: Path) -> list[str]:
    return [sys.executable, "-m", "omerender", "build", str(tree)]


def j1_cmd(tree: Path) -> list[str]:
    return omerender_cmd(tree) + ["-j", "1"]


def time_j1(case: Case) -> None:
    """--jobs: one run of ``build -j 1`` (in one process, as before -j existed)."""
    r = case.result
    cmd = j1_cmd(case.tree)
    out = case.om_out.with_name(case.om_out.stem + "-j1.yaml")
    elapsed, proc = run_timed(cmd, out)
    if proc.returncode != 0:
        raise fail("omerender build -j 1", cmd, proc)
    r.j1_runs.append(elapsed)
    r.cpu_runs.setdefault("j1", []).append(CPU_SECONDS[" ".join(cmd)])
    r.j1_peak_rss_mb = max(r.j1_peak_rss_mb, PEAK_RSS_MB[" ".join(cmd)])
    same = filecmp.cmp(out, case.om_out, shallow=False)
    r.j1_identical = same if r.j1_identical is None else r.j1_identical and same


def output_cmds(case: Case) -> dict[str, tuple[list[str], Path | None]]:
    """--outputs, in the order they run: stdout YAML again (beside the others, in the same disk state), -o json
    (to a file), --output-dir into a folder removed first (untimed), --output-dir over that output (replacing
    30,001 files), and the files floor (the same files, plain writes into an emptied folder)."""
    build = omerender_cmd(case.tree)
    work = case.om_out.parent
    folder = str(work / f"dir-x{case.result.scale}")
    return {
        "yaml": (build, None),
        "json": (build + ["-o", "json"], work / f"omerender-x{case.result.scale}.json"),
        "dir": (build + ["--output-dir", folder], None),
        "replace": (build + ["--output-dir", folder], None),
        "files": ([sys.executable, str(BENCH / "files_floor.py"), folder, str(work / "files")], None),
    }


def time_outputs(case: Case) -> None:
    """One run of each --outputs command; the folder is removed before the first --output-dir run, untimed, and
    the files floor's preload is taken off its time."""
    r = case.result
    for what, (cmd, out) in output_cmds(case).items():
        if what == "dir":
            shutil.rmtree(case.om_out.parent / f"dir-x{r.scale}", ignore_errors=True)
        elapsed, proc = run_timed(cmd, out)
        if proc.returncode != 0:
            raise fail(what, cmd, proc)
        if what == "files":
            elapsed -= parse_floor_report(proc)["preload_seconds"]
        r.output_runs.setdefault(what, []).append(elapsed)
        r.cpu_runs.setdefault(what, []).append(CPU_SECONDS[" ".join(cmd)])
        r.output_rss_mb[what] = max(r.output_rss_mb.get(what, 0.0), PEAK_RSS_MB[" ".join(cmd)])


_CHECK_OUTPUTS = """
import json, sys, yaml
from pathlib import Path
with open(sys.argv[1], "rb") as stream:
    objects = [d for d in yaml.load_all(stream, Loader=yaml.CSafeLoader) if d is not None]
expected = json.dumps({"apiVersion": "v1", "items": objects, "kind": "List", "metadata": {}}, indent=2,
                      sort_keys=True, ensure_ascii=False) + "\\n"
same = Path(sys.argv[2]).read_text(encoding="utf-8") == expected
files = [p for p in Path(sys.argv[3]).rglob("*.yaml") if p.is_file()]
print(same, len(files) == len(objects))
"""


def check_outputs(case: Case) -> None:
    """The -o json output equals json.dumps of the YAML output's objects, and --output-dir holds its objects.

    In a process of its own: a child forked from a big parent inherits its peak RSS on Linux, which would
    show in every later measurement.
    """
    json_out = output_cmds(case)["json"][1]
    assert json_out is not None
    r = case.result
    folder = case.om_out.parent / f"dir-x{r.scale}"
    done = subprocess.run(
        [sys.executable, "-c", _CHECK_OUTPUTS, str(case.om_out), str(json_out), str(folder)],
        capture_output=True,
        text=True,
        check=True,
    )
    same_json, one_file_each = done.stdout.split()
    r.output_identical["json"] = same_json == "True"
    r.output_identical["dir"] = one_file_each == "True"


def floor_cmd(tree: Path, expected: Path, as_json: bool = False) -> list[str]:
    return [sys.executable, str(BENCH / "floor.py"), str(tree), str(expected)] + (["--json"] if as_json else [])


def fail(what: str, cmd: list[str], proc: subprocess.CompletedProcess[bytes]) -> BenchError:
    stderr = proc.stderr.decode("utf-8", "replace").rstrip()
    return BenchError(
        f"{what} failed with exit status {proc.returncode}\n"
        f"  command: {' '.join(cmd)}\n"
        f"  stderr:\n{stderr or '  (empty)'}"
    )


def parse_floor_report(proc: subprocess.CompletedProcess[bytes]) -> dict[str, float]:
    last = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1]
    return {k: float(v) for k, v in (item.split("=", 1) for item in last.split())}


@dataclass
class Case:
    """One scale: its tree, the two commands, where their outputs go, and the result."""

    tree: Path
    om_out: Path
    floor_out: Path
    result: Result
    output_documents_seen: set[int] = field(default_factory=set)

    @property
    def om(self) -> list[str]:
        return omerender_cmd(self.tree)

    @property
    def floor(self) -> list[str]:
        return floor_cmd(self.tree, self.om_out)

    @property
    def c_floor(self) -> list[str]:
        return floor_cmd(self.tree, self.om_out, as_json=True)


def prepare(workdir: Path, scale: int, seed: int, runtimes: int, isvcs: int) -> Case:
    """Write the tree, and run both commands once, untimed: check they work, write the output
    the floor preloads, and warm the caches."""
    tree = workdir / f"tree-x{scale}"
    stats = gen_tree.generate(tree, runtimes=runtimes, isvcs=isvcs, scale=scale, seed=seed)
    print(stats.summary(), file=sys.stderr, flush=True)
    case = Case(
        tree=tree,
        om_out=workdir / f"omerender-x{scale}.yaml",
        floor_out=workdir / f"floor-x{scale}.yaml",
        result=Result(
            scale=scale,
            files=stats.files,
            documents=stats.documents,
            bytes=stats.bytes,
            runtimes=stats.kinds["ClusterServingRuntime"] + stats.kinds["ServingRuntime"],
            isvcs=stats.kinds["InferenceService"],
        ),
    )
    _, proc = run_timed(case.om, case.om_out)
    if proc.returncode != 0:
        raise fail("omerender build", case.om, proc)
    diagnostics = proc.stderr.decode("utf-8", "replace").splitlines()
    case.result.omerender_stderr_lines = len(diagnostics)
    case.result.omerender_stderr_first = diagnostics[0] if diagnostics else ""
    _, proc = run_timed(case.floor, case.floor_out)
    if proc.returncode != 0:
        raise fail("floor.py", case.floor, proc)
    r = case.result
    r.output_documents = int(parse_floor_report(proc)["output_documents"])
    r.output_bytes = case.om_out.stat().st_size
    r.floor_output_identical = filecmp.cmp(case.om_out, case.floor_out, shallow=False)
    case.output_documents_seen.add(r.output_documents)
    return case


def time_round(case: Case, round_no: int, repeat: int) -> None:
    """One timed run of omerender, then one of the floor."""
    r = case.result
    elapsed, proc = run_timed(case.om, case.om_out)
    if proc.returncode != 0:
        raise fail("omerender build", case.om, proc)
    r.omerender_runs.append(elapsed)
    r.omerender_peak_rss_mb = max(r.omerender_peak_rss_mb, PEAK_RSS_MB[" ".join(case.om)])
    r.cpu_runs.setdefault("omerender", []).append(CPU_SECONDS[" ".join(case.om)])
    elapsed, proc = run_timed(case.c_floor, None)
    if proc.returncode != 0:
        raise fail("floor.py --json", case.c_floor, proc)
    report = parse_floor_report(proc)
    preload = report["preload_seconds"]
    r.c_floor_runs.append(elapsed - preload)
    r.cpu_runs.setdefault("c_floor", []).append(CPU_SECONDS[" ".join(case.c_floor)] - report["preload_cpu_seconds"])
    r.c_floor_seconds = min(r.c_floor_runs)
    elapsed, proc = run_timed(case.floor, case.floor_out)
    if proc.returncode != 0:
        raise fail("floor.py", case.floor, proc)
    report = parse_floor_report(proc)
    preload = report["preload_seconds"]
    case.output_documents_seen.add(int(report["output_documents"]))
    r.floor_runs.append(elapsed - preload)
    # CPU time less the preload's CPU time: its wall time (waits included) would over-subtract on a busy machine.
    r.cpu_runs.setdefault("floor", []).append(CPU_SECONDS[" ".join(case.floor)] - report["preload_cpu_seconds"])
    r.floor_preload_seconds = max(r.floor_preload_seconds, preload)
    r.omerender_seconds = min(r.omerender_runs)
    r.floor_seconds = min(r.floor_runs)
    print(
        f"  round {round_no}/{repeat}, scale {r.scale}: omerender {r.omerender_runs[-1]:.3f}s, "
        f"floor {r.floor_runs[-1]:.3f}s, C floor {r.c_floor_runs[-1]:.3f}s (+ {preload:.3f}s preload, not counted)",
        file=sys.stderr,
        flush=True,
    )


def source_digest() -> str:
    """A digest of omerender's source, to notice it changing during a run."""
    digest = hashlib.sha256()
    for path in sorted((REPO / "omerender").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def startup_seconds() -> float:
    cmd = [sys.executable, "-c", "pass"]
    elapsed, proc = run_timed(cmd, None)
    if proc.returncode != 0:
        raise fail("python -c pass", cmd, proc)
    return elapsed


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def report(results: list[Result], startup: float, repeat: int, warnings: list[str]) -> tuple[str, dict[str, object]]:
    lines = [
        "",
        "omerender build vs. the project floor (libyaml parse of the input + libyaml dump of omerender's output)",
        f"and the C floor (the same parse + json.dumps of the output), all measured in this run, best of {repeat}",
        "",
        f"{'scale':>5}  {'docs':>7}  {'out docs':>8}  {'out bytes':>11}  "
        f"{'omerender':>10}  {'floor':>8}  {'ratio':>6}  {'C floor':>8}  {'C ratio':>7}  {'peak RSS':>9}",
    ]
    for r in results:
        lines.append(
            f"{r.scale:>5}  {r.documents:>7,}  {r.output_documents:>8,}  {r.output_bytes:>11,}  "
            f"{r.omerender_seconds:>9.3f}s  {r.floor_seconds:>7.3f}s  {r.ratio:>5.2f}x  "
            f"{r.c_floor_seconds:>7.3f}s  {r.c_ratio:>6.2f}x  {r.omerender_peak_rss_mb:>6.0f} MB"
        )
    lines.append("")
    lines.append("CPU seconds (user + system; preload taken off), steadier than wall time on a busy machine:")
    for r in results:
        om, fl, cf = r.cpu("omerender"), r.cpu("floor"), r.cpu("c_floor")
        lines.append(
            f"  scale {r.scale}: omerender {om:.2f}s, floor {fl:.2f}s ({om / fl:.2f}x), C floor {cf:.2f}s "
            f"({om / cf:.2f}x)"
        )
    lines.append(f"python -c pass: {startup:.3f}s (best of {repeat}; included in both columns)")
    for r in results:
        if not r.j1_runs:
            continue
        j1 = min(r.j1_runs)
        lines.append(
            f"jobs, scale {r.scale}: default jobs {r.omerender_seconds:.3f}s (C ratio {r.c_ratio:.2f}x, "
            f"{r.omerender_peak_rss_mb:.0f} MB), -j 1 {j1:.3f}s (C ratio {r.j1_c_ratio:.2f}x, "
            f"{r.j1_peak_rss_mb:.0f} MB); default / -j 1 {r.omerender_seconds / j1:.2f}x; CPU "
            f"{r.cpu('omerender'):.2f}s against {r.cpu('j1'):.2f}s; byte-identical: {r.j1_identical}"
        )
    for r in results:
        if not r.output_runs:
            continue
        best = {what: min(runs) for what, runs in r.output_runs.items()}
        yaml_s = best["yaml"]
        ratio = {what: f"{t:.3f}s ({t / yaml_s:.2f}x, {r.output_rss_mb[what]:.0f} MB)" for what, t in best.items()}
        lines.append(
            f"outputs, scale {r.scale} (best of {repeat}; ratios to stdout YAML timed with them, {yaml_s:.3f}s): "
            f"-o json {ratio['json']}, json.dumps's bytes: {r.output_identical.get('json')}; "
            f"--output-dir into a new folder {ratio['dir']}; over the previous output {ratio['replace']}; "
            f"files floor {best['files']:.3f}s (the same files written by plain open/write into an emptied folder, "
            f"preload taken off); --output-dir into a new folder less the files floor "
            f"{(best['dir'] - best['files']) / yaml_s:.2f}x"
        )
        om = r.cpu("yaml")
        lines.append(
            f"  CPU: stdout YAML {om:.2f}s, -o json {r.cpu('json'):.2f}s ({r.cpu('json') / om:.2f}x), "
            f"--output-dir {r.cpu('dir'):.2f}s ({r.cpu('dir') / om:.2f}x) and {r.cpu('replace'):.2f}s "
            f"({r.cpu('replace') / om:.2f}x), files floor {r.cpu('files'):.2f}s (with its preload)"
        )
    lines.extend(f"warning: {w}" for w in warnings)
    for r in results:
        if r.omerender_stderr_lines:
            lines.append(
                f"note: scale {r.scale}: omerender wrote {r.omerender_stderr_lines:,} lines on stderr, "
                f"the first: {r.omerender_stderr_first}"
            )
        if not r.floor_output_identical:
            lines.append(f"note: scale {r.scale}: the floor's output differs from omerender's in bytes (style)")
        if r.output_documents < r.isvcs:
            lines.append(
                f"note: scale {r.scale}: {r.output_documents:,} output documents for {r.isvcs:,} "
                "InferenceServices (expected at least one Deployment each)"
            )
    per_isvc = {round(r.output_documents / r.isvcs, 3) for r in results}
    if len(per_isvc) > 1:
        lines.append(f"warning: output documents per InferenceService differ between scales: {sorted(per_isvc)}")
    ratio_ok = all(r.ratio <= RATIO_TARGET for r in results)
    lines.append(
        f"target ratio <= {RATIO_TARGET:g}: {verdict(ratio_ok)} "
        f"({', '.join(f'scale {r.scale}: {r.ratio:.2f}x' for r in results)})"
    )
    c_ratio_ok = all(r.c_ratio <= C_RATIO_TARGET for r in results)
    lines.append(
        f"target C ratio <= {C_RATIO_TARGET:g}: {verdict(c_ratio_ok)} "
        f"({', '.join(f'scale {r.scale}: {r.c_ratio:.2f}x' for r in results)})"
    )
    for r in results:
        if r.scale == 8:
            lines.append(
                f"target peak RSS at scale 8 <= {RSS_TARGET_MB} MB: "
                f"{verdict(r.omerender_peak_rss_mb <= RSS_TARGET_MB)} ({r.omerender_peak_rss_mb:.0f} MB)"
            )
    by_scale = {r.scale: r for r in results}
    scaling: dict[str, float] | None = None
    for low in sorted(by_scale):
        if 2 * low not in by_scale:
            continue
        one, two = by_scale[low], by_scale[2 * low]
        step = {
            "omerender": two.omerender_seconds / one.omerender_seconds,
            "floor": two.floor_seconds / one.floor_seconds,
            "omerender_minus_startup": (two.omerender_seconds - startup) / (one.omerender_seconds - startup),
        }
        scaling = scaling or step  # the JSON keeps the first doubling, as before
        lines.append(
            f"target time at {2 * low}x input <= {SCALING_TARGET:g}x time at {low}x: "
            f"{verdict(step['omerender'] <= SCALING_TARGET)} "
            f"(omerender {step['omerender']:.2f}x; without python start-up "
            f"{step['omerender_minus_startup']:.2f}x; floor {step['floor']:.2f}x)"
        )
    data: dict[str, object] = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "repeat": repeat,
        "startup_seconds": startup,
        "results": [{**asdict(r), "ratio": r.ratio, "c_ratio": r.c_ratio, "j1_c_ratio": r.j1_c_ratio} for r in results],
        "scaling": scaling,
        "targets": {
            "ratio": RATIO_TARGET,
            "c_ratio": C_RATIO_TARGET,
            "scaling": SCALING_TARGET,
            "rss_mb": RSS_TARGET_MB,
        },
        "ratio_ok": ratio_ok,
        "c_ratio_ok": c_ratio_ok,
        "scaling_ok": None if scaling is None else scaling["omerender"] <= SCALING_TARGET,
        "warnings": warnings,
    }
    return "\n".join(lines), data


def main(argv: list[str] | None = None) -> int:
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # the timed children cache bytecode, as a wheel install does
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, nargs="+", default=[1, 2], help="scales to run (default: 1 2)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each command (default 5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runtimes", type=int, default=1000, help="runtimes at scale 1 (default 1000)")
    parser.add_argument("--isvcs", type=int, default=5000, help="InferenceServices at scale 1 (default 5000)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the trees and outputs under bench/out/")
    parser.add_argument(
        "--outputs",
        action="store_true",
        help="also time -o json, --output-dir and the files floor (files_floor.py) in every round",
    )
    parser.add_argument(
        "--jobs",
        action="store_true",
        help="also time build -j 1 in every round (the main column runs with the default jobs) and check its bytes",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1 or any(s < 1 for s in args.scale):
        parser.error("--repeat and --scale must be >= 1")

    OUT.mkdir(exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="run-", dir=OUT))
    keep = args.keep
    digest = source_digest()
    startups: list[float] = []
    try:
        cases = [prepare(workdir, scale, args.seed, args.runtimes, args.isvcs) for scale in sorted(set(args.scale))]
        if args.outputs:
            for case in cases:
                time_outputs(case)  # untimed: checks they work, warms caches
                case.result.output_runs.clear()
                check_outputs(case)
        # Rounds alternate the scales, and omerender with the floor, so that a change of load on
        # the machine hits every column alike.
        for round_no in range(1, args.repeat + 1):
            startups.append(startup_seconds())
            for case in cases:
                time_round(case, round_no, args.repeat)
                if args.jobs:
                    time_j1(case)
                if args.outputs:
                    time_outputs(case)
    except BenchError as e:
        print(f"error: {e}", file=sys.stderr)
        print(f"trees and outputs kept in {workdir}", file=sys.stderr)
        keep = True
        return 1
    finally:
        if not keep:
            shutil.rmtree(workdir)
    warnings: list[str] = []
    if source_digest() != digest:
        warnings.append("omerender's source changed during the run: the runs mix versions; run again")
    for case in cases:
        if len(case.output_documents_seen) > 1:
            warnings.append(
                f"scale {case.result.scale}: omerender's output changed between runs "
                f"({sorted(case.output_documents_seen)} documents)"
            )
    text, data = report([c.result for c in cases], min(startups), args.repeat, warnings)
    print(text)
    if args.keep:
        print(f"trees and outputs kept in {workdir}")
    if args.json is not None:
        args.json.write_text(json.dumps(data, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
