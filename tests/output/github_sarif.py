"""GitHub code scanning's ingestion rules for SARIF, as a check for tests (omerender's own code).

GitHub publishes no schema beyond SARIF 2.1.0; its extra rules are the "GH" rules of Microsoft's SARIF
validator (sarif-multitool, rule kind ``Ghas``: GH1001, GH1005, GH1011, GH1013 to GH1018, GH2012), written
here from their documented behaviour, plus two rules of SARIF 2.1.0 itself that decide where GitHub puts a
result (section 3.4: a ``uri`` with a ``uriBaseId`` is relative; ``helpUri`` and ``informationUri`` are
absolute). ``problems(log)`` lists every broken rule as ``RULE pointer: what``; an empty list means GitHub
would take the log.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

MAX_RUNS = 20  # GH1013: GitHub takes at most 20 runs in one log


def _blank(value: Any) -> bool:
    return not isinstance(value, str) or not value.strip()


def _text(holder: Any, key: str) -> Any:
    value = holder.get(key) if isinstance(holder, dict) else None
    return value.get("text") if isinstance(value, dict) else None


def problems(log: dict[str, Any]) -> list[str]:
    found: list[str] = []
    schema = log.get("$schema")
    if schema is None:
        found.append("GH1013 /: no $schema")
    elif not str(schema).removesuffix(".json").endswith(("2.1.0", "2.1.0-rtm.6")):
        found.append(f"GH1011 /$schema: {schema!r} is not the final SARIF 2.1.0 schema")
    if log.get("version") != "2.1.0":
        found.append("GH1013 /version: not 2.1.0")
    runs = log.get("runs")
    if not isinstance(runs, list):
        return [*found, "GH1013 /: no runs array"]
    if len(runs) > MAX_RUNS:
        found.append(f"GH1013 /runs: {len(runs)} runs, more than {MAX_RUNS}")
    for r, run in enumerate(runs):
        found += _run(run, f"/runs/{r}")
    return found


def _run(run: dict[str, Any], at: str) -> list[str]:
    found: list[str] = []
    driver = (run.get("tool") or {}).get("driver")
    if "tool" not in run:
        found.append(f"GH1014 {at}: no tool")
    elif not isinstance(driver, dict):
        found.append(f"GH1018 {at}/tool: no driver")
    else:
        if _blank(driver.get("name")):
            found.append(f"GH1018 {at}/tool/driver: no name")
        if not isinstance(driver.get("rules"), list):
            found.append(f"GH1018 {at}/tool/driver: no rules array")
        if "informationUri" in driver and not _absolute(driver["informationUri"]):
            found.append(f"SARIF-3.19.17 {at}/tool/driver/informationUri: not an absolute URI")
        for i, rule in enumerate(driver.get("rules") or []):
            found += _rule(rule, f"{at}/tool/driver/rules/{i}")
    results = run.get("results")
    if not isinstance(results, list):
        return [*found, f"GH1014 {at}: no results array"]
    rule_ids = {rule.get("id") for rule in (driver or {}).get("rules") or []}
    for i, result in enumerate(results):
        found += _result(result, f"{at}/results/{i}", rule_ids)
    return found


def _rule(rule: dict[str, Any], at: str) -> list[str]:
    found = []
    if _blank(rule.get("id")):
        found.append(f"GH2012 {at}: no id")
    if _blank(_text(rule, "shortDescription")):
        found.append(f"GH2012 {at}: no shortDescription.text")
    if _blank(_text(rule, "fullDescription")):
        found.append(f"GH2012 {at}: no fullDescription.text")
    if not isinstance(rule.get("help"), dict):
        found.append(f"GH2012 {at}: no help")
    elif _blank(rule["help"].get("text")):
        found.append(f"GH2012 {at}/help: no text")
    if "helpUri" in rule and not _absolute(rule["helpUri"]):
        found.append(f"SARIF-3.49.12 {at}/helpUri: not an absolute URI")
    return found


def _result(result: dict[str, Any], at: str, rule_ids: set[Any]) -> list[str]:
    found = []
    if _blank(_text(result, "message")):
        found.append(f"GH1015 {at}: no message.text")
    if result.get("ruleId") not in rule_ids:
        found.append(f"GH2012 {at}/ruleId: {result.get('ruleId')!r} has no rule in tool.driver.rules")
    locations = result.get("locations")
    if not isinstance(locations, list) or not locations:
        return [*found, f"GH1015 {at}: no locations (or none in the array)"]
    for i, location in enumerate(locations):
        found += _location(location, f"{at}/locations/{i}")
    return found


def _location(location: dict[str, Any], at: str) -> list[str]:
    physical = location.get("physicalLocation")
    if not isinstance(physical, dict):
        return [f"GH1016 {at}: no physicalLocation"]
    at += "/physicalLocation"
    found = []
    region = physical.get("region")
    if not isinstance(region, dict):
        found.append(f"GH1017 {at}: no region")
    elif not any(key in region for key in ("startLine", "charOffset", "byteOffset")):
        found.append(f"GH1017 {at}/region: no startLine, charOffset or byteOffset")
    elif region.get("endLine", region.get("startLine", 0)) < region.get("startLine", 0):
        found.append(f"GH1017 {at}/region: endLine before startLine")
    artifact = physical.get("artifactLocation")
    if not isinstance(artifact, dict):
        return [*found, f"GH1017 {at}: no artifactLocation"]
    uri = artifact.get("uri")
    if not isinstance(uri, str):
        return [*found, f"GH1001 {at}/artifactLocation: no uri"]
    scheme = urlsplit(uri).scheme
    if scheme and scheme != "file":
        found.append(f"GH1005 {at}/artifactLocation/uri: {uri!r} is not a file path")
    if "uriBaseId" in artifact and (scheme or uri.startswith("/")):
        found.append(f"SARIF-3.4.4 {at}/artifactLocation: a uri with a uriBaseId must be relative, got {uri!r}")
    if not scheme and uri.startswith("/"):
        found.append(f"SARIF-3.4.3 {at}/artifactLocation/uri: {uri!r} has neither a scheme nor a uriBaseId")
    return found


def _absolute(uri: Any) -> bool:
    return isinstance(uri, str) and bool(urlsplit(uri).scheme) and bool(urlsplit(uri).netloc or uri.startswith("file:"))
