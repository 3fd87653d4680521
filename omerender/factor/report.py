"""factor's report as text: the profiles with their members and lines, what was left flat, the totals; and diffs."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from omerender.output.formats import dump_json
from omerender.output.table import columns


def _percent(after: int, before: int) -> str:
    return f"{100 * after / before:.1f}%" if before else "-"


def table(report: dict[str, Any]) -> str:
    out = []
    if report["profiles"]:
        rows = [["PROFILE", "PARENT", "FILE", "MEMBERS", "LINES BEFORE", "LINES AFTER"]]
        for p in report["profiles"]:
            rows.append(
                [
                    p["name"],
                    p["parent"] or "-",
                    p["file"],
                    str(len(p["members"])),
                    str(p["linesBefore"]),
                    str(p["linesAfter"]),
                ]
            )
        out.append(columns(rows))
        out.append(
            "".join(
                f"{p['name']}: {' '.join(m.rsplit('/', 1)[-1] for m in p['members'])}\n" for p in report["profiles"]
            )
        )
    if report["flat"]:
        out.append(columns([["LEFT FLAT", "REASON"]] + [[f["runtime"], f["reason"]] for f in report["flat"]]))
    if report.get("autoSelection"):
        rows = [["RELIES ON AUTO-SELECTION", "SELECTED RUNTIME"]]
        rows += [[r["inferenceService"], r["runtime"]] for r in report["autoSelection"]]
        out.append(columns(rows))
    t = report["totals"]
    out.append(
        f"{t['children']} of {t['runtimes']} runtimes become children of {t['profiles']} "
        f"{'profile' if t['profiles'] == 1 else 'profiles'}, {t['flat']} left flat, "
        f"{t['alreadyInheriting']} already inherit; lines of the runtimes factored {t['linesBefore']} -> "
        f"{t['linesAfter']} with their profiles ({_percent(t['linesAfter'], t['linesBefore'])})\n"
    )
    if report.get("reused"):
        out.append(f"existing profiles reused: {', '.join(report['reused'])}\n")
    if report.get("kustomizations"):
        out.append(f"profiles added to the resources of {', '.join(report['kustomizations'])}\n")
    locks = report.get("locks") or {}
    if locks.get("rewritten"):
        out.append(f"locks kept up to date (the chains they record changed): {', '.join(locks['rewritten'])}\n")
    if locks.get("toRecord"):
        run = "; ".join(f"{lock['command']}" for lock in locks["toRecord"])
        out.append(f"locks outside PATHS that record the chains factor changed (revisions stay the same): {run}\n")
    if report.get("proofCovers"):
        out.append(f"the proof covers {report['proofCovers']}\n" + "".join(_apps(report.get("apps") or {})))
    return "\n".join(out)


def _apps(apps: dict[str, list[str]]) -> list[str]:
    """What the proof said of the repository's apps (``factor.consumers``)."""
    lines = []
    if apps.get("built"):
        lines.append(f"and each app's build, the same before and after: {', '.join(apps['built'])}\n")
    if apps.get("unchanged"):
        lines.append(f"apps that read no file factor changes: {', '.join(apps['unchanged'])}\n")
    if apps.get("notBuilding"):
        lines.append(f"apps not compared, as they do not build before factor: {', '.join(apps['notBuilding'])}\n")
    return lines


def as_json(report: dict[str, Any]) -> str:
    return dump_json(report)


FACTOR_FORMATS: dict[str, Callable[[dict[str, Any]], str]] = {"table": table, "json": as_json}
"""``factor -o``: the format registry, as omerender.output.formats holds the other commands'."""


def unified_diffs(originals: dict[str, str], files: dict[str, str]) -> str:
    out: list[str] = []
    for path in sorted(files):
        before = originals.get(path)
        out.extend(
            difflib.unified_diff(
                (before or "").splitlines(True),
                files[path].splitlines(True),
                path if before is not None else "/dev/null",
                path,
            )
        )
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out)
