"""Start-up cost: Argo CD and pre-commit start omerender many times, so the CLI module imports only click."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from gitops_helpers import run

HEAVY = (
    "yaml",
    "ruamel",
    "jsonschema",
    "deepdiff",
    "omerender.pipeline",
    "omerender.load.reader",
    "omerender.verify.kube_schema",
    "omerender.output.emit",
)


def test_the_cli_module_imports_nothing_heavy() -> None:
    probe = "import json, sys, omerender.cli; print(json.dumps(sorted(sys.modules)))"
    proc = run([sys.executable, "-c", probe])
    assert proc.code == 0, proc
    loaded = set(json.loads(proc.out))
    assert not {m for m in loaded if m.split(".")[0] in HEAVY or m in HEAVY}, sorted(
        m for m in loaded if m.startswith(("omerender", "yaml", "ruamel"))
    )


def _run_main(argv: list[str], watched: tuple[str, ...]) -> Any:
    """Run the entry point's ``main`` with ``argv`` in a new interpreter; it prints its output, then the sorted
    ``watched`` modules it imported (the last line)."""
    probe = "\n".join(
        [
            "import sys",
            "from omerender.cli import main",  # what the entry point runs, before its hard exit
            f"sys.argv = {['omerender', *argv]!r}",
            "try:",
            "    main()",
            "except SystemExit:",
            "    pass",
            f"print(sorted(m for m in sys.modules if m in {watched!r}))",
        ]
    )
    return run([sys.executable, "-c", probe])


def test_version_answers_without_importing_the_core() -> None:
    proc = _run_main(["--version"], HEAVY)
    assert proc.code == 0 and "0." in proc.out, proc
    assert proc.out.strip().endswith("[]"), proc


def test_the_cli_takes_its_defaults_from_the_shared_constants() -> None:
    from omerender import constants
    from omerender.commands import request
    from omerender.settings import BY_STEM, VALIDATE_MODES

    assert request.DEFAULT_KUBE_VERSION is constants.DEFAULT_KUBE_VERSION
    assert BY_STEM["kube-version"].default is constants.DEFAULT_KUBE_VERSION
    assert BY_STEM["max-file-size"].default is constants.DEFAULT_MAX_FILE_BYTES
    assert VALIDATE_MODES == tuple(constants.ValidationMode)


OTHER_FAMILIES = ("omerender.cli.factor", "omerender.cli.forest", "omerender.cli.gitops", "omerender.cli.lifecycle")
OTHER_FAMILIES += ("omerender.cli.completion", "omerender.output.ci_reports", "xml.etree.ElementTree")  # JUnit, GitLab
EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo"


def test_the_example_build_loads_only_its_own_command_family() -> None:
    proc = _run_main(["build", str(EXAMPLE)], OTHER_FAMILIES)
    assert proc.code == 0 and "kind: Deployment" in proc.out, proc
    assert proc.out.strip().endswith("[]"), proc


def test_every_family_names_the_commands_it_defines() -> None:
    import importlib

    from omerender.cli import FAMILIES, main

    defined = {
        command.name: family
        for family in set(FAMILIES.values())
        for command in importlib.import_module(f"omerender.cli.{family}").COMMANDS
    }
    assert defined == FAMILIES
    assert sorted(main.commands) == sorted(FAMILIES) and all(main.commands[name].name == name for name in FAMILIES)
