"""No ``Any`` in a signature that crosses packages: what one stage hands another is typed.

The one exception is JSON-shaped data, the manifests and documents omerender reads and writes: ``dict[str, Any]``
(``Mapping[str, Any]``) for an object, and ``data.Json`` for any value of a document, a name that says so. A
function or class crosses when a module of another package (or a top-level module) imports it, by name or as an
attribute of its module.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "omerender"
JSON_SHAPED = ("dict[str, Any]", "Mapping[str, Any]")


def _module(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _package(module: str) -> str:
    """``omerender.load.reader`` -> ``load``; a top-level module is a package of its own."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else module


def _crossing(trees: dict[str, ast.Module]) -> dict[tuple[str, str], set[str]]:
    """(module, name) -> the modules of other packages that use it."""
    found: dict[tuple[str, str], set[str]] = {}
    for user, tree in trees.items():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("omerender")):
                continue
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                if submodule in trees and _package(submodule) != _package(user):
                    name = alias.asname or alias.name
                    for use in ast.walk(tree):
                        if isinstance(use, ast.Attribute) and isinstance(use.value, ast.Name) and use.value.id == name:
                            found.setdefault((submodule, use.attr), set()).add(user)
                elif node.module in trees and _package(node.module) != _package(user):
                    found.setdefault((node.module, alias.name), set()).add(user)
    return found


def _untyped(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return False
    text = ast.unparse(annotation)
    for allowed in JSON_SHAPED:
        text = text.replace(allowed, "")
    return "Any" in text


def _functions(tree: ast.Module, name: str) -> list[ast.FunctionDef]:
    """The function ``name``, or the public methods (and ``__init__``) of the class ``name``."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return [node]
        if isinstance(node, ast.ClassDef) and node.name == name:
            return [
                n
                for n in node.body
                if isinstance(n, ast.FunctionDef) and (not n.name.startswith("_") or n.name == "__init__")
            ]
    return []


def untyped_crossings(root: Path = PACKAGE) -> list[str]:
    trees = {_module(p, root): ast.parse(p.read_text(encoding="utf-8")) for p in sorted(root.rglob("*.py"))}
    wrong = []
    for (module, name), users in sorted(_crossing(trees).items()):
        for function in _functions(trees[module], name):
            params = [*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs]
            params += [p for p in (function.args.vararg, function.args.kwarg) if p is not None]
            if any(_untyped(a) for a in [*(p.annotation for p in params), function.returns]):
                where = name if function.name == name else f"{name}.{function.name}"
                wrong.append(f"{module}.{where} (used by {', '.join(sorted(users))})")
    return wrong


def test_no_any_crosses_a_package_but_json_shaped_data() -> None:
    assert untyped_crossings() == []


def test_the_check_finds_an_untyped_signature_used_from_another_package(tmp_path: Path) -> None:
    root = tmp_path / "omerender"
    (root / "load").mkdir(parents=True)
    (root / "render").mkdir()
    (root / "load" / "reader.py").write_text(
        "from typing import Any\n"
        "def read(x: Any) -> dict[str, Any]: ...\n"
        "def shaped(x: dict[str, Any], y: Json) -> list[dict[str, Any]]: ...\n"
        "class Box:\n    def get(self) -> list[Any]: ...\n    def _own(self) -> Any: ...\n"
    )
    (root / "render" / "pod.py").write_text(
        "from omerender.load import reader\nfrom omerender.load.reader import Box, shaped\nreader.read(1)\n"
    )
    assert untyped_crossings(root) == [
        "omerender.load.reader.Box.get (used by omerender.render.pod)",
        "omerender.load.reader.read (used by omerender.render.pod)",
    ]
