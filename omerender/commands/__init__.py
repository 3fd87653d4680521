"""The use cases: one module per command, each ``run(request) -> Outcome``, between the core and the CLI.

A command's request is made once from the run's settings (``XRequest.from_settings(settings, paths)``), with the
rules every command shares (``commands.request``): where the lock file is, which inputs a search path only
resolves, the core's ``BuildOptions``, the ``-j`` default, the Kubernetes version to check with, and the outputs
that may not land in an input. ``run`` returns an ``Outcome`` (``commands.outcome``): the diagnostics to report,
what the command shows (its payload, typed) and a ``Verdict`` (the exit code). Nothing here imports click,
prints, exits or reads the environment: the CLI does, from the outcome. Internal errors stay exceptions,
which the CLI's guard turns into exit 3.

May import: every stage below it (the core, ``forest``, ``output``, ``factor``); not ``gitops`` or ``cli``.
"""
