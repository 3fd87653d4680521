"""What `factor --in-place` refuses before its journal commits, and what its recovery refuses before it replays
(issue 31): a target reached through a symlink or outside the PATHs, a folder it cannot write, a file where a folder
is needed. Each is exit 1 naming the path, with nothing written; fixing it and running again works.

Read-only folders are made with ``chmod``: factor refuses a folder whose owner write bit is off, as it refuses such a
file, so the tests mean the same when they run as root (who could write it anyway).
"""

from __future__ import annotations

import os
from pathlib import Path

from factor_fleet import build_output, fleet, killed_after_commit, listing
from use_cases import factor_shown

from omerender.commands.factor import Choices

JOURNAL = ".omerender-factor.journal"


def _contents(root: Path) -> dict[str, bytes | None]:
    return {p: (None if p.is_dir() else p.read_bytes()) for p in sorted(root.rglob("*"))}


def _refused(result: object, *wanted: str) -> None:
    text = str(result)
    assert getattr(result, "exit_code") == 1, text
    assert getattr(result, "stdout") == "" and "Traceback" not in text, text
    for part in wanted:
        assert part in getattr(result, "stderr"), (part, text)


def test_a_read_only_sub_folder_is_named_before_anything_is_written(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    runtimes = tree / "runtimes"
    before, built = _contents(tmp_path), build_output(tree)
    runtimes.chmod(0o555)
    try:
        result = factor_shown(tree, Choices(in_place=True))
        _refused(result, f"omerender: error: {runtimes}: the folder is read-only; make it writable")
        assert _contents(tmp_path) == before  # no profile, no journal: the tree is the old tree
    finally:
        runtimes.chmod(0o755)
    assert build_output(tree) == built
    again = factor_shown(tree, Choices(in_place=True))
    assert again.exit_code == 0, str(again)
    assert (tree / "profiles" / "sglang-profile.yaml").is_file() and build_output(tree) == built


def test_a_read_only_folder_above_a_folder_to_make_is_named(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    (tree / "shared").mkdir()
    (tree / "shared").chmod(0o500)
    before = _contents(tmp_path)
    try:
        result = factor_shown(tree, Choices(in_place=True, profiles_dir=str(tree / "shared" / "profiles")))
        _refused(result, f"{tree / 'shared'}: the folder is read-only")
        assert _contents(tmp_path) == before
    finally:
        (tree / "shared").chmod(0o755)


def test_a_file_where_a_folder_is_needed_is_named_before_anything_is_written(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    (tree / "profiles").write_text("notes, not a folder\n", encoding="utf-8")
    before = _contents(tmp_path)
    result = factor_shown(tree, Choices(in_place=True))
    _refused(result, f"omerender: error: {tree / 'profiles'}: not a folder, so factor cannot write")
    assert _contents(tmp_path) == before
    (tree / "profiles").unlink()
    assert factor_shown(tree, Choices(in_place=True)).exit_code == 0


def test_a_folder_reached_through_a_symlink_is_refused(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    (tree / "kept").mkdir()
    os.symlink("kept", tree / "profiles")  # inside the tree, but a write through it would land where it points
    before = _contents(tmp_path)
    result = factor_shown(tree, Choices(in_place=True))
    _refused(result, f"{tree / 'profiles' / 'sglang-profile.yaml'}: reached through the symlink {tree / 'profiles'}")
    assert _contents(tmp_path) == before


def test_a_symlink_out_of_the_tree_is_refused(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, tree / "profiles")
    before = _contents(tmp_path)
    _refused(factor_shown(tree, Choices(in_place=True)), f"{tree / 'profiles'}:1:1: error: [symlink-outside]")
    assert _contents(tmp_path) == before
    assert listing(outside) == []


def test_recovery_writes_only_inside_the_paths_it_is_given(tmp_path: Path) -> None:
    # the killed run wrote its profile on a --search-path; a run without it does not finish the journal
    tree = fleet(tmp_path / "tree")
    shared = tmp_path / "shared"
    shared.mkdir()
    journal = killed_after_commit(tree, "--search-path", str(shared), "--profiles-dir", str(shared / "p"))
    before = _contents(tmp_path)
    result = factor_shown(tree, Choices(in_place=True))
    _refused(
        result,
        f"{shared.resolve() / 'p' / 'sglang-profile.yaml'}: outside every PATH and --search-path",
        "run factor --in-place again with the PATHs of the killed run",
        f"the journal {journal} stays",
    )
    assert _contents(tmp_path) == before
    again = factor_shown(tree, Choices(in_place=True), search_path=(str(shared),))
    assert again.exit_code == 0, str(again)
    assert "finished the rewrite" in again.stderr and (shared / "p" / "sglang-profile.yaml").is_file()
    assert not journal.exists()
