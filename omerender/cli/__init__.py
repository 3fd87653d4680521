"""The click layer: the only package that imports click, prints or exits.

Exit codes: 0 success (warnings allowed), 1 findings, 2 usage error, 3 internal error.
Each command family lives in its own module; this one only makes the group and registers them.

May import: every stage.
"""

from __future__ import annotations

import click

from omerender import __version__
from omerender.cli import build, completion, factor, forest, gitops, lifecycle
from omerender.cli.common import ARGV_KEY, exit_hard


class _Main(click.Group):
    """The ``omerender`` group: keeps the arguments as typed, for hints that repeat the command."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta[ARGV_KEY] = list(args)
        return super().parse_args(ctx, args)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 120})
@click.version_option(__version__, prog_name="omerender")
def main() -> None:
    """Resolve OME runtime inheritance offline and render what the OME controller would create.

    Exit codes: 0 success (warnings allowed), 1 findings, 2 usage error, 3 internal error.
    diff has its own: see omerender diff --help.
    """


for _family in (build, factor, forest, gitops, lifecycle, completion):
    for _command in _family.COMMANDS:
        main.add_command(_command)


def run() -> None:
    """The console entry point (and ``python -m omerender``): ``main``, ended by ``exit_hard``."""
    exit_hard(main)
