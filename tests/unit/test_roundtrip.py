"""The one ruamel.yaml round trip: comments kept, and every string read back as a string by a YAML 1.1 reader."""

from __future__ import annotations

import re

import yaml

from omerender.roundtrip import dump, round_trip

TEXT = "# kept\nname: yes  # on the line\nlist:\n  - 31\n  - plain\n"


def test_look_alikes_are_quoted_in_the_marks_asked_and_comments_stay() -> None:
    rt = round_trip()
    data = rt.load(TEXT)
    data["name"], data["list"][0] = "on", "0x1f"
    single = dump(rt, data)
    assert single.startswith("# kept\nname: 'on' # on the line\n")
    assert "  - '0x1f'\n  - plain\n" in single
    double = dump(round_trip(quote='"'), data)
    assert 'name: "on"' in double and '- "0x1f"' in double
    assert yaml.safe_load(single) == yaml.safe_load(double) == {"name": "on", "list": ["0x1f", "plain"]}


def test_also_quote_quotes_strings_a_reader_takes_as_strings_anyway() -> None:
    data = {"version": "1.0.0", "name": "plain"}
    assert dump(round_trip(), data) == "version: 1.0.0\nname: plain\n"
    assert dump(round_trip(quote='"', also_quote=re.compile(r"[0-9.]+")), data) == 'version: "1.0.0"\nname: plain\n'


def test_the_indent_and_the_quotes_read_are_kept_when_asked() -> None:
    text = "a:\n    b:\n      - 'x'\n      - y\n"
    rt = round_trip((4, 4, 2), preserve_quotes=True)
    assert dump(rt, rt.load(text)) == text
    assert dump(round_trip(), round_trip().load(text)) == "a:\n  b:\n    - x\n    - y\n"
