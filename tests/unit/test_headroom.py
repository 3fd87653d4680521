"""omerender.headroom: without an address-space limit every answer is yes; under one, what fits is what can be
mapped now (tried in a subprocess that sets its own limit a measured amount above its own use)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from omerender import headroom

CHILD = """
import re, resource
from omerender import headroom
used = int(re.search(r"VmSize:\\s+(\\d+)", open("/proc/self/status").read()).group(1)) * 1024
limit = used + 100 * headroom.MiB  # room for one helper thread (80 MiB and 16 spare), not for two
resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
print(headroom.limited(), headroom.room(50 * headroom.MiB), headroom.room(200 * headroom.MiB))
print(headroom.threads_fit(4), headroom.threads_fit(0))
"""


def test_without_a_limit_everything_fits() -> None:
    if headroom.limited():
        pytest.skip("the suite itself runs under ulimit -v: the answers are measured there, not given")
    assert headroom.room(1 << 50) and headroom.threads_fit(4) == 4


def test_under_a_limit_what_fits_is_what_can_be_mapped() -> None:
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n") == ["True True False", "1 0", ""]
