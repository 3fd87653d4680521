"""The result never depends on file order or layout: byte-identical stdout for every arrangement."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import dump, run, worlds

LOCATION = re.compile(r"^[^:]+:\d+:\d+: ")


def _messages(stderr: str) -> list[str]:
    """Diagnostics without their locations, which differ from layout to layout."""
    return sorted(LOCATION.sub("", line) for line in stderr.splitlines())


def _write_layout(root: Path, docs: list[dict[str, Any]], layout: str, order: list[int], dirs: list[str]) -> None:
    arranged = [docs[i] for i in order]
    if layout == "one-file":
        (root / "all.yaml").write_text(dump(arranged), encoding="utf-8")
        return
    if layout == "reversed-two-files":
        half = len(arranged) // 2
        (root / "b.yml").write_text(dump(arranged[:half] or [{}]), encoding="utf-8")
        (root / "a.yaml").write_text(dump(list(reversed(arranged[half:]))), encoding="utf-8")
        return
    for n, doc in enumerate(arranged):
        folder = root / dirs[n % len(dirs)]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{len(arranged) - n:02d}-{doc['kind'].lower()}.yaml").write_text(dump([doc]), encoding="utf-8")


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(docs=worlds(), data=st.data())
def test_output_is_independent_of_file_order_and_layout(docs: list[dict[str, Any]], data: st.DataObject) -> None:
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for layout in ("one-file", "scattered", "reversed-two-files"):
            order = data.draw(st.permutations(range(len(docs))), label=f"order for {layout}")
            dirs = data.draw(
                st.lists(st.sampled_from(["x", "x/y", "z", "a/b/c", "."]), min_size=1, max_size=4), label="dirs"
            )
            root = Path(tmp) / layout
            root.mkdir()
            _write_layout(root, docs, layout, list(order), dirs)
            results.append(run("build", "--kube-version", "none", str(root)))
    codes = {code for code, _, _ in results}
    assert codes <= {0, 1} and len(codes) == 1, results
    assert len({stdout for _, stdout, _ in results}) == 1
    assert len({tuple(_messages(stderr)) for _, _, stderr in results}) == 1
