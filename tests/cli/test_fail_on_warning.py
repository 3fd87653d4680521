"""--fail-on-warning (helm lint --strict, kubeconform -strict) on every route, and -v's one-line summary.

The tree is the llama demo with one unknown field read with validate=warn: one warning, nothing wrong. The
setting changes the exit code, never what is written.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from omerender.cli import main
from omerender.settings import BUILDERS, BY_STEM, Route

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "llama-demo"
GONE_STRICT = "omerender: error: 1 warning reported, and --fail-on-warning is set\n"
SUMMARY = re.compile(r"omerender: (?:[\d,]+ \w+, )*[\d,]+ errors?, [\d,]+ warnings?\n")


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """repo/apps/llama: the demo with an unknown field in its runtime; the working folder is the app."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    app = root / "apps" / "llama"
    shutil.copytree(DEMO, app)
    runtime = app / "runtime.yaml"
    runtime.write_text(runtime.read_text(encoding="utf-8").replace("\nspec:\n", "\nspec:\n  bogus: 1\n", 1))
    monkeypatch.chdir(app)
    for name in ("OMERENDER_FAIL_ON_WARNING", "OMERENDER_VALIDATE"):
        monkeypatch.delenv(name, raising=False)
    return app


def test_a_warning_fails_the_run_and_what_is_written_stays(run_cli, app: Path) -> None:
    calm = run_cli("build", ".", "--validate=warn")
    strict = run_cli("build", ".", "--validate=warn", "--fail-on-warning")
    assert calm.exit_code == 0 and "warning: [unknown-field]" in calm.stderr, calm
    assert strict.exit_code == 1 and strict.stdout == calm.stdout and strict.stdout
    assert strict.stderr == calm.stderr + GONE_STRICT


def test_no_warning_no_change_and_errors_keep_their_code(run_cli, app: Path) -> None:
    (app / "runtime.yaml").write_text((DEMO / "runtime.yaml").read_text(encoding="utf-8"))
    clean = run_cli("build", ".", "--fail-on-warning")
    assert (clean.exit_code, clean.stderr) == (0, ""), clean
    (app / "runtime.yaml").write_text("apiVersion: ome.io/v1beta1\nkind: ServingRuntime\nmetadata: {name: x}\n")
    broken = run_cli("build", ".", "--fail-on-warning")
    assert broken.exit_code == 1 and GONE_STRICT not in broken.stderr, broken


def test_diff_keeps_its_own_codes(run_cli, app: Path) -> None:
    same = run_cli("diff", ".", ".", "--validate=warn")
    assert same.exit_code == 0, same
    assert run_cli("diff", ".", ".", "--validate=warn", "--fail-on-warning").exit_code == 1


@pytest.mark.parametrize("command", BUILDERS)
def test_every_builder_command_takes_it(command: str) -> None:
    options = {o for p in main.commands[command].params for o in p.opts}
    assert "--fail-on-warning" in options
    assert BY_STEM["fail-on-warning"].routes == frozenset(Route)


def test_the_settings_file_and_the_environment(run_cli, app: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (app.parents[1] / ".omerender.yaml").write_text("validate: warn\nfail-on-warning: true\n", encoding="utf-8")
    assert run_cli("build", ".").exit_code == 1
    assert run_cli("build", ".", "--validate=strict").exit_code == 1  # the field is an error then
    (app.parents[1] / ".omerender.yaml").write_text("validate: warn\n", encoding="utf-8")
    assert run_cli("build", ".").exit_code == 0
    monkeypatch.setenv("OMERENDER_FAIL_ON_WARNING", "true")
    done = run_cli("build", ".")
    assert done.exit_code == 1 and done.stderr.endswith(GONE_STRICT), done


def test_argocd_generate_by_parameter_and_by_variable(run_cli, app: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARGOCD_APP_SOURCE_PATH", "apps/llama")
    monkeypatch.setenv("ARGOCD_APP_NAMESPACE", "llama-demo")
    monkeypatch.setenv("KUBE_VERSION", "1.30.1")
    given = [{"name": "validate", "string": "warn"}]
    monkeypatch.setenv("ARGOCD_APP_PARAMETERS", json.dumps(given))
    assert run_cli("argocd-generate").exit_code == 0
    monkeypatch.setenv("ARGOCD_APP_PARAMETERS", json.dumps([*given, {"name": "fail-on-warning", "string": "true"}]))
    done = run_cli("argocd-generate")
    assert done.exit_code == 1 and done.stderr.endswith(GONE_STRICT), done
    monkeypatch.setenv("ARGOCD_APP_PARAMETERS", json.dumps(given))
    monkeypatch.setenv("ARGOCD_ENV_OMERENDER_FAIL_ON_WARNING", "true")
    assert run_cli("argocd-generate").exit_code == 1


@pytest.mark.parametrize("as_generator", [False, True])
def test_krm_function_config(run_cli, app: Path, as_generator: bool) -> None:
    def config(**extra: str) -> dict[str, object]:
        data = {"paths": ".", "validate": "warn", "emit": "rendered", **extra}
        return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "fn"}, "data": data}

    def krm(function_config: dict[str, object]):
        if as_generator:
            (app / "fn.yaml").write_text(yaml.safe_dump(function_config), encoding="utf-8")
            return run_cli("krm", "fn.yaml")
        resource_list = {"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": []}
        return run_cli("krm", input=json.dumps({**resource_list, "functionConfig": function_config}))

    calm, strict = krm(config()), krm(config(failOnWarning="true"))
    assert calm.exit_code == 0 and strict.exit_code == 1 and strict.stderr.endswith(GONE_STRICT), strict
    if as_generator:
        assert strict.stdout == calm.stdout and strict.stdout
    else:  # the same items and results; the functionConfig echoed back is the one given
        got, was = yaml.safe_load(strict.stdout), yaml.safe_load(calm.stdout)
        assert (got["items"], got["results"]) == (was["items"], was["results"]) and got["items"]


def test_verbose_ends_with_one_summary_line(run_cli, app: Path) -> None:
    done = run_cli("build", ".", "--validate=warn", "-v")
    last = done.stderr.splitlines(keepends=True)[-1]
    assert done.exit_code == 0 and SUMMARY.fullmatch(last), done.stderr
    assert last == "omerender: 2 runtimes, 1 InferenceService, 6 objects, 0 errors, 1 warning\n"
    assert not SUMMARY.search(run_cli("build", ".", "--validate=warn").stderr)


def test_the_summary_stays_out_of_a_machine_report_on_stderr(run_cli, app: Path) -> None:
    done = run_cli("build", ".", "--validate=warn", "-v", "--report-format", "json")
    assert json.loads(done.stderr)["summary"]["warnings"] == 1  # stderr is exactly the JSON report
    to_file = run_cli("build", ".", "--validate=warn", "-v", "--report-format", "json", "--report-file", "r.json")
    assert SUMMARY.fullmatch(to_file.stderr), to_file.stderr


@pytest.mark.parametrize("command", [["status", "."], ["tree", "."], ["diff", ".", "."]])
def test_other_commands_summarise_too(run_cli, app: Path, command: list[str]) -> None:
    done = run_cli(*command, "--validate=warn", "-v")
    assert SUMMARY.fullmatch(done.stderr.splitlines(keepends=True)[-1]), done.stderr


def test_the_time_taken_is_shown_on_a_terminal_only() -> None:
    from omerender.cli.verdict import Tally

    counted = Tally(errors=3, warnings=5, runtimes=207, isvcs=148, objects=1412)
    line = "omerender: 207 runtimes, 148 InferenceServices, 1,412 objects, 3 errors, 5 warnings"
    assert counted.summary(None) == line
    assert counted.summary(1.25).endswith(" 5 warnings in 1.2 s")


def test_the_summary_counts_the_runs_own_runtimes_apart_from_the_search_paths(run_cli, app: Path) -> None:
    # the app's own runtime, and the demo's profile lent by a search path (acceptance on issue 33's repository:
    # 65 runtimes were counted where the PATHS held 6)
    lent = app.parent / "platform"
    lent.mkdir()
    (app / "profile.yaml").rename(lent / "profile.yaml")
    done = run_cli("build", ".", "--search-path", str(lent), "-o", "name", "-v")
    assert done.stderr.splitlines()[-1].startswith("omerender: 1 runtime (+1 from the search paths), 1 ")


def test_on_a_terminal_the_summary_says_how_long(app: Path) -> None:
    import os
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "omerender", "build", ".", "-v", "-o", "name"],
            cwd=app, stdout=subprocess.DEVNULL, stderr=follower, check=False, timeout=120,
        )  # fmt: skip
        os.close(follower)
        seen = b""
        while chunk := _read(leader):
            seen += chunk
    finally:
        os.close(leader)
    assert done.returncode == 1  # strict validation: the unknown field is an error
    assert re.search(rb"omerender: 2 runtimes, 1 InferenceService, 1 error, 0 warnings in \d+\.\d s\r?\n$", seen), seen


def _read(fd: int) -> bytes:
    import os

    try:
        return os.read(fd, 65536)
    except OSError:  # EIO: the terminal's other end is closed and everything was read
        return b""
