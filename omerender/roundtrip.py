"""Editing YAML files in place: the one ruamel.yaml round-trip set-up (the lock file, factor's rewrites).

A round trip keeps comments and key order (and, asked, the quoting of each string read). Every string is
written so that a YAML 1.1 reader (PyYAML, kubectl) reads it back as a string: one it would take for something
else (``on``, ``0x1f``, ``1.0``, ``~``) is quoted. ruamel.yaml is imported on first use: the CLI starts without it.
"""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING, Any, Literal

from omerender.data import Json

if TYPE_CHECKING:
    from ruamel.yaml import YAML

STR_TAG = "tag:yaml.org,2002:str"
WIDTH = 4096  # long strings stay on one line, as their authors wrote them


def round_trip(
    indent: tuple[int, int, int] = (2, 4, 2),
    *,
    quote: Literal["'", '"'] = "'",
    preserve_quotes: bool = False,
    also_quote: re.Pattern[str] | None = None,
) -> YAML:
    """A round trip that writes with ``indent`` (mapping, sequence, offset), and in ``quote`` marks each
    string a YAML 1.1 reader takes for another type or ``also_quote`` matches in full."""
    import yaml
    from ruamel.yaml import YAML
    from ruamel.yaml.representer import RoundTripRepresenter

    resolver = yaml.resolver.Resolver()

    class Representer(RoundTripRepresenter):
        """Quotes the strings a YAML 1.1 reader would take for something else."""

    def represent_str(rep: RoundTripRepresenter, data: str) -> Any:
        if data and (
            resolver.resolve(yaml.ScalarNode, data, (True, False)) != STR_TAG  # type: ignore[no-untyped-call]
            or (also_quote is not None and also_quote.fullmatch(data))
        ):
            return rep.represent_scalar(STR_TAG, data, style=quote)
        return rep.represent_str(data)

    Representer.add_representer(str, represent_str)
    rt = YAML()
    rt.Representer = Representer
    if preserve_quotes:
        rt.preserve_quotes = True
    rt.width = WIDTH
    rt.indent(mapping=indent[0], sequence=indent[1], offset=indent[2])
    return rt


def dump(rt: YAML, data: Json) -> str:
    """``data`` (a document ruamel read, changed or not) written by ``rt``, as text."""
    out = io.StringIO()
    rt.dump(data, out)
    return out.getvalue()
