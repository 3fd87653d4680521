"""Exact reimplementation of Kubernetes ``resource.Quantity`` parsing and serialisation.

Mirrors ``k8s.io/apimachinery/pkg/api/resource`` (``ParseQuantity`` followed by
``String()``/``MarshalJSON``), including its quirks:

* the fast parse path keeps the *input* string when it looks canonical, so
  ``"+1"``, ``"01"``, ``"1e3"`` and ``"1.001"`` serialise unchanged
  (kubernetes/kubernetes#138165);
* non-zero values are rounded away from zero to nano precision (``1n``);
* only ``BinarySI`` input is capped at 2**63-1;
* ``DecimalSI`` values of 10**21 and above lose their suffix (``"1000E"`` -> ``"1"``),
  as in released apimachinery (later fixed upstream by kubernetes/kubernetes#140459).

Values are held as ``mantissa * 10**exponent`` with Python ints, never floats.
Inputs follow the JSON path (``UnmarshalJSON``): surrounding whitespace is trimmed,
ints are formatted in base 10 and floats the way Go's ``encoding/json`` prints them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

__all__ = ["canonical", "canonical_resources", "parse"]

ERR_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"

DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT = "DecimalSI", "BinarySI", "DecimalExponent"

_DIGITS = frozenset("0123456789")
_EXP_SUFFIX = re.compile(r"[eE][+-]?[0-9]+")
_SUFFIX_LETTERS = frozenset("eEinumkKMGTP")
# What Go's strings.TrimSpace removes *and* encoding/json leaves unescaped: UnmarshalJSON
# trims the raw JSON text, so a tab or newline arrives as "\\t" and is rejected.
_GO_SPACE = " \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
_DEC_SUFFIX = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BIN_SUFFIX = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DEC_BY_EXP = {v: k for k, v in _DEC_SUFFIX.items()}
_BIN_BY_EXP = {v // 10: k for k, v in _BIN_SUFFIX.items()}
_MAX_INT64 = (1 << 63) - 1
_NANO = -9
_MAX_EVAL_EXPONENT = 10_000  # parse() refuses to expand 10**e beyond this


@dataclass(frozen=True)
class _Quantity:
    mantissa: int  # value == mantissa * 10**exponent
    exponent: int
    fmt: str
    cached: str | None = None  # Go's Quantity.s: input reused verbatim by String()


def _scan(s: str) -> tuple[bool, str, str, str, str]:
    """Split ``s`` into (positive, value, num, denom, suffix) like parseQuantityString."""
    n, pos, positive = len(s), 0, True
    if n and s[0] in "+-":
        positive, pos = s[0] == "+", 1
    while pos < n and s[pos] == "0":
        pos += 1
    if pos == n:
        return positive, "0", "0", "", ""
    start = pos
    while pos < n and s[pos] in _DIGITS:
        pos += 1
    num = s[start:pos] or "0"
    if pos == n:
        return positive, s, num, "", ""
    denom = ""
    if s[pos] == ".":
        pos = start = pos + 1
        while pos < n and s[pos] in _DIGITS:
            pos += 1
        denom = s[start:pos]
        if pos == n:
            return positive, s, num, denom, ""
    value, suffix_start = s[:pos], pos
    while pos < n and s[pos] in _SUFFIX_LETTERS:
        pos += 1
    if pos < n and s[pos] in "+-":
        pos += 1
    while pos < n and s[pos] in _DIGITS:
        pos += 1
    if pos != n:
        raise ValueError(ERR_FORMAT)
    return positive, value, num, denom, s[suffix_start:]


def _interpret(suffix: str) -> tuple[int, int, str]:
    """Return (base, exponent, format) for a suffix, as quantitySuffixer.interpret."""
    if suffix in _DEC_SUFFIX:
        return 10, _DEC_SUFFIX[suffix], DECIMAL_SI
    if suffix in _BIN_SUFFIX:
        return 2, _BIN_SUFFIX[suffix], BINARY_SI
    if _EXP_SUFFIX.fullmatch(suffix):
        exp = int(suffix[1:])
        if -_MAX_INT64 - 1 <= exp <= _MAX_INT64:  # strconv.ParseInt(.., 64) range
            return 10, _i32(exp), DECIMAL_EXPONENT
    raise ValueError(ERR_SUFFIX)


def _i32(n: int) -> int:
    """Wrap like Go's int32 arithmetic (exponents and scales are int32 there)."""
    return (n + 2**31) % 2**32 - 2**31


def _ceil_to_nano(mag: int, exp: int) -> tuple[int, int]:
    """Round a positive magnitude up (away from zero) to at most 9 decimal places."""
    if exp >= _NANO:
        return mag, exp
    drop = _NANO - exp
    if drop > len(str(mag)):
        return 1, _NANO
    return -(-mag // 10**drop), _NANO


def _parse_quantity(s: str) -> _Quantity:
    if not s:
        raise ValueError(ERR_FORMAT)
    if s == "0":
        return _Quantity(0, 0, DECIMAL_SI, "0")
    positive, value, num, denom, suffix = _scan(s)
    base, exp, fmt = _interpret(suffix)

    precision, scale, multiplier = -1, 0, 1
    if fmt != BINARY_SI:
        scale, precision = exp, 18 - (len(num) + len(denom))
    elif exp >= 0 and not denom:
        multiplier = 1 << exp
        precision = 15 - len(num) - exp * 3 // 10 - 1
    if precision >= 0 and _i32(scale - len(denom)) >= _NANO:  # int64Amount fast path
        scale = _i32(scale - len(denom))
        shifted = num + denom
        digits = int(shifted)
        result = digits * multiplier
        if result <= _MAX_INT64:
            result = result if positive else -result
            if fmt == BINARY_SI:
                keep = digits & 7 != 0
            else:
                keep = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
            return _Quantity(result, scale, fmt, s if keep else None)

    # inf.Dec slow path: needs at least one digit in the numeric part.
    sign = -1 if value[:1] == "-" else 1
    int_part, _, frac = value.lstrip("+-").partition(".")
    if not (int_part + frac):
        raise ValueError(ERR_NUMERIC)
    mag, e = int(int_part + frac), -len(frac)
    if base == 10:
        e += exp
    else:
        mag <<= exp
    if mag:
        mag, e = _ceil_to_nano(mag, e)
    if fmt == BINARY_SI:
        scale_pow = 10 ** max(-e, 0)
        if mag * 10 ** max(e, 0) > _MAX_INT64 * scale_pow:
            mag, e = _MAX_INT64, 0
        elif 0 < mag < scale_pow:
            fmt = DECIMAL_SI  # 0 < |x| < 1 is never shown as BinarySI
    return _Quantity(sign * mag, e, fmt)


def _to_text(value: str | int | float) -> str:
    """Render ``value`` the way it reaches Quantity.UnmarshalJSON."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError(f"{ERR_FORMAT} (got {type(value).__name__})")
    if isinstance(value, str):
        return value.strip(_GO_SPACE)
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        raise ValueError(f"{ERR_FORMAT} (got {value!r})")
    # encoding/json: shortest repr, 'f' form for 1e-6 <= |x| < 1e21, else 'e' form.
    dec = Decimal(repr(value))
    if value == 0 or 1e-6 <= abs(value) < 1e21:
        return format(dec.normalize(), "f")
    sign, digits, exp = dec.normalize().as_tuple()
    sci = int(exp) + len(digits) - 1
    head = "".join(map(str, digits))
    mant = head[0] + ("." + head[1:] if len(head) > 1 else "")
    tail = f"{abs(sci):02d}" if sci >= 0 else str(-sci)  # Go trims "e-07" to "e-7"
    return ("-" if sign else "") + mant + ("e+" if sci >= 0 else "e-") + tail


def _format(q: _Quantity) -> str:
    """Quantity.String(): the cached input or CanonicalizeBytes."""
    if q.cached is not None:
        return q.cached
    m, e, fmt = q.mantissa, q.exponent, q.fmt
    if m == 0:
        return "0"
    if fmt == BINARY_SI:
        whole = e >= 0 or m % 10**-e == 0
        if not whole or abs(m) * 10 ** max(e, 0) < 1024 * 10 ** max(-e, 0):
            fmt = DECIMAL_SI
    if fmt == BINARY_SI:
        n, k = m * 10**e if e >= 0 else m // 10**-e, 0
        while n % 1024 == 0:
            n, k = n // 1024, k + 1
        return f"{n}{_BIN_BY_EXP.get(k, '')}"
    while m % 10 == 0:
        m, e = m // 10, e + 1
    e = _i32(e)
    m, e = m * 10 ** (e % 3), _i32(e - e % 3)
    if fmt == DECIMAL_EXPONENT:
        return f"{m}e{e}" if e else str(m)
    return f"{m}{_DEC_BY_EXP.get(e, '')}"  # Go drops an unknown suffix silently


def canonical(value: str | int | float) -> str:
    """Serialise ``value`` exactly as Go's Quantity would after parsing it."""
    return _canonical(type(value).__name__, value)


@lru_cache(maxsize=4096)  # pure; the InferenceServices of a runtime ask for the same few quantities
def _canonical(kind: str, value: str | int | float) -> str:  # the type in the key keeps True apart from 1
    return _format(_parse_quantity(_to_text(value)))


def parse(value: str | int | float) -> Fraction:
    """Numeric value of the parsed Quantity (after Go's rounding and capping)."""
    q = _parse_quantity(_to_text(value))
    if abs(q.exponent) > _MAX_EVAL_EXPONENT:
        raise ValueError(f"quantity exponent {q.exponent} is too large to evaluate")
    return Fraction(q.mantissa) * Fraction(10) ** q.exponent


def canonical_resources(resources: dict[str, Any]) -> dict[str, Any]:
    """Copy of a container ``resources`` dict with requests/limits canonicalised.

    Invalid quantities and all other keys are left untouched.
    """
    out = dict(resources)
    for key in ("requests", "limits"):
        section = out.get(key)
        if isinstance(section, dict):
            out[key] = {name: _canonical_or_same(v) for name, v in section.items()}
    return out


def _canonical_or_same(value: Any) -> Any:
    try:
        return canonical(value)
    except ValueError:
        return value
