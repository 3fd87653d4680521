"""The core pauses the cyclic garbage collector and restores it, so it can run twice in one process."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from omerender.pipeline import build, collector_paused
from omerender.result import BuildOptions
from omerender.yamlwrite import dump_stream

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo"


@pytest.mark.parametrize("enabled", [True, False])
def test_state_restored(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        with collector_paused():
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
        with pytest.raises(RuntimeError), collector_paused():
            raise RuntimeError
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_build_twice_in_one_process() -> None:
    first = build([str(EXAMPLE)], BuildOptions())
    second = build([str(EXAMPLE)], BuildOptions())
    assert first.objects
    assert dump_stream(first.objects) == dump_stream(second.objects)
    assert first.diagnostics == second.diagnostics
    assert gc.isenabled()
