"""``--kube-version`` (and Argo CD's ``KUBE_VERSION``): every accepted form, read in this one place.

Accepted: ``1.29``, ``v1.29``, ``1.29+`` (Argo CD on managed clusters), ``v1.31.1+k3s1``,
``1.30.2-eks-abc`` and ``none`` (skip the check). Only ``major.minor`` matters: schemas change
between minor releases, not patches. The rule for a release no schemas are installed for, the same
in ``build``, ``status`` and ``argocd-generate``:

- newer than the newest installed: the newest (schemas only grow between releases);
- older than the oldest installed: the oldest, with a warning (a cluster that old cannot be
  checked more closely, and refusing would break every Argo CD application on it);
- a release between two installed ones cannot happen (every minor release is shipped).

Pure and light (``re`` and the error base only), so the CLI can read the option before loading anything heavy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from omerender.constants import KUBE_VERSION_FORMS, KUBE_VERSION_PATTERN
from omerender.errors import UsageError

SKIP_WORDS = ("none", "off")
FORMS = KUBE_VERSION_FORMS
_FORM = re.compile(KUBE_VERSION_PATTERN)  # the settings schema says the same (omerender.settings)


class KubeVersionError(UsageError):
    """A version that is not one of the accepted forms, or no schemas to check with."""


@dataclass(frozen=True)
class Choice:
    """The installed schemas to check with (``None``: skip) and a warning to show, if any."""

    version: str | None
    warning: str = ""


def parse(text: str) -> tuple[int, int] | None:
    """``(major, minor)`` of ``text``, or None for ``none``/``off``; KubeVersionError for anything else."""
    given = text.strip()
    if given.lower() in SKIP_WORDS:
        return None
    m = _FORM.fullmatch(given)
    if m is None or m.group(1) is None:
        raise KubeVersionError(f"not a Kubernetes version: {text!r}; expected a form such as {FORMS}")
    return 1, int(m.group(1))


def choose(text: str, installed: list[str]) -> Choice:
    """Which of ``installed`` (``major.minor``, oldest first) checks release ``text``; see the module's rule."""
    wanted = parse(text)
    if wanted is None:
        return Choice(None)
    if not installed:
        raise KubeVersionError(
            "no Kubernetes schemas are installed (omerender/schemas/kubernetes/ is empty), or pass none to skip the "
            "check"
        )
    numbered = [(tuple(int(p) for p in v.split(".")), v) for v in installed]
    for number, version in numbered:
        if number == wanted:
            return Choice(version)
    if wanted > numbered[-1][0]:
        return Choice(numbered[-1][1])
    if wanted < numbered[0][0]:
        oldest = numbered[0][1]
        return Choice(
            oldest,
            f"Kubernetes {wanted[0]}.{wanted[1]} is older than any installed schemas; checking with {oldest}, the "
            "oldest",
        )
    raise KubeVersionError(f"no Kubernetes schemas for version {text!r}; installed: {', '.join(installed)}")
