"""Go-compatible parsing used by OME's runtime matcher.

* ``parse`` / ``compare`` / ``versions_match``: OME ``pkg/modelver/util.go`` and the operator logic
  of ``compareModelFormatVersions`` / ``compareModelFrameworkVersions``
  (``pkg/runtimeselector/matcher.go``), at OME commit 17b77eda.
* ``go_parse_float`` / ``parse_model_size``: Go ``strconv.ParseFloat(s, 64)`` and OME's
  ``parseModelSize`` (matcher.go), re-exported by ``omerender.matcher``.

Error texts are Go's; OME never surfaces them (any parse error means "no match").
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from omerender.names import clip

MAJOR_PREFIXES = ("v",)  # util.go acceptedMajorVersionPrefixes: lowercase "v" only
_DIGITS = frozenset("0123456789")
_UINT64_MAX = 2**64 - 1
_SIZE_SUFFIXES = (("T", 1e12), ("B", 1e9), ("M", 1e6))


class VersionError(ValueError):
    """A version string OME's ``modelver.Parse`` rejects (message as Go words it)."""


@dataclass(frozen=True)
class Version:
    major: int
    major_prefix: str
    minor: int
    patch: int
    pre: tuple[str, ...] = ()
    build: tuple[str, ...] = ()
    dev: tuple[str, ...] = ()
    precision: int = 3  # number of dot-separated parts given (1..3)


def go_quote(s: str) -> str:
    """Go ``%q`` / ``strconv.Quote`` for a string."""
    named = {
        "\a": "\\a",
        "\b": "\\b",
        "\f": "\\f",
        "\n": "\\n",
        "\r": "\\r",
        "\t": "\\t",
        "\v": "\\v",
        "\\": "\\\\",
        '"': '\\"',
    }
    out = []
    for ch in s:
        code = ord(ch)
        if ch in named:
            out.append(named[ch])
        elif ch.isprintable():
            out.append(ch)
        elif code < 0x80:
            out.append(f"\\x{code:02x}")
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


def _parse_numeric(s: str, field: str) -> int:
    if any(c not in _DIGITS for c in s):
        raise VersionError(f"invalid character(s) in {field} number {go_quote(clip(s))}")
    if len(s) > 1 and s[0] == "0":
        raise VersionError(f"{field} must not have leading zeroes: {go_quote(clip(s))}")
    if not s:
        raise VersionError('strconv.ParseUint: parsing "": invalid syntax')
    value = int(s)
    if value > _UINT64_MAX:
        raise VersionError(f"strconv.ParseUint: parsing {go_quote(clip(s))}: value out of range")
    return value


def _split_suffix(patch: str, sep: str) -> tuple[str, list[str]]:
    idx = patch.find(sep)
    if idx == -1:
        return patch, []
    return patch[:idx], patch[idx + 1 :].split(".")


def _meta(parts: list[str], what: str) -> tuple[str, ...]:
    if any(p == "" for p in parts):
        raise VersionError(f"{what} meta data is empty")
    return tuple(parts)


def parse(s: str) -> Version:
    """``modelver.Parse``: ``[v]MAJOR[.MINOR[.PATCH[+build][-pre][.dev]]]``."""
    if not isinstance(s, str):
        raise VersionError(f"version is not a string: {s!r}")  # Go would not unmarshal it
    return _parse(s)


@lru_cache(maxsize=4096)  # pure, and matching compares the same few versions for every InferenceService
def _parse(s: str) -> Version:
    if s == "":
        raise VersionError("Version string empty")
    parts = s.split(".", 2)
    precision = len(parts)
    major_str, prefix = parts[0], ""
    for candidate in MAJOR_PREFIXES:
        if major_str.startswith(candidate):
            prefix, major_str = candidate, major_str[len(candidate) :]
            break
    major = _parse_numeric(major_str, "major")
    minor = _parse_numeric(parts[1] if precision > 1 else "0", "minor")
    patch_str = parts[2] if precision > 2 else "0"
    patch_str, build = _split_suffix(patch_str, "+")
    patch_str, pre = _split_suffix(patch_str, "-")
    patch_str, dev = _split_suffix(patch_str, ".")
    patch = _parse_numeric(patch_str, "patch")
    return Version(
        major, prefix, minor, patch, _meta(pre, "prerelease"), _meta(build, "build"), _meta(dev, "dev"), precision
    )


def is_unofficial(v: Version) -> bool:
    """``ContainsUnofficialVersion``: any pre-release, build or dev part."""
    return bool(v.pre or v.build or v.dev)


def _cmp(a: Any, b: Any) -> int:
    return int(a > b) - int(a < b)


def _cmp_lists(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    for x, y in zip(a, b, strict=False):
        if x != y:
            return _cmp(x, y)  # code-point order == Go's byte-wise order on UTF-8
    return _cmp(len(a), len(b))


def compare(v: Version, o: Version) -> int:
    """``CompareVersion``: -1, 0 or 1. Prefix and precision do not take part."""
    for a, b in ((v.major, o.major), (v.minor, o.minor), (v.patch, o.patch)):
        if a != b:
            return _cmp(a, b)
    for la, lb in ((v.pre, o.pre), (v.build, o.build), (v.dev, o.dev)):
        result = _cmp_lists(la, lb)
        if result:
            return result
    return 0


def versions_match(runtime_version: str, model_version: str, operator: str | None) -> bool:
    """OME ``compareModelFormatVersions`` (the framework variant is identical).

    ``operator`` is the *runtime* entry's operator (``None`` means ``Equal``); the runtime
    version is the first argument of the comparison, so ``GreaterThan`` means
    runtime > model. Any parse error on either side means no match.
    """
    try:
        model = parse(model_version)
        runtime = parse(runtime_version)
    except VersionError:
        return False
    op = "Equal" if operator is None else operator
    if is_unofficial(model) or is_unofficial(runtime) or op == "Equal":
        return compare(runtime, model) == 0
    if model.precision != runtime.precision or model.major_prefix != runtime.major_prefix:
        return False
    if op == "GreaterThan":
        return compare(runtime, model) == 1
    if op == "GreaterThanOrEqual":
        return compare(runtime, model) >= 0
    return compare(runtime, model) == 0


# --- Go strconv.ParseFloat(s, 64) -----------------------------------------------------------

_SPECIAL = re.compile(r"(?i)([+-]?)(inf|infinity)|nan")
# One way to match any text (the optional fraction is its own group), so a long run of digits
# followed by a bad character fails in linear time instead of backtracking over every split.
_DECIMAL = re.compile(r"[+-]?(?P<m>[0-9_]*(?:\.[0-9_]*)?)(?:[eE][+-]?[0-9][0-9_]*)?")
_HEX = re.compile(r"[+-]?0[xX](?P<m>[0-9a-fA-F_]*(?:\.[0-9a-fA-F_]*)?)[pP][+-]?[0-9][0-9_]*")


def _underscore_ok(s: str) -> bool:
    """Go ``strconv.underscoreOK``: underscores only between digits (or after a base prefix)."""
    saw, i = "^", 0
    if s[:1] in ("+", "-"):
        s = s[1:]
    hexa = False
    if len(s) >= 2 and s[0] == "0" and s[1].lower() in "box":
        i, saw, hexa = 2, "0", s[1].lower() == "x"
    for ch in s[i:]:
        if ch.isascii() and (ch.isdigit() or (hexa and ch.lower() in "abcdef")):
            saw = "0"
        elif ch == "_":
            if saw != "0":
                return False
            saw = "_"
        elif saw == "_":
            return False
        else:
            saw = "!"
    return saw != "_"


def go_parse_float(s: str) -> float:
    """Go ``strconv.ParseFloat(s, 64)``; raises ``ValueError`` where Go returns an error
    (syntax errors, and overflow to ±Inf, which Go reports as ``ErrRange``)."""
    special = _SPECIAL.fullmatch(s)
    if special:
        if special.group(2) is None:
            return math.nan
        return -math.inf if special.group(1) == "-" else math.inf
    syntax = ValueError(f"strconv.ParseFloat: parsing {go_quote(clip(s))}: invalid syntax")
    is_hex = s.lstrip("+-")[:2].lower() == "0x" and len(s.lstrip("+-")) > 2
    match = (_HEX if is_hex else _DECIMAL).fullmatch(s)
    if not match or not re.search("[0-9a-fA-F]" if is_hex else "[0-9]", match["m"]):
        raise syntax
    if "_" in s and not _underscore_ok(s):
        raise syntax
    clean = s.replace("_", "")
    try:
        value = float.fromhex(clean) if is_hex else float(clean)
    except OverflowError:
        value = math.inf
    if math.isinf(value):
        raise ValueError(f"strconv.ParseFloat: parsing {go_quote(clip(s))}: value out of range")
    return value


def parse_model_size(s: str | None) -> float:
    """OME ``parseModelSize``: one case-sensitive T/B/M suffix, Go ``ParseFloat``, failure -> 0."""
    return _model_size(s) if isinstance(s, str) else 0.0


@lru_cache(maxsize=4096)
def _model_size(s: str) -> float:
    multiplier = 1.0
    for suffix, factor in _SIZE_SUFFIXES:
        if s.endswith(suffix):
            s, multiplier = s[: -len(suffix)], factor
            break
    try:
        return go_parse_float(s) * multiplier
    except ValueError:
        return 0.0
