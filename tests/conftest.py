from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

REPO = Path(__file__).resolve().parents[1]
OME_CORPUS = REPO.parent / "shared" / "ome"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden", action="store_true", help="Rewrite expected files of golden cases from the current output."
    )


@dataclass(frozen=True)
class Run:
    exit_code: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return f"exit {self.exit_code}\n--- stdout\n{self.stdout}--- stderr\n{self.stderr}"


@pytest.fixture
def run_cli():
    """Run the omerender CLI in-process; returns exit code, stdout and stderr."""
    from omerender.cli import main

    def run(*args: str, input: str | bytes | None = None) -> Run:
        result = CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)
        return Run(result.exit_code, result.stdout, result.stderr)

    return run


@pytest.fixture
def write_tree(tmp_path: Path):
    """Write {relative path: text} under tmp_path and return tmp_path."""

    def write(files: dict[str, str], root: Path | None = None) -> Path:
        base = root or tmp_path
        for rel, text in files.items():
            target = base / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        return base

    return write


@pytest.fixture
def run_golden(run_cli, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """Run a golden case from ``cwd`` and compare with ``case/expected/{stdout,stderr,exit_code}``.

    The case's ``args`` file holds one CLI argument per line (default ``build input``), its optional
    ``env`` file one NAME=VALUE a line; ``--update-golden`` rewrites the expected files first.
    """

    def run(case: Path, cwd: Path) -> Run:
        args_file = case / "args"
        lines = args_file.read_text(encoding="utf-8").split("\n") if args_file.exists() else ["build", "input"]
        monkeypatch.chdir(cwd)
        monkeypatch.delenv("GITHUB_ACTIONS", raising=False)  # a case's output is the same in CI as at a desk
        env_file = case / "env"  # optional: one NAME=VALUE a line, set for the run
        for line in env_file.read_text(encoding="utf-8").splitlines() if env_file.exists() else []:
            name, _, value = line.partition("=")
            monkeypatch.setenv(name, value)
        result = run_cli(*[a for a in lines if a])
        actual = {"stdout": result.stdout, "stderr": result.stderr, "exit_code": f"{result.exit_code}\n"}
        expected = case / "expected"
        if request.config.getoption("--update-golden"):
            expected.mkdir(exist_ok=True)
            for key, text in actual.items():
                (expected / key).write_text(text, encoding="utf-8")
        for key, text in actual.items():
            assert (expected / key).read_text(encoding="utf-8") == text, f"{case.name}: {key} differs\n{result}"
        return result

    return run
