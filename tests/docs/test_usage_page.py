"""docs/usage.md lists exactly the keys a settings file takes, as the settings registry declares them."""

from __future__ import annotations

import re
from pathlib import Path

from omerender.settings import FILE_ONLY_KEYS, Route, for_route

PAGE = Path(__file__).resolve().parents[2] / "docs" / "usage.md"


def test_the_settings_file_keys_listed_are_the_registrys() -> None:
    text = " ".join(PAGE.read_text(encoding="utf-8").split())
    listed = re.search(r"The keys it takes: (.*?); a command ignores", text)
    assert listed is not None
    keys = [s.stem for s in for_route(Route.FILE) if not s.writes] + list(FILE_ONLY_KEYS)
    assert re.findall(r"`([a-z-]+)`", listed.group(1)) == keys
