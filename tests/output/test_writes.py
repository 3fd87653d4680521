"""Writes are safe: --output-dir swapped in whole, foreign files kept, stale ones removed, inputs never overwritten."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from omerender.errors import WriteError
from omerender.output import placing, writer

EXAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo"
DEPLOYMENT = "llama-demo/deployment-llama-3-2-3b-instruct-engine.yaml"


def _inputs(tmp_path: Path) -> Path:
    folder = tmp_path / "manifests"
    shutil.copytree(EXAMPLE, folder)
    return folder


def _tree(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): (f"-> {os.readlink(p)}" if p.is_symlink() else p.read_text(encoding="utf-8"))
        for p in sorted(folder.rglob("*"))
        if p.is_file() or p.is_symlink()
    }


def _siblings(folder: Path) -> list[str]:
    """Hidden leftovers beside the folder (the lock leaves no file: there is none)."""
    return sorted(
        p.name for p in folder.parent.iterdir() if p.name != folder.name and p.name.startswith(f".{folder.name}.")
    )


def test_output_dir_keeps_foreign_files_and_removes_stale_ones(run_cli, tmp_path: Path) -> None:
    inputs, out = _inputs(tmp_path), tmp_path / "out"
    assert run_cli("build", str(inputs), "--output-dir", str(out)).exit_code == 0
    first = _tree(out)
    assert DEPLOYMENT in first and writer.MANIFEST in first
    (out / "README.md").write_text("mine\n", encoding="utf-8")
    (out / "notes").mkdir()
    (out / "notes" / "todo.yaml").write_text("a: 1\n", encoding="utf-8")
    (out / "empty").mkdir()
    os.symlink("README.md", out / "link.md")
    # rename the InferenceService: its old Deployment is stale
    isvc = inputs / "isvc.yaml"
    isvc.write_text(
        isvc.read_text(encoding="utf-8").replace(
            "name: llama-3-2-3b-instruct\n  namespace", "name: renamed\n  namespace"
        ),
        encoding="utf-8",
    )
    assert run_cli("build", str(inputs), "--output-dir", str(out)).exit_code == 0
    second = _tree(out)
    assert DEPLOYMENT not in second and "llama-demo/deployment-renamed-engine.yaml" in second
    assert second["README.md"] == "mine\n" and second["notes/todo.yaml"] == "a: 1\n"
    assert second["link.md"] == "-> README.md" and (out / "empty").is_dir()
    assert DEPLOYMENT not in (out / writer.MANIFEST).read_text(encoding="utf-8")
    assert _siblings(out) == []


def test_failed_build_leaves_the_output_dir_untouched(run_cli, tmp_path: Path) -> None:
    inputs, out = _inputs(tmp_path), tmp_path / "out"
    assert run_cli("build", str(inputs), "--output-dir", str(out)).exit_code == 0
    before = _tree(out)
    (inputs / "runtime.yaml").write_text("kind: [broken\n", encoding="utf-8")
    result = run_cli("build", str(inputs), "--output-dir", str(out))
    assert result.exit_code == 1 and result.stdout == ""
    assert _tree(out) == before and _siblings(out) == []


def test_a_write_that_fails_halfway_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    writer.write_dir(str(out), {"a.yaml": "a: 1\n", "b.yaml": "b: 1\n"})
    before = _tree(out)
    real = placing.put_file
    calls = {"n": 0}

    def flaky(stage_fd: int, rel: str, data: bytes) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(28, "No space left on device")
        real(stage_fd, rel, data)

    monkeypatch.setattr(placing, "put_file", flaky)  # every file of the staging folder is written through it
    with pytest.raises(WriteError, match="No space left"):
        writer.write_dir(str(out), {"a.yaml": "a: 2\n", "c.yaml": "c: 2\n"})
    monkeypatch.undo()
    assert _tree(out) == before and _siblings(out) == []


def test_write_file_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "status.json"
    writer.write_file(str(target), "old\n")

    def broken_rename(*args: object, **kwargs: object) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(writer.os, "rename", broken_rename)  # the one rename that puts the new file in place
    with pytest.raises(WriteError, match="Input/output error"):
        writer.write_file(str(target), "new\n")
    monkeypatch.undo()
    assert target.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["status.json"]


def test_status_file_is_written_whole(run_cli, tmp_path: Path) -> None:
    inputs, status = _inputs(tmp_path), tmp_path / "status" / "runtimes.json"
    status.parent.mkdir()  # a missing folder is a user error (tests/hostile/status-file-missing-folder)
    result = run_cli("build", str(inputs), "--status-file", str(status))
    assert result.exit_code == 0, result
    listing = json.loads(status.read_text(encoding="utf-8"))
    assert listing["kind"] == "List" and len(listing["items"]) == 2
    assert sorted(p.name for p in status.parent.iterdir()) == ["runtimes.json"]


@pytest.mark.parametrize(
    ("option", "where", "message"),
    [
        (
            "--output-dir",
            "manifests/rendered",
            "--output-dir {p}/manifests/rendered is inside the input path {p}/manifests",
        ),
        ("--output-dir", "manifests", "--output-dir {p}/manifests is the input path {p}/manifests"),
        ("--output-dir", ".", "--output-dir {p} holds the input path {p}/manifests; refusing to rewrite it"),
        (
            "--status-file",
            "manifests/runtime.yaml",
            "--status-file {p}/manifests/runtime.yaml is inside the input path {p}/manifests",
        ),
        (
            "--status-file",
            "manifests/status.yaml",
            "--status-file {p}/manifests/status.yaml is inside the input path {p}/manifests",
        ),
    ],
)
def test_refuses_to_write_into_the_inputs(run_cli, tmp_path: Path, option: str, where: str, message: str) -> None:
    inputs = _inputs(tmp_path)
    before = _tree(inputs)
    result = run_cli("build", str(inputs), option, str(tmp_path / where))
    assert result.exit_code == 2 and result.stdout == ""
    assert message.format(p=tmp_path) in result.stderr and "--allow-output-in-input" in result.stderr
    assert _tree(inputs) == before


def test_output_in_input_when_allowed(run_cli, tmp_path: Path) -> None:
    inputs = _inputs(tmp_path)
    result = run_cli("build", str(inputs), "--output-dir", str(inputs / "rendered"), "--allow-output-in-input")
    assert result.exit_code == 0, result
    assert (inputs / "rendered" / DEPLOYMENT).is_file()
    # rendered objects are not OME kinds, so reading them back changes nothing
    again = run_cli("build", str(inputs), "--output-dir", str(inputs / "rendered"), "--allow-output-in-input")
    assert again.exit_code == 0 and again.stderr == ""


def test_json_status_file_beside_the_inputs_is_fine(run_cli, tmp_path: Path) -> None:
    inputs = _inputs(tmp_path)
    result = run_cli("build", str(inputs), "--status-file", str(inputs / "status.json"))
    assert result.exit_code == 0, result


def test_check_mode_writes_nothing_so_any_folder_is_fine(run_cli, tmp_path: Path) -> None:
    inputs = _inputs(tmp_path)
    result = run_cli("build", str(inputs), "--output-dir", str(inputs / "rendered"), "--check")
    assert result.exit_code == 1 and "is out of date" in result.stderr
    assert not (inputs / "rendered").exists()


def test_a_symlink_to_the_inputs_is_caught(run_cli, tmp_path: Path) -> None:
    inputs = _inputs(tmp_path)
    os.symlink(inputs, tmp_path / "alias")
    result = run_cli("build", str(inputs), "--output-dir", str(tmp_path / "alias" / "out"))
    assert result.exit_code == 2 and "is inside the input path" in result.stderr


def test_written_files_and_folders_get_the_usual_modes(tmp_path) -> None:
    import os
    import stat

    from omerender.output.writer import write_dir, write_file

    old = os.umask(0o022)
    try:
        write_file(str(tmp_path / "status.json"), "{}\n")
        write_dir(str(tmp_path / "out"), {"a/b.yaml": "x: 1\n"})
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "status.json").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "out").stat().st_mode) == 0o755


def test_a_report_file_inside_an_input_folder_is_refused(run_cli, tmp_path) -> None:
    import shutil
    from pathlib import Path

    manifests = tmp_path / "manifests"
    shutil.copytree(Path(__file__).resolve().parents[2] / "fixtures" / "llama-demo", manifests)
    result = run_cli("build", str(manifests), "--report-file", str(manifests / "report.yaml"))
    assert result.exit_code == 2 and result.stdout == ""
    assert "--report-file" in result.stderr and "refusing to write there" in result.stderr
    assert not (manifests / "report.yaml").exists()


@pytest.mark.parametrize("where", ["missing/dir/s.yaml", "afile/s.yaml"])
def test_an_unwritable_status_file_is_a_one_line_user_error(run_cli, tmp_path: Path, where: str) -> None:
    inputs = _inputs(tmp_path)
    (tmp_path / "afile").write_text("not a folder\n", encoding="utf-8")
    target = tmp_path / where
    result = run_cli("build", str(inputs), "--status-file", str(target))
    assert result.exit_code == 1, result
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"omerender: error: {target}: cannot "), result
    assert not (tmp_path / "missing").exists()
