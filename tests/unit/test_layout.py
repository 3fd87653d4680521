"""The package layout shows the pipeline: imports flow down the stages, and nothing imports in a cycle."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "omerender"
SHARED = {"omerender", "omerender.diagnostics", "omerender.codes", "omerender.errors", "omerender.ome"}
SHARED |= {"omerender.data", "omerender.names", "omerender.schemas", "omerender.constants", "omerender.paths"}
SHARED |= {"omerender.settings", "omerender.catalogue", "omerender.headroom"}
SHARED |= {"omerender.yamlwrite", "omerender.roundtrip"}  # writing YAML: load (KRM items), lifecycle, factor, output
STAGES = ("load", "admission", "resolve", "selection", "render", "verify", "lifecycle", "pipeline", "changes")
STAGES += ("forest", "output", "factor", "commands", "gitops", "cli")


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports() -> dict[str, set[str]]:
    """Module -> the omerender modules it imports anywhere in its body (lazy imports included)."""
    modules = {_module(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("omerender"):
                for alias in node.names:
                    child = f"{node.module}.{alias.name}"
                    found.add(child if child in modules else node.module)
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.startswith("omerender")}
        graph[name] = found - {name}
    return graph


# A top-level module that is not shared sits on a stage's floor: the build's options and result, and its workers.
FLOORS = {"omerender.result": "pipeline", "omerender.fanout": "pipeline"}


def _stage(module: str) -> int | None:
    if module in SHARED:
        return None
    if module in FLOORS:
        return STAGES.index(FLOORS[module])
    if module == "omerender.__main__":  # python -m omerender: the entry point sits with the CLI
        return STAGES.index("cli")
    part = module.split(".")[1]
    return STAGES.index(part)


def test_top_level_holds_only_shared_modules_and_the_pipeline() -> None:
    top = {p.stem for p in PACKAGE.glob("*.py")}
    assert top == {"__init__", "__main__", "diagnostics", "codes", "errors", "ome", "data", "names", "pipeline"} | {
        "constants",
        "paths",
        "result",
        "settings",
        "fanout",
        "headroom",
        "yamlwrite",
        "roundtrip",
    }
    assert {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"} >= set(STAGES) - {"pipeline"}


@pytest.mark.parametrize("stage", [s for s in STAGES if s != "pipeline"])
def test_each_stage_says_what_it_does_and_what_it_may_import(stage: str) -> None:
    init = PACKAGE / stage / "__init__.py"
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) if init.exists() else None
    assert doc, f"{init} has no docstring"
    assert "May import:" in doc, f"{init}: say what the stage may import"


def test_imports_only_flow_down_the_stages() -> None:
    wrong = []
    for module, targets in _imports().items():
        mine = _stage(module)
        for target in targets:
            theirs = _stage(target)
            if theirs is None:
                continue
            if mine is None or theirs > mine:
                wrong.append(f"{module} -> {target}")
    assert wrong == []


def test_no_import_cycles() -> None:
    graph = _imports()
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*trail[trail.index(nxt) :], nxt]))
            elif nxt in graph and nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    assert cycles == []


@pytest.mark.parametrize("module", sorted(_module(p) for p in (PACKAGE / "cli").glob("*.py")))
def test_every_cli_module_imports_alone(module: str) -> None:
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_the_use_cases_import_no_click() -> None:
    """``omerender.commands`` is below the CLI: no click, so nothing there can print a usage error or exit."""
    found = []
    for path in sorted((PACKAGE / "commands").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            names += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            found += [f"{path.name}: {name}" for name in names if name.split(".")[0] == "click"]
    assert (PACKAGE / "commands" / "__init__.py").exists()
    assert found == []
