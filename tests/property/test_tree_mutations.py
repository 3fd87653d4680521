"""Valid trees, mutated the way a hostile or careless contributor would: the build never crashes, never
passes with an error, never writes outside --output-dir, and prints a YAML stream or nothing.

Bounded in CI; ``OMERENDER_FUZZ_EXAMPLES=2000 python -m pytest tests/property/test_tree_mutations.py``
runs a longer budget.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import run

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo"
DOCS = {p.name: yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted(EXAMPLE.glob("*.yaml"))}
EXAMPLES = int(os.environ.get("OMERENDER_FUZZ_EXAMPLES", "25"))
HOSTILE = st.sampled_from(
    [
        "../../x", "/abs/x", "..", ".", "UPPER", "a" * 70, "x/y", "{{", "{{.Bad}}", "$(X)", "sglang-profle",
        "", None, True, 5, 3_000_000_000, -1, 1.5, [], {}, {"on": 5}, "ClusterServingRuntme", "\u0430", "~",
    ]
)  # fmt: skip


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _paths(item, (*prefix, i))
    return found


def _set(doc: Any, path: tuple[Any, ...], value: Any, delete: bool) -> None:
    for key in path[:-1]:
        doc = doc[key]
    if delete and isinstance(doc, dict):
        del doc[path[-1]]
    elif delete and isinstance(doc, list):
        doc.pop(path[-1])
    else:
        doc[path[-1]] = value


@st.composite
def mutated_trees(draw: st.DrawFn) -> dict[str, list[Any]]:
    tree: dict[str, list[Any]] = {name: [yaml.safe_load(yaml.safe_dump(doc))] for name, doc in DOCS.items()}
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(sorted(tree)))
        doc = tree[name][0]
        paths = _paths(doc)
        how = draw(st.sampled_from(["set", "delete", "typo", "duplicate"]))
        if how == "duplicate":
            tree[name].append(yaml.safe_load(yaml.safe_dump(doc)))
            continue
        path = draw(st.sampled_from(paths))
        if how == "typo" and isinstance(path[-1], str):
            parent = doc
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1] + "e"] = parent.pop(path[-1])
        else:
            _set(doc, path, draw(HOSTILE), how == "delete")
    return tree


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


@settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(mutated_trees(), st.booleans())
def test_mutated_tree(tree: dict[str, list[Any]], to_folder: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "a" / "b" / "c"
        (work / "in").mkdir(parents=True)
        for name, docs in tree.items():
            (work / "in" / name).write_text(yaml.safe_dump_all(docs), encoding="utf-8")
        before = _files(Path(tmp))
        extra = ["--output-dir", str(work / "out")] if to_folder else []
        code, stdout, stderr = run("build", str(work / "in"), "--kube-version", "none", *extra)
        assert code in (0, 1), stderr
        assert "Traceback" not in stderr and "internal error" not in stderr, stderr
        if code == 0:
            assert ": error: " not in stderr, "exit 0 with an error line"
        else:
            assert stdout == "", "nothing is printed when the build fails"
        new = _files(Path(tmp)) - before
        assert [p for p in new if not p.startswith("a/b/c/out/")] == [], (
            "written outside --output-dir or left beside it"
        )
        list(yaml.safe_load_all(stdout))  # a valid YAML stream, or nothing
