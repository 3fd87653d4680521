"""``omerender completion bash|zsh|fish``: the shell script that completes commands, options and values."""

from __future__ import annotations

import click

SHELLS = ("bash", "zsh", "fish")
COMPLETE_VAR = "_OMERENDER_COMPLETE"
PROG_NAME = "omerender"


@click.command(short_help="Print a shell completion script (bash, zsh or fish).")
@click.argument("shell", type=click.Choice(SHELLS))
@click.pass_context
def completion(ctx: click.Context, shell: str) -> None:
    """Print the completion script for SHELL; load it in the shell to complete commands and options.

    \b
    bash:  source <(omerender completion bash)     (or save it in ~/.local/share/bash-completion/completions/omerender)
    zsh:   source <(omerender completion zsh)      (after compinit)
    fish:  omerender completion fish > ~/.config/fish/completions/omerender.fish
    """
    from click.shell_completion import get_completion_class

    cls = get_completion_class(shell)
    if cls is None:  # click knows all three; kept for a click that drops one
        raise click.UsageError(f"no completion for {shell}")
    root = ctx.find_root().command
    click.echo(cls(root, {}, PROG_NAME, COMPLETE_VAR).source(), nl=False)


COMMANDS = (completion,)
