"""The loader's folder-cached ``realpath`` of input files gives what ``os.path.realpath`` gives."""

from __future__ import annotations

import os
from pathlib import Path

from omerender.load.reader import _RealPaths


def test_each_file_resolves_as_realpath_does(tmp_path: Path, monkeypatch) -> None:
    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    (real / "a.yaml").write_text("x: 1\n")
    (real / "sub" / "b.yaml").write_text("x: 1\n")
    (tmp_path / "linked").symlink_to(real, target_is_directory=True)
    (real / "c.yaml").symlink_to(real / "sub" / "b.yaml")
    (real / "dangling.yaml").symlink_to(tmp_path / "nowhere.yaml")
    monkeypatch.chdir(real)
    names = [
        str(real / "a.yaml"),
        str(tmp_path / "linked" / "a.yaml"),
        str(tmp_path / "linked" / "sub" / ".." / "c.yaml"),
        str(real / "c.yaml"),
        str(real / "dangling.yaml"),
        str(real / "missing.yaml"),
        "a.yaml",
        "sub/b.yaml",
        "../linked/sub/b.yaml",
        str(real) + os.sep,
        ".",
        "..",
    ]
    paths = _RealPaths()
    for name in names + names:  # the second time from the folders remembered
        assert paths.file(name) == os.path.realpath(name), name
    assert len(paths.folders) < len(names)
