"""docs/cli.md is what scripts/cli_reference.py makes from the click commands now, and it leaves nothing out."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import click

from omerender.cli import main

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "cli.md"


def _generator():
    spec = importlib.util.spec_from_file_location("cli_reference", REPO / "scripts" / "cli_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("cli_reference", module)
    spec.loader.exec_module(module)
    return module


def test_the_committed_reference_is_current() -> None:
    assert PAGE.read_text(encoding="utf-8") == _generator().reference(), (
        "docs/cli.md is stale: run python scripts/cli_reference.py"
    )


def test_every_command_and_visible_option_is_in_it_with_its_default() -> None:
    page = PAGE.read_text(encoding="utf-8")
    root = click.Context(main, info_name="omerender")
    for name in main.list_commands(root):
        command = main.commands[name]
        assert f"\n## {name}\n" in page, name
        section = page.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden and "--help" not in param.opts:
                assert f"`{param.opts[0]}" in section or f", {param.opts[0]}" in section, (name, param.opts)
                if param.show_default and param.default not in (None, False, ()):
                    assert "default: `" in section, (name, param.opts)


def test_check_mode_says_how_to_regenerate(tmp_path: Path, monkeypatch, capsys) -> None:
    generator = _generator()
    monkeypatch.setattr(generator, "PAGE", tmp_path / "cli.md")
    assert generator.run(["--check"]) == 1
    assert "run python scripts/cli_reference.py" in capsys.readouterr().err
    assert generator.run([]) == 0 and generator.run(["--check"]) == 0
