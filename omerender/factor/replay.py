"""Finishing a committed ``factor --in-place`` journal: only this tree's, only inside the PATHs, never over an edit.

``finish`` replays the journal of a tree whose lock is held (``journal.holding``) and removes it, or raises
``WriteError`` having changed nothing. It checks, before any rename:

* that the journal is this tree's (``foreign`` otherwise): the folder and its plan are real files, the plan is this
  version's (``journal_plan``), it names this tree's real path and the journal folder's device and inode, and every
  staged file still there is a regular file with the inode, change time and size recorded when it was written, and
  the bytes recorded (a commit, a copy or an archive gives new inodes and change times);
* that every target lies inside this run's PATHs and search paths, with no symlink on the way (``targets.locate``);
* that every target holds its text from before (it is replaced) or the staged text (the staged file is dropped):
  anything else is an edit made after the kill, named and never overwritten; and that every folder to write is
  writable.

The renames then go through descriptors opened without following symlinks (``targets.open_folder``). A journal
folder left empty (a run killed between removing the plan and the folder) is removed.
"""

from __future__ import annotations

import errno
import os
import shlex
import shutil
import stat
from dataclasses import dataclass

from omerender.errors import WriteError
from omerender.factor import journal_plan
from omerender.factor.journal_plan import JOURNAL, PLAN, Entry, Plan
from omerender.factor.targets import NotRegular, Target, Tree, locate, obstacles, open_folder, state, state_in

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def foreign(tree: Tree) -> WriteError:
    shown = tree.shown(JOURNAL)
    return WriteError(
        f"{shown}: not a journal omerender wrote for this tree (committed to a repository, copied, made by hand or by "
        "another version), so nothing was changed and factor did not run; if no factor --in-place of yours was "
        f"killed here, remove it (rm -r -- {shlex.quote(shown)}) and run again"
    )


def _read_plan(journal_fd: int) -> Plan | None:
    try:
        fd = os.open(PLAN, _FILE, dir_fd=journal_fd)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > journal_plan.MAX_BYTES:
            return None
        chunks, left = [], info.st_size + 1  # what fstat says, and one byte to see a plan that grew
        while left > 0 and (chunk := os.read(fd, left)):
            chunks.append(chunk)
            left -= len(chunk)
        return journal_plan.parse(b"".join(chunks))
    finally:
        os.close(fd)


def _ours(plan: Plan, tree: Tree, journal_fd: int) -> bool:
    """Whether the journal is the one this tree's run wrote: the tree's real path, the journal folder, and every
    staged file still there, each by inode (and a staged file by change time and size)."""
    info = os.fstat(journal_fd)
    if plan.tree != os.path.realpath(tree.folder) or (plan.device, plan.inode) != (info.st_dev, info.st_ino):
        return False
    for entry in plan.entries:
        try:
            staged = os.stat(entry.staged, dir_fd=journal_fd, follow_symlinks=False)
        except FileNotFoundError:
            continue  # already moved
        if not stat.S_ISREG(staged.st_mode) or staged.st_dev != info.st_dev:
            return False
        if (staged.st_ino, staged.st_ctime_ns, staged.st_size) != (entry.inode, entry.ctime_ns, entry.new.size):
            return False
    return True


@dataclass(frozen=True)
class _Step:
    entry: Entry
    target: Target
    move: bool  # False: the target already holds the staged text, the staged file is dropped


def _restart(tree: Tree) -> str:
    return f"remove the journal (rm -r -- {shlex.quote(tree.shown(JOURNAL))}) and run factor again"


def _conflict(shown: str, tree: Tree) -> str:
    return (
        f"{shown}: changed since a killed factor --in-place staged its new text (it holds neither its text from "
        f"before nor factor's), so factor does not overwrite it; to keep the change, {_restart(tree)}"
    )


def _check(plan: Plan, tree: Tree, journal_fd: int) -> tuple[list[_Step], list[str]]:
    """What replaying ``plan`` (this tree's) does, and why it cannot (nothing is changed when anything is)."""
    steps: list[_Step] = []
    problems: list[str] = []
    device = os.fstat(tree.fd).st_dev
    for entry in plan.entries:
        target = locate(entry.target, tree.roots)
        if isinstance(target, str):
            problems.append(f"{target}; run factor --in-place again with the PATHs of the killed run")
            continue
        try:
            now = state(target)
            staged = state_in(journal_fd, entry.staged)
        except NotRegular:
            problems.append(f"{target.shown}: no longer a regular file; factor does not replace it")
            continue
        if staged is not None and staged != entry.new:  # the same inode and change time, other bytes
            raise foreign(tree)
        if staged is None and now == entry.prior != entry.new:
            problems.append(f"{target.shown}: its staged text is missing from the journal; {_restart(tree)}")
        elif staged is None and now != entry.new:
            problems.append(_conflict(target.shown, tree))
        elif staged is not None and now == entry.prior:
            problems += obstacles(target, device, files=False)
            steps.append(_Step(entry, target, move=True))
        elif staged is not None and now == entry.new:
            steps.append(_Step(entry, target, move=False))
        elif staged is not None:
            problems.append(_conflict(target.shown, tree))
    return steps, list(dict.fromkeys(problems))


def _replay(steps: list[_Step], journal_fd: int) -> None:
    for step in steps:
        if not step.move:
            os.unlink(step.entry.staged, dir_fd=journal_fd)
            continue
        folder = open_folder(step.target, create=True)
        assert folder is not None
        try:
            os.replace(step.entry.staged, step.target.parts[-1], src_dir_fd=journal_fd, dst_dir_fd=folder)
        finally:
            os.close(folder)


def _empty(folder_fd: int) -> bool:
    with os.scandir(folder_fd) as entries:
        return next(entries, None) is None


def finish(tree: Tree) -> None:
    """Replay the committed journal of ``tree`` and remove it, or raise ``WriteError`` having changed nothing."""
    try:
        journal_fd = os.open(JOURNAL, _FOLDER, dir_fd=tree.fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):  # a symlink or a file: not a journal of omerender's
            raise foreign(tree) from None
        raise
    try:
        plan = _read_plan(journal_fd)
        if plan is None and _empty(journal_fd):  # killed while removing a finished journal: nothing to replay
            os.rmdir(JOURNAL, dir_fd=tree.fd)
            return
        if plan is None or not _ours(plan, tree, journal_fd):
            raise foreign(tree)
        steps, problems = _check(plan, tree, journal_fd)
        if problems:
            raise WriteError("; ".join(problems) + f"; nothing was changed, the journal {tree.shown(JOURNAL)} stays")
        _replay(steps, journal_fd)
    finally:
        os.close(journal_fd)
    shutil.rmtree(JOURNAL, dir_fd=tree.fd)
