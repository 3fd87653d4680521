"""New profiles keep the line endings of the files their children came from (issue 33): CRLF in, CRLF out; when the
files differ, the ending most of them use, LF on a tie."""

from __future__ import annotations

from pathlib import Path

import pytest
from factor_fleet import RUNTIME, build_output, fleet


def _profile(tree: Path) -> bytes:
    return (tree / "profiles" / "sglang-profile.yaml").read_bytes()


def _third(tree: Path, newline: str) -> None:
    text = RUNTIME.format(name="sglang-large", lo="10B", hi="20B", tp=4).replace("\n", newline)
    (tree / "runtimes" / "sglang-large.yaml").write_bytes(text.encode("utf-8"))


@pytest.mark.parametrize(
    ("endings", "expected"),
    [
        (("\r\n", "\r\n"), "\r\n"),  # every child CRLF: the profile too
        (("\n", "\n"), "\n"),
        (("\r\n", "\n"), "\n"),  # a tie: LF
        (("\r\n", "\n", "\r\n"), "\r\n"),  # most of them CRLF
        (("\n", "\r\n", "\n"), "\n"),
    ],
)
def test_a_profile_takes_the_line_endings_of_its_children(
    run_cli, tmp_path: Path, endings: tuple[str, ...], expected: str
) -> None:
    tree = fleet(tmp_path / "tree")
    for path, newline in zip(sorted((tree / "runtimes").iterdir()), endings, strict=False):
        path.write_bytes(path.read_bytes().replace(b"\n", newline.encode()))
    if len(endings) == 3:
        _third(tree, endings[2])
    before = build_output(tree)
    result = run_cli("factor", str(tree), "--in-place", "--no-class-profiles")
    assert result.exit_code == 0, str(result)
    data = _profile(tree)
    lines = data.count(b"\n")
    assert lines > 10
    assert data.count(b"\r\n") == (lines if expected == "\r\n" else 0)
    assert b"\r\r" not in data
    assert build_output(tree) == before


def test_output_dir_writes_the_profile_with_the_line_endings_of_its_children(run_cli, tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree", newline="\r\n")
    result = run_cli("factor", str(tree), "--output-dir", str(tmp_path / "out"))
    assert result.exit_code == 0, str(result)
    written = (tmp_path / "out" / "profiles" / "sglang-profile.yaml").read_bytes()
    assert written.count(b"\n") == written.count(b"\r\n") > 10
