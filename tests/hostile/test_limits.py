"""Time and memory bounds on hostile input, measured in-process and in a memory-capped subprocess."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from omerender.load.reader import load
from omerender.load.yamlio import MAX_DEPTH, MAX_EXPANDED_NODES, measure, parse_documents

HERE = Path(__file__).parent
BOMB = HERE / "alias-bomb" / "input" / "bomb.yaml"
MEMORY_CAP = 512 * 1024 * 1024  # address space of the capped subprocess


def _capped(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))

    command = [sys.executable, "-m", "omerender", *args]
    return subprocess.run(command, input=stdin, capture_output=True, timeout=60, preexec_fn=limit, check=False)


def test_alias_bomb_is_refused_fast_with_little_memory() -> None:
    assert 700 <= BOMB.stat().st_size <= 1024
    started = time.perf_counter()
    result = load([str(BOMB)])
    elapsed = time.perf_counter() - started
    assert [d.code for d in result.diagnostics] == ["yaml-syntax"]
    assert "expands to more than 1000000 nodes" in result.diagnostics[0].message
    assert elapsed < 1.0, f"{elapsed:.3f}s"
    # memory of parsing alone (reading allocates a buffer the size of --max-file-size, then shrinks it)
    text = BOMB.read_text(encoding="utf-8")
    tracemalloc.start()
    with pytest.raises(Exception, match="expands to more than"):
        list(parse_documents(text))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak < 1024 * 1024, f"peak {peak} bytes"


def test_alias_bomb_through_the_cli_under_a_memory_cap() -> None:
    started = time.perf_counter()
    proc = _capped("build", "-", stdin=BOMB.read_bytes())
    elapsed = time.perf_counter() - started
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == b""
    assert (
        proc.stderr.decode()
        == "<stdin>:2:1: error: [yaml-syntax] invalid YAML: document expands to more than 1000000 nodes through "
        "aliases\n"
    )
    assert elapsed < 10  # interpreter start-up included; the refusal itself is timed above


def test_expansion_just_under_the_cap_is_read() -> None:
    # 10 x 10 x 10 x 10 x 10 strings behind aliases: about 111,000 nodes once expanded
    lines = ["a: &a [" + ",".join(["x"] * 10) + "]"]
    for prev, name in zip("abcd", "bcde"):
        lines.append(f"{name}: &{name} [" + ",".join(["*" + prev] * 10) + "]")
    [doc] = list(parse_documents("\n".join(lines) + "\n"))
    size, depth, _ = measure(doc.node)
    assert 100_000 < size <= MAX_EXPANDED_NODES and depth == 7  # the mapping, five lists, the strings


@pytest.mark.parametrize("text", ["[" * 100_000, "{a: " * 100_000, "- " * 100_000 + "x\n", "a: " + "[{b: " * 50_000])
def test_huge_nesting_does_not_crash_the_parser(text: str) -> None:
    proc = _capped("build", "-", stdin=text.encode())
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == b""
    [line] = proc.stderr.decode().splitlines()
    assert line.startswith("<stdin>:1:") and "error: [yaml-syntax] invalid YAML: exceeded maximum nesting depth" in line


def test_a_big_file_of_tiny_nodes_is_refused_before_nodes_are_built() -> None:
    """Under the size cap, 1.5 million list items would take about 500 MB as composed nodes."""
    text = "- a\n" * 1_500_000
    started = time.perf_counter()
    proc = _capped("build", "-", stdin=text.encode())
    assert proc.returncode == 1, proc.stderr
    assert (
        proc.stderr.decode()
        == "<stdin>:1000000:3: error: [yaml-syntax] invalid YAML: file holds more than 1000000 YAML nodes; split it "
        "into smaller files\n"
    )
    assert time.perf_counter() - started < 20


def test_nesting_limit_is_exact() -> None:
    def nested(depth: int) -> str:
        return "[" * (depth - 1) + "x" + "]" * (depth - 1)

    [ok] = list(parse_documents(nested(MAX_DEPTH)))
    assert measure(ok.node)[1] == MAX_DEPTH
    with pytest.raises(Exception, match=f"nests more than {MAX_DEPTH} levels deep"):
        list(parse_documents(nested(MAX_DEPTH + 1)))


def test_deep_nesting_through_aliases_is_caught() -> None:
    # shallow text (no deep indentation, few brackets) that nests deeply only once aliases expand
    lines = ["a0: &a0 [x]"] + [f"a{i}: &a{i} [*a{i - 1}]" for i in range(1, 120)]
    with pytest.raises(Exception, match="nests more than"):
        list(parse_documents("\n".join(lines) + "\n"))


def test_unreadable_file_is_a_located_error(run_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests run as root, for whom chmod 000 blocks nothing, so the failing open() is simulated."""
    (tmp_path / "a.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n", encoding="utf-8")
    real_open = os.open

    def deny(path: str, *args: int) -> int:
        if str(path).endswith("a.yaml"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args)

    monkeypatch.setattr("omerender.load.bounded._open", deny)
    monkeypatch.chdir(tmp_path)
    result = run_cli("build", ".")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == "a.yaml:1:1: error: [input-unreadable] cannot read file: Permission denied\n"


def test_bom_and_crlf_render_like_the_plain_files(run_cli, tmp_path: Path) -> None:
    example = HERE.parents[1] / "fixtures" / "llama-demo"
    for path in example.glob("*.yaml"):
        (tmp_path / path.name).write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))
    plain = run_cli("build", str(example))
    odd = run_cli("build", str(tmp_path))
    assert odd.exit_code == plain.exit_code == 0
    assert odd.stdout == plain.stdout and odd.stdout


def _configmaps(folder: Path, count: int, size: int) -> list[str]:
    folder.mkdir()
    value = "x" * size
    for i in range(count):
        text = f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{i}\ndata:\n  big: {value}\n"
        (folder / f"cm-{i}.yaml").write_text(text, encoding="utf-8")
    return [str(folder)]


def test_the_run_budget_counts_every_file_together(tmp_path: Path) -> None:
    from omerender.load.bounded import Budget

    paths = _configmaps(tmp_path / "in", 10, 1000)
    budget = Budget(max_total_bytes=5000)
    result = load(paths, budget=budget)
    refused = [d for d in result.diagnostics if d.code == "run-too-large"]
    assert refused and all(d.severity == "error" for d in refused), result.diagnostics
    assert "more than 5000 bytes in all" in refused[0].message
    assert budget.bytes_read <= 5000


def test_the_run_node_budget_counts_every_file_together(tmp_path: Path) -> None:
    from omerender.load.bounded import Budget

    paths = _configmaps(tmp_path / "in", 10, 10)
    result = load(paths, budget=Budget(max_total_nodes=40))
    refused = [d for d in result.diagnostics if "more than 40 YAML nodes in all" in d.message]
    assert refused and all(d.severity == "error" for d in refused), result.diagnostics
    assert len(result.objects) < 10
