"""The plan of a ``factor --in-place`` journal: what it replaces, and who wrote it for which tree.

One JSON object, written by ``dump`` when the journal is staged and read back by ``parse`` before a replay. It holds
a random run id; the real path of the folder that holds the journal (the tree) and of the PATHs and search paths;
the device and inode of the journal folder; and per target its real path, the name of its staged file with that
file's inode and status-change time (``ctime``, in nanoseconds), the size and SHA-256 of the new text, and those of
the target before (``null``: there was none). Inodes and change times are what a commit to a repository, a copy or
an archive cannot carry: a checkout gets new ones, and no program can set a change time (the kernel sets it to the
time of each change). A journal with other ones is not this tree's and is never replayed.

``parse`` takes untrusted bytes: anything but a plan of exactly this shape (sizes, counts and numbers bounded) is
None, never an exception.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Any

from omerender.factor.targets import Digest

JOURNAL = ".omerender-factor.journal"
STAGE = f"{JOURNAL}.tmp"
PLAN = "plan"
FORMAT = "omerender-factor-journal/2"
MAX_ENTRIES = 100_000
MAX_BYTES = 64 << 20
_RUN = re.compile(r"[0-9a-f]{32}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_STAGED = re.compile(r"0|[1-9][0-9]{0,5}")
_KEYS = {"format", "run", "tree", "roots", "device", "inode", "entries"}
_ENTRY_KEYS = {"staged", "target", "new", "prior", "inode", "ctimeNs"}
_LIMIT = 1 << 64


@dataclass(frozen=True)
class Entry:
    staged: str  # the staged file's name in the journal
    target: str  # the real path it replaces
    new: Digest
    prior: Digest | None  # None: the target did not exist
    inode: int  # of the staged file, as written
    ctime_ns: int


@dataclass(frozen=True)
class Plan:
    run: str
    tree: str  # real path of the folder holding the journal
    roots: tuple[str, ...]  # real paths of the PATHs and search paths of the run
    device: int  # of the journal folder
    inode: int
    entries: tuple[Entry, ...]


def _digest(value: Digest | None) -> dict[str, Any] | None:
    return None if value is None else {"size": value.size, "sha256": value.sha256}


def dump(plan: Plan) -> bytes:
    data = {
        "format": FORMAT,
        "run": plan.run,
        "tree": plan.tree,
        "roots": list(plan.roots),
        "device": plan.device,
        "inode": plan.inode,
        "entries": [
            {
                "staged": e.staged,
                "target": e.target,
                "new": _digest(e.new),
                "prior": _digest(e.prior),
                "inode": e.inode,
                "ctimeNs": e.ctime_ns,
            }
            for e in plan.entries
        ],
    }
    return (json.dumps(data, ensure_ascii=True, sort_keys=True, indent=1) + "\n").encode("ascii")


class _Bad(Exception):
    pass


def _number(value: Any, low: int = 0) -> int:
    if type(value) is not int or not low <= value < _LIMIT:
        raise _Bad
    return value


def _path(value: Any) -> str:
    if not isinstance(value, str) or not os.path.isabs(value) or os.path.normpath(value) != value or "\0" in value:
        raise _Bad
    return value


def _read_digest(value: Any) -> Digest:
    if not isinstance(value, dict) or set(value) != {"size", "sha256"}:
        raise _Bad
    sha = value["sha256"]
    if not isinstance(sha, str) or not _SHA256.fullmatch(sha):
        raise _Bad
    return Digest(_number(value["size"]), sha)


def _entry(value: Any) -> Entry:
    if not isinstance(value, dict) or set(value) != _ENTRY_KEYS:
        raise _Bad
    staged, target = value["staged"], _path(value["target"])
    if not isinstance(staged, str) or not _STAGED.fullmatch(staged) or os.path.basename(target) in ("", ".", ".."):
        raise _Bad
    prior = None if value["prior"] is None else _read_digest(value["prior"])
    inode, ctime = _number(value["inode"]), _number(value["ctimeNs"], -_LIMIT)
    return Entry(staged, target, _read_digest(value["new"]), prior, inode, ctime)


def _plan(data: Any) -> Plan:
    if not isinstance(data, dict) or set(data) != _KEYS or data["format"] != FORMAT:
        raise _Bad
    run, roots, entries = data["run"], data["roots"], data["entries"]
    if not isinstance(run, str) or not _RUN.fullmatch(run):
        raise _Bad
    if not isinstance(roots, list) or not isinstance(entries, list) or max(len(roots), len(entries)) > MAX_ENTRIES:
        raise _Bad
    found = tuple(_entry(e) for e in entries)
    if len({e.staged for e in found}) != len(found) or len({e.target for e in found}) != len(found):
        raise _Bad
    return Plan(
        run, _path(data["tree"]), tuple(_path(r) for r in roots), _number(data["device"]), _number(data["inode"]), found
    )


def parse(data: bytes) -> Plan | None:
    """The plan in ``data`` (at most ``MAX_BYTES``), or None when it is not one of this shape."""
    if len(data) > MAX_BYTES:
        return None
    try:
        return _plan(json.loads(data.decode("ascii")))
    except (_Bad, UnicodeDecodeError, ValueError, RecursionError):
        return None
