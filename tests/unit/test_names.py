"""The DNS-1123 name rules accept whole names only: a pattern ending in ``$`` also matches before a final newline,
so each rule is checked with ``fullmatch`` (a name read from YAML can end in one: ``name: |``)."""

from __future__ import annotations

import pytest

from omerender.names import is_dns_label, is_dns_subdomain, qualified_name_problem


@pytest.mark.parametrize("name", ["a", "abc", "a-b", "0", "x" * 63])
def test_dns_labels_accepted(name: str) -> None:
    assert is_dns_label(name)
    assert is_dns_subdomain(name)


@pytest.mark.parametrize("name", ["abc\n", "a-b\n", "\nabc", "abc\r", "a.b\n", "", "-a", "a-", "A", "x" * 64])
def test_dns_labels_refused(name: str) -> None:
    assert not is_dns_label(name)


@pytest.mark.parametrize("name", ["a.b", "ome.io", "a-b.c-d", "x" * 253])
def test_dns_subdomains_accepted(name: str) -> None:
    assert is_dns_subdomain(name)


@pytest.mark.parametrize("name", ["ome.io\n", "abc\n", "a..b", ".a", "a.", "A.b", "x" * 254])
def test_dns_subdomains_refused(name: str) -> None:
    assert not is_dns_subdomain(name)


def test_qualified_name_part_refuses_a_trailing_newline() -> None:
    assert qualified_name_problem("app\n") is not None
    assert qualified_name_problem("ome.io\n/app") is not None
