"""The diagnostic code catalogue is the only place a code is written, and its table is in docs/codes.md alone."""

from __future__ import annotations

import ast
from pathlib import Path

from omerender import codes
from omerender.diagnostics import Diagnostic
from omerender.output.reporters import render_report

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "omerender"


def _inline_codes() -> list[str]:
    """Every string literal in the package that names a catalogued code and is passed as an argument."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "codes.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            literals = [a for a in node.args if isinstance(a, ast.Constant)]
            literals += [k.value for k in node.keywords if k.arg == "code" and isinstance(k.value, ast.Constant)]
            for literal in literals:
                if isinstance(literal.value, str) and (
                    literal.value in codes.CATALOGUE or _looks_like_code(node, literal)
                ):
                    found.append(f"{path.relative_to(ROOT)}:{literal.lineno}: {literal.value!r}")
    return found


def _looks_like_code(call: ast.Call, literal: ast.Constant) -> bool:
    """A literal given as ``code=``, or as the sixth argument of ``Diagnostic(...)``."""
    if any(k.arg == "code" and k.value is literal for k in call.keywords):
        return True
    return isinstance(call.func, ast.Name) and call.func.id == "Diagnostic" and call.args[5:6] == [literal]


def test_no_module_writes_a_code_inline() -> None:
    assert _inline_codes() == []


def test_catalogue_entries_are_complete() -> None:
    assert len(codes.CATALOGUE) >= 60
    for code, info in codes.CATALOGUE.items():
        assert info.code == code
        assert info.severity in ("error", "warning", "info")
        assert info.summary and info.summary[0].islower() and not info.summary.endswith("."), code
        assert info.mirrors


def test_the_table_of_codes_is_made_from_the_catalogue_and_kept_in_one_place() -> None:
    page = (ROOT / "docs" / "codes.md").read_text(encoding="utf-8")
    assert codes.markdown_table() in page, "docs/codes.md is stale (tests/unit/test_code_docs.py says how to remake it)"
    assert all(f"[`{code}`](#{codes.anchor(code)})" in page for code in codes.CATALOGUE)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "| `ParentNotFound` |" not in readme, "the README links docs/codes.md rather than keep a copy to go stale"


def test_sarif_rules_describe_codes_from_the_catalogue() -> None:
    import json

    diagnostic = Diagnostic("a.yaml", 1, 1, "error", "m", codes.INHERITANCE_CYCLE)
    rules = json.loads(render_report("sarif", [diagnostic], max_errors=None, tool_version="0"))["runs"][0]["tool"][
        "driver"
    ]["rules"]
    assert rules[0]["shortDescription"]["text"] == "the chain names a runtime twice"
