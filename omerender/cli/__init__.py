"""The click layer: the only package that imports click, prints or exits.

Exit codes: 0 success (warnings allowed), 1 findings, 2 usage error, 3 internal error.
Each command family lives in its own module; this one only makes the group and registers them.
"""

from __future__ import annotations

import click

from omerender import __version__
from omerender.cli import build, factor, gitops, lifecycle


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="omerender")
def main() -> None:
    """Resolve OME runtime inheritance offline and render what the OME controller would create.

    Exit codes: 0 success (warnings allowed), 1 findings, 2 usage error, 3 internal error.
    diff has its own: see omerender diff --help.
    """
    from omerender.admission import compiled as compiled_schema
    from omerender.cli.common import validator_cache_dir

    compiled_schema.set_cache_dir(validator_cache_dir())


for _family in (build, factor, gitops, lifecycle):
    for _command in _family.COMMANDS:
        main.add_command(_command)
