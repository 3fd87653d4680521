"""The one table printer: status, status -o wide, effective --show-origin and factor's report all use it."""

from __future__ import annotations

from omerender.output.table import columns


def test_columns_are_as_wide_as_their_widest_cell_and_lines_end_without_blanks() -> None:
    rows = [("NAME", "READY", "REASON"), ("a-long-name", "True", ""), ("b", "False", "ParentNotFound")]
    assert columns(rows) == ("NAME          READY   REASON\na-long-name   True\nb             False   ParentNotFound\n")


def test_the_gap_is_the_caller_s_and_no_rows_print_nothing() -> None:
    assert columns([["FIELD", "ORIGIN"], ["x", "profile"]], "  ") == "FIELD  ORIGIN\nx      profile\n"
    assert columns([]) == ""
