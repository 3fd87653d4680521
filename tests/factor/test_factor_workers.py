"""factor with more than one process: the inputs parsed, the files rewritten and a large group's children proved in
workers give what one process gives."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from use_cases import factor_shown

from omerender.commands.factor import Choices
from omerender.fanout import map_in_workers

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))
from factor import env_tree  # noqa: E402


def test_map_in_workers_gives_each_result_in_order_and_an_exception_as_a_value() -> None:
    def one(n: int) -> Any:
        return ValueError(f"no {n}") if n == 7 else (n * n, os.getpid())

    found = map_in_workers(list(range(20)), one, 3, "squaring")
    assert [r if isinstance(r, ValueError) else r[0] for r in found][:7] == [n * n for n in range(7)]
    assert isinstance(found[7], ValueError) and str(found[7]) == "no 7"
    assert [r[0] for r in found[8:]] == [n * n for n in range(8, 20)]
    assert len({r[1] for r in found if not isinstance(r, ValueError)}) == 3  # two workers and the parent


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_factor_in_workers_is_byte_identical_to_one_process(
    fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from omerender.commands import request
    from omerender.factor import plan
    from omerender.load import reader

    tree = env_tree(tmp_path / "tree", runtimes=12, env=30)
    monkeypatch.setattr(request, "cores", lambda: 1)  # factor's -j default: every core
    one = factor_shown(tree, Choices(dry_run=True), fmt)
    assert one.exit_code == 0, one
    monkeypatch.setattr(request, "cores", lambda: 3)
    monkeypatch.setattr(reader, "PARSE_LEAST_BYTES", 0)  # parsed, rewritten (factor.run reads it from reader)
    monkeypatch.setattr("omerender.factor.run.PARSE_LEAST_BYTES", 0)
    monkeypatch.setattr(plan, "PROVE_IN_WORKERS", 0)  # and proved, in workers
    calls: list[str] = []
    real = map_in_workers.__globals__["run_forked"]

    def counted(parts: Any, work: Any, what: str, meanwhile: Any = lambda: None) -> Any:
        calls.append(what)
        return real(parts, work, what, meanwhile)

    monkeypatch.setitem(map_in_workers.__globals__, "run_forked", counted)
    many = factor_shown(tree, Choices(dry_run=True), fmt)
    assert (many.exit_code, many.stdout, many.stderr) == (one.exit_code, one.stdout, one.stderr)
    assert {"parsing", "rewriting", "proving"} <= set(calls)
