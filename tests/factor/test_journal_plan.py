"""The plan of a factor journal read back from untrusted bytes: exactly the shape ``dump`` writes, or None."""

from __future__ import annotations

import json

import pytest

from omerender.factor.journal_plan import MAX_BYTES, Entry, Plan, dump, parse
from omerender.factor.targets import Digest, digest

PLAN = Plan(
    run="0123456789abcdef" * 2,
    tree="/work/tree",
    roots=("/work/tree", "/work/shared"),
    device=64768,
    inode=1234,
    entries=(
        Entry("0", "/work/tree/profiles/p.yaml", digest(b"new\n"), None, 77, 1_700_000_000_123_456_789),
        Entry("1", "/work/tree/r\u00e9\udcff.yaml", digest(b"b\n"), Digest(3, "f" * 64), 78, 1_700_000_000_123_456_789),
    ),
)


def test_a_plan_reads_back_as_written() -> None:
    assert parse(dump(PLAN)) == PLAN  # a file name that is not UTF-8 too (surrogate escapes)


def _edited(**changes: object) -> bytes:
    data = json.loads(dump(PLAN))
    data.update(changes)
    return json.dumps(data).encode("ascii")


def _entry(**changes: object) -> bytes:
    data = json.loads(dump(PLAN))
    data["entries"][0].update(changes)
    return json.dumps(data).encode("ascii")


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"0\t/home/victim/.bashrc\n",  # the format of earlier versions
        b"[" * 100_000 + b"]" * 100_000,
        b'{"inode": ' + b"9" * 5000 + b"}",
        b"\xff\xfe{}",
        _edited(format="omerender-factor-journal/1"),
        _edited(run="not hex"),
        _edited(tree="relative/tree"),
        _edited(tree="/work/../etc"),
        _edited(device=-1),
        _edited(inode=True),
        _edited(inode=2**64),
        _edited(roots="/work/tree"),
        _edited(extra=1),
        _entry(staged="../../x"),
        _entry(staged="01"),
        _entry(target="/work/tree/a/../../../etc/passwd"),
        _entry(target="/work/tree/x\u0000y"),
        _entry(target="/"),
        _entry(new={"size": 1, "sha256": "z" * 64}),
        _entry(prior={"size": 1}),
        _entry(inode="77"),
        _entry(staged="1"),  # two entries staged under one name
        _entry(target="/work/tree/r\u00e9\udcff.yaml"),  # two entries for one target
    ],
)
def test_anything_else_is_none_never_an_exception(data: bytes) -> None:
    assert parse(data) is None


def test_a_plan_over_the_cap_is_not_read() -> None:
    assert parse(dump(PLAN) + b" " * MAX_BYTES) is None
