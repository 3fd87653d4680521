"""resolve_all shares what one runtime's cycle search learnt with the next: the same chains and messages."""

from __future__ import annotations

import random
from pathlib import Path

import yaml

from omerender.pipeline import BuildOptions, build
from omerender.resolve import inherit


def _graph(seed: int, size: int, jumps: float) -> list[dict[str, object]]:
    """ClusterServingRuntimes whose parents are random: chains (longer with fewer ``jumps``), loops, missing parents."""
    rng = random.Random(seed)
    docs = []
    for i in range(size):
        roll = rng.random()
        # rt-size and above are missing
        parent = None if roll < jumps / 4 else f"rt-{rng.randrange(size + 3)}" if roll < jumps else f"rt-{i - 1}"
        meta: dict[str, object] = {"name": f"rt-{i}"}
        if parent is not None and i > 0:
            meta["annotations"] = {"ome.io/inherit-from": parent}
        docs.append({"apiVersion": "ome.io/v1beta1", "kind": "ClusterServingRuntime", "metadata": meta,
                     "spec": {"disabled": True}})  # fmt: skip
    return docs


def test_shared_cycle_search_gives_what_a_fresh_one_gives(tmp_path: Path) -> None:
    for seed, jumps in [(seed, jumps) for seed in range(4) for jumps in (0.25, 0.02, 0.005)]:
        folder = tmp_path / f"{seed}-{jumps}"
        folder.mkdir()
        (folder / "graph.yaml").write_text(yaml.safe_dump_all(_graph(seed, 400, jumps)))
        result = build([str(folder)], BuildOptions(kube_version=None))
        universe = result.universe
        for runtime in universe.all_runtimes():
            fresh = inherit.resolve(universe, runtime)  # no memory shared with any other runtime
            shared = result.chains[inherit.runtime_key(runtime)]
            assert (fresh.reason, fresh.message, fresh.names) == (shared.reason, shared.message, shared.names)
