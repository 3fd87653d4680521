"""Problems as values: every finding of the core is a Diagnostic, never a print or an exit."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]
SuppressionKind = Literal["annotation", "settings"]

ERROR: Severity = "error"
WARNING: Severity = "warning"
INFO: Severity = "info"
BY_ANNOTATION: SuppressionKind = "annotation"  # an ignore-check annotation on an object of the input
BY_SETTINGS: SuppressionKind = "settings"  # an exemption in the settings file


@dataclass(frozen=True, order=True)
class Suppression:
    """What silenced a finding that is reported as a note: an ignore-check annotation on an object of the input
    (``annotation``) or an exemption in the settings file (``settings``), the reason it gives (may be empty), and
    the severity the finding had before it was silenced (what SARIF reports as its ``level``)."""

    kind: SuppressionKind
    by: str  # "annotation ignore-check.omerender.io/CODE on KIND NAME", or "the exemption at FILE:LINE"
    reason: str
    severity: Severity


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding, located in an input file.

    ``line`` and ``col`` are 1-based. ``code`` is a stable identifier (an OME condition reason
    such as ``ParentNotFound`` where one exists, else a kebab-case rule name) that machine
    reports carry; the text report shows only the message.
    """

    path: str
    line: int
    col: int
    severity: Severity
    message: str
    code: str = ""
    json_path: str = ""
    suppression: Suppression | None = None  # set on a silenced finding (severity info)

    def text(self) -> str:
        """``PATH:LINE:COL: severity: [code] message``, or ``PATH: severity: ...`` without a location (line 0).

        One line whatever the message holds: control characters are escaped.
        """
        where = f"{one_line(self.path)}:{self.line}:{self.col}" if self.line > 0 else one_line(self.path)
        code = f"[{one_line(self.code)}] " if self.code else ""
        return f"{where}: {self.severity}: {code}{one_line(self.message)}"


def one_line(text: str) -> str:
    """``text`` with control characters escaped, so it prints as one line."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def sort_key(d: Diagnostic) -> tuple[str, int, int, str, str]:
    return (d.path, d.line, d.col, d.severity, d.message)


def sorted_unique(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Diagnostics sorted by location, duplicates dropped: the order reports print."""
    return sorted(set(diagnostics), key=sort_key)


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.severity == ERROR for d in diagnostics)


def count_errors(diagnostics: Iterable[Diagnostic]) -> int:
    """The errors among ``diagnostics``, each counted once as reports print them (``sorted_unique``)."""
    return len({d for d in diagnostics if d.severity == ERROR})


def field_path(keys: tuple[object, ...]) -> str:
    """``('spec', 'containers', 0, 'name')`` -> ``spec.containers[0].name``, as Kubernetes prints a field.

    The one formatter for field paths in messages; reports carry ``json_path`` beside it.
    """
    out = ""
    for key in keys:
        if isinstance(key, int):
            out += f"[{key}]"
        elif isinstance(key, str) and key.isidentifier():
            out += f".{key}" if out else key
        else:
            out += f"[{key}]"
    return out


def json_path(keys: tuple[object, ...]) -> str:
    """``('spec', 'engineConfig', 'runner', 'args', 0)`` -> ``$.spec.engineConfig.runner.args[0]``."""
    out = "$"
    for key in keys:
        if isinstance(key, int):
            out += f"[{key}]"
        elif isinstance(key, str) and key.replace("_", "").replace("-", "").isalnum() and "-" not in key:
            out += f".{key}"
        else:
            out += f"[{key!r}]"
    return out
