"""A serving check's result before silencing (``Finding``), and what a check is (``Check``).

A check is a module with one ``CHECK``: the codes it reports and a function from the InferenceService's
``ServingView`` to its findings. ``registry.CHECKS`` lists them; adding a check is one module and one line there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from omerender.diagnostics import Severity
from omerender.verify.provenance import Place
from omerender.verify.serving.view import ServingView


@dataclass(frozen=True)
class Finding:
    """One problem: its code and usual severity, the message (what, what happens in the cluster, how to fix it) and
    where the value that causes it is written (None: at the InferenceService's component)."""

    code: str
    severity: Severity
    message: str
    place: Place | None
    component: str = "engine"


@dataclass(frozen=True)
class Check:
    codes: tuple[str, ...]
    run: Callable[[ServingView], Iterable[Finding]]
    always: bool = False  # runs whatever serving-checks says (an API-server rejection)
