"""Where `.omerender.yaml` is looked for: from the first PATH up to the repository root (the folder holding
`.git`), or, outside any repository, up to the working folder; a settings file above either is never read."""

from __future__ import annotations

from pathlib import Path

from gitops_helpers import FIXTURE, Proc, omerender

from omerender.load import settings_file

BAD = "validate: banana\n"  # read, it is a settings error (exit 2): a run that exits 0 did not read it


def _app(folder: Path) -> Path:
    app = folder / "apps" / "llama"
    app.mkdir(parents=True)
    for source in FIXTURE.glob("*.yaml"):
        (app / source.name).write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    return app


def _build(*args: str, cwd: Path) -> Proc:
    return omerender("build", *args, "-o", "name", cwd=cwd)


def test_a_settings_file_above_the_repository_is_never_read(tmp_path: Path) -> None:
    (tmp_path / ".omerender.yaml").write_text(BAD, encoding="utf-8")
    repo = tmp_path / "repo"
    app = _app(repo)
    (repo / ".git").mkdir()
    for cwd, path in ((repo, "apps/llama"), (app, "."), (tmp_path, "repo/apps/llama")):
        proc = _build(path, cwd=cwd)
        assert proc.code == 0 and "banana" not in proc.err, (cwd, proc)
    (repo / ".omerender.yaml").write_text(BAD, encoding="utf-8")  # the repository's own is read, from anywhere
    for cwd, path in ((repo, "apps/llama"), (app, "."), (tmp_path, "repo/apps/llama")):
        proc = _build(path, cwd=cwd)
        assert proc.code == 2 and "banana" in proc.err, (cwd, proc)


def test_outside_a_repository_the_search_stops_at_the_working_folder(tmp_path: Path) -> None:
    (tmp_path / ".omerender.yaml").write_text(BAD, encoding="utf-8")
    work = tmp_path / "work"
    app = _app(work)
    assert _build("apps/llama", cwd=work).code == 0  # the file above the working folder is not read
    assert _build(str(app), cwd=app).code == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert _build(str(app), cwd=elsewhere).code == 0  # not under the working folder: only the PATH's own folder
    (work / ".omerender.yaml").write_text(BAD, encoding="utf-8")
    assert _build("apps/llama", cwd=work).code == 2  # in the working folder: read
    assert _build(str(app), cwd=elsewhere).code == 0
    (app / ".omerender.yaml").write_text(BAD, encoding="utf-8")
    assert _build(str(app), cwd=elsewhere).code == 2


def test_find_stops_at_the_repository_root_or_the_route_s_root(tmp_path: Path) -> None:
    (tmp_path / ".omerender.yaml").write_text("validate: warn\n", encoding="utf-8")
    repo = tmp_path / "repo"
    (repo / "apps").mkdir(parents=True)
    (repo / ".git").write_text("gitdir: ../elsewhere\n", encoding="utf-8")  # a worktree's .git is a file
    assert settings_file.find([str(repo / "apps")]) is None
    assert settings_file.find([str(repo / "apps")], top=str(tmp_path)) is None  # the repository is nearer
    (repo / ".git").unlink()
    assert settings_file.find([str(repo / "apps")], top=str(repo)) is None
    found = settings_file.find([str(repo / "apps")], top=str(tmp_path))
    assert found is not None and Path(found).resolve() == tmp_path / ".omerender.yaml"
