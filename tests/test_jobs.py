"""``build -j N``: worker processes render, check and write; the output and the diagnostics do not change.

Golden cases run again with ``-j 2`` and ``-j 3`` against their expected files; a generated tree of a few
hundred InferenceServices is built with ``-j 1``, ``-j 2`` and ``-j 3`` in every output form; a worker
that dies or raises fails the run with exit 3 and one line, writing nothing and leaving no process.
"""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from omerender.fanout import Workers, slices

REPO = Path(__file__).resolve().parents[1]
CASES = Path(__file__).parent / "cases"


def _build_cases() -> list[str]:
    names = []
    for case in sorted(CASES.iterdir()):
        args = case / "args"
        first = args.read_text(encoding="utf-8").split("\n")[0] if args.exists() else "build"
        if (case / "input").is_dir() and first == "build":
            names.append(case.name)
    return names


@pytest.mark.parametrize("jobs", ["2", "3"])
@pytest.mark.parametrize("name", _build_cases())
def test_golden_build_cases_are_the_same_with_workers(name: str, jobs: str, run_cli, monkeypatch) -> None:
    from omerender.load import reader

    monkeypatch.setattr(reader, "PARSE_LEAST_BYTES", 0)  # the inputs are parsed in workers too, however small
    case = CASES / name
    args_file = case / "args"
    lines = args_file.read_text(encoding="utf-8").split("\n") if args_file.exists() else ["build", "input"]
    monkeypatch.chdir(case)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    env_file = case / "env"
    for line in env_file.read_text(encoding="utf-8").splitlines() if env_file.exists() else []:
        key, _, value = line.partition("=")
        monkeypatch.setenv(key, value)
    result = run_cli(*[a for a in lines if a], "-j", jobs)
    expected = case / "expected"
    assert (expected / "stdout").read_text(encoding="utf-8") == result.stdout, result
    assert (expected / "stderr").read_text(encoding="utf-8") == result.stderr, result
    assert (expected / "exit_code").read_text(encoding="utf-8") == f"{result.exit_code}\n", result


def _tree_cases() -> list[str]:
    return [
        case.name
        for case in sorted(CASES.iterdir())
        if (case / "args").is_file() and (case / "args").read_text(encoding="utf-8").startswith("tree\n")
    ]


@pytest.mark.parametrize("name", _tree_cases())
def test_golden_tree_cases_are_the_same_when_workers_parse(name: str, run_cli, monkeypatch) -> None:
    from omerender.commands import request
    from omerender.load import reader

    monkeypatch.setattr(reader, "PARSE_LEAST_BYTES", 0)
    monkeypatch.setattr(request, "cores", lambda: 3)  # tree parses in as many processes as there are cores
    case = CASES / name
    monkeypatch.chdir(case)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    result = run_cli(*[a for a in (case / "args").read_text(encoding="utf-8").split("\n") if a])
    expected = case / "expected"
    assert (expected / "stdout").read_text(encoding="utf-8") == result.stdout, result
    assert (expected / "stderr").read_text(encoding="utf-8") == result.stderr, result
    assert (expected / "exit_code").read_text(encoding="utf-8") == f"{result.exit_code}\n", result


def _workers(count: int) -> Any:
    from omerender.fanout import parse_in_workers

    return functools.partial(parse_in_workers, count=count)


def _fields(loaded: Any) -> tuple[list[Any], list[Any], list[str]]:
    objects = [(o.path, o.index, o.body, o.source.text, o.namespace, o.slim, o.marks) for o in loaded.objects]
    return objects, loaded.diagnostics, loaded.files


def test_workers_parse_to_the_same_objects_and_problems(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from omerender.load import reader

    files = {
        "a.yaml": "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata: {name: a}\nspec: {}\n---\n- 1\n",
        "b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: x}\ndata: {k: v}\n",
        "c.yaml": "kind: [unclosed\n",
        "d.yaml": "apiVersion: ome.io/v1beta1\nkind: InferenceService\nmetadata: {name: i}\nspec: {model: {name: m}}\n",
        "e.yaml": "a: 1\na: 2\n",
        "f.yaml": "apiVersion: ome.io/v1beta1\nkind: BaseModel\nmetadata:\n  name: 7\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    one = _fields(reader.load([str(tmp_path)], "ns"))
    monkeypatch.setattr(reader, "PARSE_LEAST_BYTES", 0)
    for jobs in (2, 3, 6, 64):
        assert _fields(reader.load([str(tmp_path)], "ns", parse_many=_workers(jobs))) == one
    assert len(one[0]) == 3 and len(one[1]) == 4


def test_an_alias_budget_gone_over_across_workers_is_found_where_one_process_finds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from omerender.load import reader
    from omerender.load.bounded import Budget

    text = (
        "kind: ConfigMap\napiVersion: v1\nmetadata: {name: n}\ndata:\n  a: &x "
        + "y" * 300
        + "\n  b: [*x, *x, *x, *x]\n"
    )
    for index in range(4):
        (tmp_path / f"{index}.yaml").write_text(text.replace("name: n", f"name: n{index}"))
    one = _fields(reader.load([str(tmp_path)], budget=Budget(max_total_bytes=4000)))
    monkeypatch.setattr(reader, "PARSE_LEAST_BYTES", 0)
    two = _fields(reader.load([str(tmp_path)], budget=Budget(max_total_bytes=4000), parse_many=_workers(2)))
    assert two == one
    assert [d.path for d in one[1]] == [str(tmp_path / "3.yaml")] and "aliases" in one[1][0].message


def _parse_in_workers_failing(monkeypatch: pytest.MonkeyPatch, in_parent: bool, fail: Callable[[], None]) -> None:
    """Inputs parsed in workers however small, and ``fail`` called as the first object is made in the parent
    (``in_parent``) or in a worker."""
    from omerender.load import reader

    parent = os.getpid()
    real = reader.to_object

    def to_object(*args: Any, **kwargs: Any) -> Any:
        if (os.getpid() == parent) == in_parent:
            fail()
        return real(*args, **kwargs)

    monkeypatch.setattr(reader, "PARSE_LEAST_BYTES", 0)
    monkeypatch.setattr(reader, "to_object", to_object)


def test_a_failing_parse_worker_fails_the_run_with_one_line(
    tree: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    _parse_in_workers_failing(monkeypatch, in_parent=False, fail=lambda: os.kill(os.getpid(), signal.SIGKILL))
    got = run_cli("build", str(tree), "-j", "3")  # the parent parses the last third itself: two workers
    assert got.exit_code == 3 and got.stdout == "", got
    assert (
        got.stderr
        == "omerender: internal error: WorkerFailed: parsing worker 1 of 2 was killed by signal 9 before it finished\n"
    )
    assert _no_children_left()


def test_the_parent_failing_its_own_slice_leaves_no_worker_running(
    tree: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parent parses the last slice while the workers parse theirs: when it fails, they are stopped."""

    def fail() -> None:
        raise RuntimeError("the parent's slice broke")

    _parse_in_workers_failing(monkeypatch, in_parent=True, fail=fail)
    got = run_cli("build", str(tree), "-j", "3")
    assert (got.exit_code, got.stdout) == (3, ""), got
    assert got.stderr == "omerender: internal error: RuntimeError: the parent's slice broke\n"
    assert _no_children_left()


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """300 InferenceServices on 60 runtimes; half the leaves with partial size ranges, noted at ``-v``."""
    root = tmp_path_factory.mktemp("jobs") / "tree"
    subprocess.run(
        [sys.executable, str(REPO / "bench" / "gen_tree.py"), str(root), "--runtimes", "60", "--isvcs", "300"]
        + ["--partial-ranges", "0.5"],
        check=True,
        capture_output=True,
    )
    return root


def _folder(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    "args",
    [
        ["-v"],
        ["-o", "json"],
        ["-o", "name"],
        ["--emit", "rendered", "--emit", "passthrough", "--emit", "inputs", "--flux-substitute-disabled"],
        ["--emit", "flattened", "--emit", "rendered"],
    ],
)
def test_a_generated_tree_prints_the_same_bytes_with_any_jobs(tree: Path, args: list[str], run_cli) -> None:
    runs = {jobs: run_cli("build", str(tree), "-j", jobs, *args) for jobs in ("1", "2", "3")}
    one = runs["1"]
    assert one.exit_code == 0 and one.stdout, one
    for jobs, got in runs.items():
        assert (got.exit_code, got.stderr) == (one.exit_code, one.stderr), jobs
        assert got.stdout == one.stdout, f"-j {jobs} printed other bytes"
    if args == ["-v"]:
        assert "note" in one.stderr or "info" in one.stderr  # the diagnostics compared are not empty


def test_a_generated_tree_writes_the_same_folder_with_any_jobs(tree: Path, tmp_path: Path, run_cli) -> None:
    folders = {}
    for jobs in ("1", "2", "3"):
        out = tmp_path / f"out{jobs}"
        got = run_cli("build", str(tree), "-j", jobs, "--output-dir", str(out), "--kustomization")
        assert got.exit_code == 0, got
        folders[jobs] = _folder(out)
    assert len(folders["1"]) > 300
    assert folders["2"] == folders["1"] and folders["3"] == folders["1"]
    check = run_cli("build", str(tree), "-j", "2", "--output-dir", str(tmp_path / "out1"), "--kustomization", "--check")
    assert check.exit_code == 0, check


def test_an_error_is_reported_the_same_with_workers(tree: Path, tmp_path: Path, run_cli) -> None:
    broken = tmp_path / "broken"
    subprocess.run(["cp", "-r", str(tree), str(broken)], check=True)
    victim = next(p for p in sorted(broken.rglob("*.yaml")) if "kind: InferenceService" in p.read_text())
    victim.write_text(victim.read_text().replace("kind: InferenceService", "kind: InferenceService\nbogus: 1", 1))
    runs = [run_cli("build", str(broken), "-j", jobs) for jobs in ("1", "2")]
    assert runs[0].exit_code == 1 and runs[0].stdout == ""
    assert runs[1] == runs[0]


def _no_children_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@pytest.mark.parametrize("how", ["killed", "raises", "exits"])
def test_a_failing_worker_fails_the_run_with_one_line(
    how: str, tree: Path, tmp_path: Path, run_cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from omerender import pipeline

    parent = os.getpid()
    real = pipeline.render_isvc

    def render_isvc(result: Any, isvc: Any) -> Any:
        if os.getpid() != parent and isvc.name == sorted(result.universe.isvcs)[-1][1]:
            if how == "killed":
                os.kill(os.getpid(), signal.SIGKILL)
            if how == "exits":
                os._exit(0)
            raise RuntimeError("boom")
        return real(result, isvc)

    monkeypatch.setattr(pipeline, "render_isvc", render_isvc)
    out = tmp_path / "out"
    for args in (["-o", "yaml"], ["--output-dir", str(out)]):
        got = run_cli("build", str(tree), "-j", "2", *args)
        assert got.exit_code == 3, got
        assert got.stdout == ""
        assert (
            got.stderr.count("\n") == 1
            and "omerender: internal error: WorkerFailed: rendering worker 2 of 2" in got.stderr
        )
        assert not out.exists() and not list(tmp_path.glob(".out*"))
        assert _no_children_left()


def test_workers_only_for_enough_inferenceservices() -> None:
    workers = Workers(4, 1000)
    assert [workers.count(n) for n in (0, 1, 999, 1000, 5000)] == [1, 1, 1, 4, 4]
    assert [Workers(3, 2).count(n) for n in (1, 2, 3, 9)] == [1, 2, 3, 3]
    assert Workers(1, 0).count(100) == 1


def test_slices_are_contiguous_and_even() -> None:
    keys = [("ns", str(i)) for i in range(10)]
    parts = slices(keys, 3)
    assert [len(p) for p in parts] == [4, 3, 3]
    assert [k for p in parts for k in p] == keys


def test_jobs_is_read_from_the_environment_and_the_settings_file(tmp_path: Path, run_cli, monkeypatch) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".omerender.yaml").write_text("jobs: 3\n")
    subprocess.run(["cp", "-r", str(REPO / "fixtures" / "llama-demo"), str(tmp_path / "app")], check=True)
    monkeypatch.chdir(tmp_path)
    one = run_cli("build", "app", "-j", "1")
    got = run_cli("build", "app", "-v")
    assert "jobs = 3 (file)" in got.stderr and got.stdout == one.stdout, got
    monkeypatch.setenv("OMERENDER_JOBS", "2")
    got = run_cli("build", "app", "-v")
    assert "jobs = 2 (env)" in got.stderr and got.stdout == one.stdout, got
    monkeypatch.setenv("OMERENDER_JOBS", "0")
    assert run_cli("build", "app").exit_code == 2


def test_workers_are_capped_whatever_jobs_asks() -> None:
    from omerender.fanout import MAX_WORKERS, Workers

    assert Workers(100_000, 2).count(10_000) == MAX_WORKERS == 64
    assert Workers(3, 2).count(10_000) == 3
    assert Workers(100_000, 2).count(5) == 5


def test_a_scratch_file_gives_back_what_was_put_by_its_span_and_refuses_to_read_past_its_end() -> None:
    from omerender.fanout import Scratch, _scratch

    texts = Scratch(_scratch())
    big = b"x" * (3 << 20)  # more than one flush
    spans = [(texts.put(data), len(data)) for data in (b"kind: A\n", "name: \u00e9\n".encode(), big, b"")]
    texts.flush()
    assert [texts.read(*span) for span in spans] == [b"kind: A\n", "name: \u00e9\n".encode(), big, b""]
    assert texts.size == sum(length for _, length in spans)
    with pytest.raises(OSError, match="shorter than it said"):
        texts.read(texts.size - 1, 2)
