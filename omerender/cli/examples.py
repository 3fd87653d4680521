"""The ``Examples:`` and ``Docs:`` lines at the end of each ``--help`` page, as kubectl ends its own.

One table, applied by ``cli/__init__.py`` as each command is made: a command's examples and the page of the
docs that explains it (a path under ``constants.DOCS_URL``, the docs on the forge: the README is not installed).
docs/cli.md shows the same lines (scripts/cli_reference.py), and tests/docs/test_help_pages.py parses every
example with the real commands and checks that every page and anchor named here exists under docs/.

May import: the shared constants only (it is loaded whenever a command is looked up).
"""

from __future__ import annotations

import textwrap
from typing import TypeVar

import click

from omerender.constants import DOCS_URL

C = TypeVar("C", bound=click.Command)
TOOL = "omerender"  # the key of the tool's own examples and page (its --help)

EXAMPLES: dict[str, str] = {
    "omerender": """
# Render the bundled example, then show each runtime's chain
omerender build fixtures/llama-demo
omerender status fixtures/llama-demo

# What a change rolls out, against the base branch
omerender diff --against origin/main manifests
""",
    "build": """
# Render the example as a YAML stream (-o json: one v1 List; -o name: names only)
omerender build fixtures/llama-demo

# One file per object, written atomically
omerender build manifests --output-dir rendered

# In CI: exit 1 when the committed folder is out of date
omerender build manifests --output-dir rendered --check

# Shared runtimes, read only to resolve parents
omerender build apps/llama --search-path platform/runtimes

# Annotations in a GitHub log, and a SARIF file for code scanning
omerender build manifests --report-format github --report-format sarif=omerender.sarif
""",
    "status": """
# Each runtime's chain and InheritanceReady
omerender status fixtures/llama-demo

# Add the last chain that resolved, and FILE:LINE
omerender status fixtures/llama-demo -o wide

# A v1 List carrying status.inheritanceChain and the condition
omerender status fixtures/llama-demo -o json
""",
    "effective": """
# The runtime, revision and drift of one InferenceService
omerender effective llama-3-2-3b-instruct -n llama-demo fixtures/llama-demo

# Its chain and merged spec, each field with the runtime that set it
omerender effective llama-demo/llama-3-2-3b-instruct fixtures/llama-demo -o yaml --show-origin
""",
    "lock": """
# Record every InferenceService's runtime revision in omerender.lock
omerender lock manifests

# In CI or pre-commit: exit 1 when the lock is out of date
omerender lock manifests --check

# Move a pinned InferenceService to its runtime's live spec
omerender lock manifests --roll-forward llama-demo/llama-3-2-3b-instruct
""",
    "diff": """
# Two trees
omerender diff old new

# The working tree against the base branch, as a pull-request comment
omerender diff --against origin/main manifests -o markdown

# Several roots on each side
omerender diff --old apps --old platform --new apps2 --new platform2
""",
    "tree": """
# The inheritance forest of the example
omerender tree fixtures/llama-demo

# One InferenceService's chain
omerender tree fixtures/llama-demo --isvc llama-demo/llama-3-2-3b-instruct

# Only what InferenceServices use, with a count per runtime
omerender tree manifests --used-only --collapse-isvcs
""",
    "graph": """
# A Mermaid flowchart, for markdown
omerender graph fixtures/llama-demo

# Graphviz DOT of what InferenceServices use
omerender graph manifests -o dot --used-only

# An SVG picture (needs Graphviz's dot)
omerender graph manifests -o svg > forest.svg
""",
    "factor": """
# The plan and the diff of every file; writes nothing
omerender factor runtimes --dry-run --diff

# The whole tree, rewritten into a new folder
omerender factor runtimes --output-dir factored

# Rewrite in place; the proof covers the rest of the repository too
omerender factor runtimes --in-place --search-path apps
""",
    "argocd-generate": """
# What the plugin runs in the application's folder
omerender argocd-generate

# The same by hand, with one parameter as Argo CD passes it
ARGOCD_APP_PARAMETERS='[{"name":"emit","array":["rendered"]}]' omerender argocd-generate fixtures/llama-demo
""",
    "krm": """
# As a kpt function: the package, plus what is rendered for it
kpt fn eval pkg --exec "omerender krm"

# As a kustomize exec generator plugin, given its config file
omerender krm omerender.yaml
""",
    "completion": """
# Complete commands and options in this bash session
source <(omerender completion bash)

# Install for fish
omerender completion fish > ~/.config/fish/completions/omerender.fish
""",
}
"""Each command (``omerender``: the tool) -> its examples, run from a clone's root: a comment, then commands."""

DOCS: dict[str, str] = {
    "omerender": "README.md",
    "build": "usage.md",
    "status": "usage.md#status",
    "effective": "lifecycle.md#effective-the-runtime-an-inferenceservice-uses",
    "lock": "lifecycle.md#the-lock-file",
    "diff": "lifecycle.md#diff-what-a-change-rolls-out",
    "tree": "forest.md#tree",
    "graph": "forest.md#graph",
    "factor": "factor.md",
    "argocd-generate": "integrations.md#argo-cd-config-management-plugin-v2-sidecar",
    "krm": "integrations.md#kpt-and-kustomize-krm-function",
    "completion": "usage.md#shell-completion",
}
"""Each command -> the page (and section) of docs/ that explains it."""


def docs_url(name: str) -> str:
    """Where ``name`` (a command, or ``omerender`` for the whole tool) is documented."""
    return DOCS_URL + DOCS.get(name, DOCS["omerender"])


def examples(name: str) -> list[str]:
    """``name``'s examples, one paragraph each: a comment line, then one or more command lines."""
    return [block.strip("\n") for block in EXAMPLES.get(name, "").split("\n\n") if block.strip()]


def epilog(name: str) -> str:
    """The text after the options of ``name``'s help: ``Examples:`` (indented as kubectl indents them), then the
    docs URL. Each paragraph starts with click's ``\\b``, so none is rewrapped: a command line or a URL broken
    in two could not be copied."""
    paragraphs = [textwrap.indent(block, "  ") for block in examples(name)]
    if paragraphs:
        paragraphs[0] = "Examples:\n" + paragraphs[0]
    return "\n\n".join(f"\b\n{paragraph}" for paragraph in [*paragraphs, f"Docs: {docs_url(name)}"])


def with_examples(command: C) -> C:
    """``command`` with its examples and docs URL as its epilog (the group: the tool's own, ``omerender``)."""
    command.epilog = epilog(TOOL if isinstance(command, click.Group) else command.name or TOOL)
    return command
