"""The click layer: the only package that imports click, prints or exits.

Exit codes: 0 success (warnings allowed), 1 findings, 2 usage error, 3 internal error.
Each command family lives in its own module; this one only makes the group and names them. A family's module is
imported when one of its commands is looked up (``omerender build`` loads neither ``factor`` nor ``tree``);
``--help`` and shell completion look them all up.

May import: every stage.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping

import click

from omerender import __version__
from omerender.cli.examples import with_examples
from omerender.cli.params import ARGV_KEY
from omerender.cli.streams import exit_hard
from omerender.cli.verdict import TALLY_KEY, Tally

FAMILIES = {
    "build": "build",
    "status": "build",
    "factor": "factor",
    "tree": "forest",
    "graph": "forest",
    "argocd-generate": "gitops",
    "krm": "gitops",
    "effective": "lifecycle",
    "lock": "lifecycle",
    "diff": "lifecycle",
    "completion": "completion",
}
"""Each command's name -> the module of ``omerender.cli`` that defines it (in its ``COMMANDS``)."""


class _Commands(MutableMapping[str, click.Command]):
    """``main.commands``: every name in ``FAMILIES`` (and any added), each command made when first looked up."""

    def __init__(self) -> None:
        self._made: dict[str, click.Command] = {}
        self._names = set(FAMILIES)

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._made and name in FAMILIES:
            family = importlib.import_module(f"omerender.cli.{FAMILIES[name]}")
            for command in family.COMMANDS:
                self._made.setdefault(command.name or "", with_examples(command))
        return self._made[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._made[name] = command
        self._names.add(name)

    def __delitem__(self, name: str) -> None:
        self._names.discard(name)
        self._made.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._names))

    def __len__(self) -> int:
        return len(self._names)


class _Main(click.Group):
    """The ``omerender`` group: keeps the arguments as typed, for hints that repeat the command."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta[TALLY_KEY] = Tally()  # what the run reports and reads, counted from here (its clock too)
        ctx.meta[ARGV_KEY] = list(args)
        return super().parse_args(ctx, args)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 120})
@click.version_option(__version__, prog_name="omerender")
def main() -> None:
    """Resolve OME runtime inheritance offline and render what the OME controller would create.

    Exit codes: 0 success (warnings allowed), 1 findings, 2 usage error, 3 internal error.
    diff has its own: see omerender diff --help.
    """


main.commands = _Commands()
with_examples(main)


def run() -> None:
    """The console entry point (and ``python -m omerender``): ``main``, ended by ``exit_hard``."""
    exit_hard(main)
