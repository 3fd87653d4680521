"""What the wheel ships and says: the package metadata adopters' tools read, and every JSON schema.

The wheel is built once for this module, in-process with setuptools' PEP 517 backend (no build isolation, no
network), from a copy of the files the build reads, so the work tree is not touched.
"""

from __future__ import annotations

import email.parser
import shutil
import subprocess
import sys
import types
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD_INPUTS = ("pyproject.toml", "README.md", "LICENSE", "NOTICE", "MANIFEST.in", "CHANGELOG.md", "schemas")
BUILD_INPUTS += ("fixtures",)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    source = tmp_path_factory.mktemp("source")
    for name in BUILD_INPUTS:
        (shutil.copytree if (REPO / name).is_dir() else shutil.copy2)(REPO / name, source / name)
    shutil.copytree(REPO / "omerender", source / "omerender", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("dist")
    build = "import sys; from setuptools import build_meta; print(build_meta.build_wheel(sys.argv[1]))"
    done = subprocess.run(
        [sys.executable, "-c", build, str(out)], cwd=source, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return zipfile.ZipFile(out / done.stdout.strip().splitlines()[-1])


def _metadata(wheel: zipfile.ZipFile) -> email.message.Message:
    [name] = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    return email.parser.Parser().parsestr(wheel.read(name).decode("utf-8"))


def test_the_wheel_ships_every_schema_as_the_repository_holds_it(wheel: zipfile.ZipFile) -> None:
    shipped = {n.removeprefix("omerender/schemas/") for n in wheel.namelist() if n.startswith("omerender/schemas/")}
    for schema in sorted((REPO / "schemas").glob("*.json")):
        assert schema.name in shipped, f"{schema.name} is not in the wheel"
        packaged = REPO / "omerender" / "schemas" / schema.name
        assert wheel.read(f"omerender/schemas/{schema.name}") == packaged.read_bytes()
        assert packaged.read_bytes() == schema.read_bytes(), (
            f"omerender/schemas/{schema.name} differs from schemas/{schema.name}: copy it over"
        )
    assert "omerender-settings.schema.json" in shipped
    assert any(n.startswith("kubernetes/") for n in shipped), "the Kubernetes schemas --kube-version uses"


def test_the_wheel_says_what_adopters_tools_read(wheel: zipfile.ZipFile) -> None:
    meta = _metadata(wheel)
    classifiers = meta.get_all("Classifier") or []
    assert "Operating System :: POSIX" in classifiers
    assert not any("Windows" in c or c == "Operating System :: OS Independent" for c in classifiers)
    assert any(c.startswith("Programming Language :: Python :: 3.11") for c in classifiers)
    assert meta["Author"] or meta["Author-email"], "an author"
    urls = dict(line.split(", ", 1) for line in meta.get_all("Project-URL") or [])
    assert {"Homepage", "Documentation", "Changelog", "Issues"} <= set(urls), urls
    assert all(url.startswith("https://") for url in urls.values())
    assert meta["License-Expression"] == "Apache-2.0"
    assert meta["Requires-Python"] == ">=3.11"


def test_importing_on_windows_says_posix_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The package's first lines, run where os.name is Windows' ('nt'), stop the import and say why."""
    path = REPO / "omerender" / "__init__.py"
    code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
    exec(code, {"__name__": "omerender"})  # here (POSIX): nothing is raised
    monkeypatch.setitem(sys.modules, "os", types.SimpleNamespace(name="nt"))
    with pytest.raises(ImportError, match=r"POSIX systems only .* WSL"):
        exec(code, {"__name__": "omerender"})
