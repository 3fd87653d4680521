"""A pull request's settings file and kustomizations, planted as a hostile contributor would, through each real route:
``argocd-generate`` in Argo CD's environment, ``krm`` under ``kpt fn eval --exec``, the command line and the parse
workers. What a refused file holds (another tenant's keys, its size) never reaches a message, and a refused target
gets the same words whether or not it exists (docs/security.md)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
import yaml
from gitops_helpers import FIXTURE, Proc, env_with_omerender, need, omerender, run

SECRET = "TENANT_B_DB_PASSWORD_9f3a"
TENANT_B = f"{SECRET}: hunter2\nnamespace: tenant-b\n"
DIGITS = "1" * 4301
REFUSED_SETTINGS = "leads out of the repository (a symlink); not read"
REFUSED_KUSTOMIZATION = "the kustomization file leads out of the repository (a symlink); not read"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with one Argo CD application (apps/llama, the example) and another tenant beside it."""
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root / "apps" / "llama")
    (root / ".git").mkdir()
    other = tmp_path / "tenant-b"
    other.mkdir()
    (other / "settings.yaml").write_text(TENANT_B)
    (other / "kustomization.yaml").write_text(TENANT_B + "#" * 3_000_000 + "\n")
    return root


def _generate(repo: Path, parameters: list[dict[str, object]] | None = None) -> Proc:
    env = {
        "ARGOCD_APP_NAME": "llama",
        "ARGOCD_APP_NAMESPACE": "llama-demo",
        "ARGOCD_APP_SOURCE_PATH": "apps/llama",
        "ARGOCD_APP_SOURCE_REPO_URL": "https://git.example/platform.git",
        "KUBE_VERSION": "1.30.1",
        "ARGOCD_APP_PARAMETERS": json.dumps(parameters or []),
    }
    return run(["omerender", "argocd-generate"], cwd=repo / "apps" / "llama", env=env_with_omerender(env))


def _kpt(repo: Path) -> Proc:
    """``kpt fn eval`` of the package ``pkg`` (a ConfigMap that reads apps/llama from disk), run from the repository
    root, where the settings file lies: kpt reads the package's files, omerender reads ``paths``."""
    kpt = need("kpt")
    pkg = repo / "pkg"
    pkg.mkdir(exist_ok=True)
    (pkg / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept\ndata:\n  a: b\n")
    config = repo / "fn-config.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "omerender"},
                "data": {"paths": "apps/llama", "emit": "rendered"},
            }
        )
    )
    return run(
        [kpt, "fn", "eval", "pkg", "--exec", "omerender krm", "--fn-config", str(config), "-o", "stdout"],
        cwd=repo,
    )


def _no_leak(proc: Proc) -> None:
    text = proc.out + proc.err
    assert SECRET not in text and "hunter2" not in text and "3000" not in text, proc
    assert "Traceback" not in text, proc


@pytest.mark.parametrize("target", ["../tenant-b/settings.yaml", "../tenant-b/missing.yaml", "/proc/self/environ"])
def test_argocd_refuses_a_settings_file_linked_out_of_the_repository(repo: Path, target: str) -> None:
    os.symlink(target, repo / ".omerender.yaml")
    proc = _generate(repo)
    assert proc.code == 2 and proc.out == "", proc
    assert proc.err == f"../../.omerender.yaml:1:1: error: [settings] .omerender.yaml {REFUSED_SETTINGS}: a settings " \
        "file is read only from inside the repository it configures\n", proc  # fmt: skip
    _no_leak(proc)


def test_argocd_settings_file_names_no_output_and_reads_nothing_outside(repo: Path) -> None:
    (repo / ".omerender.yaml").write_text(
        'report-format: [text, "text=../post-comment.sh"]\nsearch-path: [../tenant-b]\nlock-file: ../../x.lock\n'
    )
    proc = _generate(repo)
    assert proc.code == 2 and proc.out == "", proc
    assert [line.split(": error: ")[0] for line in proc.err.splitlines()] == [
        "../../.omerender.yaml:1:23",
        "../../.omerender.yaml:2:15",
        "../../.omerender.yaml:3:12",
    ], proc
    assert not (repo.parent / "post-comment.sh").exists()


@pytest.mark.parametrize("text", ['namespace: "a\x01b"\n', f"max-errors: {DIGITS}\n"])
def test_argocd_and_krm_locate_what_no_reader_takes_in_the_settings_file(repo: Path, text: str) -> None:
    (repo / ".omerender.yaml").write_text(text)
    generated = _generate(repo)
    assert generated.code == 2 and generated.err.startswith("../../.omerender.yaml:1:"), generated
    evaluated = _kpt(repo)
    assert evaluated.code != 0 and "Exit code: 2" in evaluated.err, evaluated
    for proc in (generated, evaluated):
        assert ".omerender.yaml:1:" in proc.err and "[yaml-syntax]" in proc.err, proc
        assert "internal error" not in proc.err, proc
        _no_leak(proc)


@pytest.mark.parametrize("at", ["kustomization.yaml", "sub/Kustomization"])
@pytest.mark.parametrize("target", ["tenant-b/kustomization.yaml", "tenant-b/missing.yaml"])
def test_argocd_refuses_a_kustomization_linked_out_of_the_repository(repo: Path, at: str, target: str) -> None:
    app = repo / "apps" / "llama"
    if at != "kustomization.yaml":
        names = sorted(p.name for p in app.glob("*.yaml"))
        (app / "kustomization.yaml").write_text(yaml.safe_dump({"resources": [*names, "sub"]}))
        (app / "sub").mkdir()
    os.symlink(os.path.relpath(repo.parent / target, (app / at).parent), app / at)
    proc = _generate(repo)
    assert proc.code == 1 and proc.out == "", proc
    assert proc.err == f"{at}:1:1: error: [kustomization] {REFUSED_KUSTOMIZATION}\n", proc
    _no_leak(proc)


def test_kpt_refuses_a_settings_file_linked_out_of_the_repository(repo: Path) -> None:
    os.symlink("../tenant-b/settings.yaml", repo / ".omerender.yaml")
    proc = _kpt(repo)
    assert proc.code != 0 and f".omerender.yaml:1:1: error: [settings] .omerender.yaml {REFUSED_SETTINGS}" in proc.err
    _no_leak(proc)
    os.unlink(repo / ".omerender.yaml")
    os.symlink("../tenant-b/missing.yaml", repo / ".omerender.yaml")
    missing = _kpt(repo)
    timing = re.compile(r" in \d+(?:\.\d+)?m?s\b")
    assert timing.sub("", missing.err) == timing.sub("", proc.err), (missing, proc)  # nothing tells if it exists


def test_kpt_refuses_a_kustomization_linked_out_of_the_repository(repo: Path) -> None:
    os.symlink("../../../tenant-b/kustomization.yaml", repo / "apps" / "llama" / "kustomization.yaml")
    proc = _kpt(repo)
    assert proc.code != 0 and f"[error]: {REFUSED_KUSTOMIZATION}\n" in proc.err and "Exit code: 1" in proc.err, proc
    _no_leak(proc)


def test_kpt_locates_a_number_no_reader_takes_in_a_package_file(repo: Path) -> None:
    (repo / "pkg").mkdir()
    (repo / "pkg" / "numbers.yaml").write_text(
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: numbers\ndata:\n  n: {DIGITS}\n"
    )
    proc = _kpt(repo)
    assert proc.code != 0 and "Exit code: 1" in proc.err, proc
    assert "<stdin>:" in proc.err and "a number of 4301 digits is too long to read" in proc.err, proc
    assert "internal error" not in proc.err, proc


def test_a_settings_file_linked_out_reads_the_same_whether_or_not_its_target_exists(repo: Path) -> None:
    said = []
    for target in ("../tenant-b/settings.yaml", "../tenant-b/missing.yaml"):
        os.symlink(target, repo / ".omerender.yaml")
        said.append(omerender("build", "apps/llama", cwd=repo))
        os.unlink(repo / ".omerender.yaml")
    assert said[0] == said[1] and said[0].code == 2, said
    _no_leak(said[0])


def test_report_format_into_an_input_is_refused_and_the_input_kept(repo: Path) -> None:
    isvc = repo / "apps" / "llama" / "isvc.yaml"
    before = isvc.read_bytes()
    for command in ("build", "status", "lock"):
        proc = omerender(command, "apps/llama", "--report-format", "junit=apps/llama/isvc.yaml", cwd=repo)
        assert proc.code == 2 and "is inside the input path apps/llama" in proc.err, proc
    assert isvc.read_bytes() == before
    assert not (repo / "apps" / "llama" / "omerender.lock").exists()


def test_the_lock_file_a_settings_file_names_is_written_only_inside_the_repository(repo: Path) -> None:
    elsewhere = repo.parent / "elsewhere"
    elsewhere.mkdir()
    os.symlink("../elsewhere", repo / "locks")
    for named in ("locks/omerender.lock", "../elsewhere/omerender.lock", str(elsewhere / "omerender.lock")):
        (repo / ".omerender.yaml").write_text(f"lock-file: {named}\n")
        proc = omerender("lock", "apps/llama", cwd=repo)
        assert proc.code == 2 and ".omerender.yaml:1:12: error: [settings] lock-file" in proc.err, proc
    assert list(elsewhere.iterdir()) == []
    (repo / ".omerender.yaml").write_text("lock-file: apps/omerender.lock\n")  # inside, no link: written
    assert omerender("lock", "apps/llama", cwd=repo).code == 0
    assert (repo / "apps" / "omerender.lock").is_file()


def test_parse_workers_locate_a_number_no_reader_takes(tmp_path: Path, run_cli, monkeypatch) -> None:
    from omerender.load import reader

    monkeypatch.setattr(reader, "PARSE_LEAST_BYTES", 0)  # the inputs are parsed in workers, however small
    tree = tmp_path / "tree"
    shutil.copytree(FIXTURE, tree)
    (tree / "numbers.yaml").write_text(f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: n\ndata:\n  n: {DIGITS}\n")
    result = run_cli("build", str(tree), "-j", "2")
    assert result.exit_code == 1 and result.stdout == "", result
    assert result.stderr == (
        f"{tree.as_posix()}/numbers.yaml:6:6: error: [yaml-syntax] invalid YAML: a number of 4301 digits is too long "
        "to read (at most 4300); quote it if it is text\n"
    )
