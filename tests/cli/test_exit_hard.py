"""The console entry ends the process without the interpreter's teardown: exit codes and output must survive it."""

from __future__ import annotations

import subprocess
import sys

import pytest

CASES = [
    ("print('x' * 200000, end='')", 0, 200000, ""),  # buffered stdout is flushed before the hard exit
    ("sys.exit(2)", 2, 0, ""),
    ("sys.exit(None)", 0, 0, ""),
    ("sys.exit('omerender: gone')", 1, 0, "omerender: gone\n"),
    ("sys.stderr.write('note'); sys.exit(1)", 1, 0, "note"),
]


@pytest.mark.parametrize(("body", "code", "out", "err"), CASES)
def test_exit_hard_keeps_codes_and_output(body: str, code: int, out: int, err: str) -> None:
    script = f"import sys\nfrom omerender.cli.streams import exit_hard\ndef main():\n    {body}\nexit_hard(main)\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert (done.returncode, len(done.stdout), done.stderr) == (code, out, err)


def test_kept_values_are_held_only_under_the_hard_exit() -> None:
    from omerender.cli import streams

    assert streams._kept is None  # CliRunner and library use: nothing is held, nothing leaks across builds
    streams.keep_to_exit(object())
    assert streams._kept is None
