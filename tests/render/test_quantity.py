"""Table tests for omerender.quantity, mirroring apimachinery's resource.Quantity tests.

Expected strings are what Go's ``ParseQuantity(s).String()`` (== MarshalJSON) returns.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from omerender.render.quantity import (
    ERR_FORMAT,
    ERR_NUMERIC,
    ERR_SUFFIX,
    canonical,
    canonical_resources,
    parse,
)

P = pytest.param

CANONICAL = [
    # TestQuantityParseZero / TestQuantityParse (zero rows) / TestQuantityCanocicalizeZero
    P("0", "0", id="zero"),
    P("0m", "0", id="zero-milli"),
    P("0Ki", "0", id="zero-binary"),
    P("-0", "0", id="negative-zero"),
    P("00", "0", id="zero-leading-zeros"),
    # TestQuantityParse: decimal SI suffixes (already canonical -> input string reused)
    P("1", "1", id="plain-1"),
    P("10", "10", id="plain-10"),
    P("5n", "5n", id="nano"),
    P("4u", "4u", id="micro"),
    P("100m", "100m", id="milli"),
    P("8k", "8k", id="kilo"),
    P("50k", "50k", id="kilo-50"),
    P("7M", "7M", id="mega"),
    P("300T", "300T", id="tera-300"),
    P("2P", "2P", id="peta"),
    P("1E", "1E", id="exa"),
    P("12E", "12E", id="exa-12"),
    # TestQuantityString alternates / TestQuantityParseEmit: decimal re-canonicalisation
    P("1000M", "1G", id="1000M-to-1G"),
    P("0.001T", "1G", id="fraction-tera-to-giga"),
    P("1000u", "1m", id="1000u-to-1m"),
    P("2000m", "2", id="2000m-to-2"),
    P("5000m", "5", id="5000m-to-5"),
    P("0.5", "500m", id="half"),
    P("0.1", "100m", id="tenth"),
    P("1.5", "1500m", id="one-and-half"),
    P("1.08", "1080m", id="1.08"),
    P("1080000000n", "1080m", id="nano-to-milli"),
    P("0.0001", "100u", id="0.0001-is-100u-not-rounded-to-milli"),
    P("10.035M", "10.035M", id="fractional-mega-kept-k8s-138165"),
    P("10.03M", "10030k", id="fractional-mega"),
    # TestQuantityParse: binary SI suffixes
    P("1Ki", "1Ki", id="kibi"),
    P("30Gi", "30Gi", id="30Gi"),
    P("3Ei", "3Ei", id="exbi"),
    P("1024Mi", "1Gi", id="1024Mi-to-1Gi"),
    P("1000Mi", "1000Mi", id="1000Mi-stays"),
    P("307200Ki", "300Mi", id="307200Ki-to-300Mi"),
    P("1025024Mi", "1001Gi", id="1025024Mi-to-1001Gi"),
    P("1.5Gi", "1536Mi", id="1.5Gi-to-1536Mi"),
    P("0.5Mi", "512Ki", id="half-mebi"),
    P("1.5Ki", "1536", id="binary-no-1024-factor-drops-suffix"),
    P("0.5Ki", "512", id="binary-below-1024-is-decimal"),
    P("100.035Ki", "102435840m", id="binary-fraction-becomes-decimal"),
    # TestQuantityParseEmit: tiny binary values switch to DecimalSI
    P(".001Ki", "1024m", id="milli-kibi"),
    P(".000001Ki", "1024u", id="micro-kibi"),
    P(".000000001Ki", "1024n", id="nano-kibi"),
    P(".000000000001Ki", "2n", id="pico-kibi-rounds-up"),
    # TestQuantityParse: decimal exponents keep DecimalExponent format
    P("1e3", "1e3", id="exp-1e3-not-1k"),
    P("1E6", "1E6", id="exp-upper-E-kept"),
    P("12e6", "12e6", id="exp-12e6"),
    P("1e14", "100e12", id="exp-nonstandard-14"),
    P("1.2e3", "1200", id="exp-fraction"),
    P("1.3E+6", "1300e3", id="exp-explicit-plus"),
    P("0.5e-2", "5e-3", id="exp-negative"),
    P("1000e-12", "1e-9", id="exp-alternate-nano"),
    # TestQuantityParse "Things that saturate/round": round up to nano, away from zero
    P("3.001n", "4n", id="round-3.001n"),
    P("1.1E-9", "2e-9", id="round-exp-1.1e-9"),
    P("0.0000000001", "1n", id="round-below-nano"),
    P("0.00000012345", "124n", id="round-124n"),
    P("0.5e-9", "1e-9", id="round-half-nano-exp"),
    P("-0.9n", "-1n", id="round-negative-away-from-zero"),
    P("9Ei", "9223372036854775807", id="binary-cap-int64"),
    P("-9Ei", "-9223372036854775807", id="binary-cap-negative"),
    # TestParseQuantity: beyond int64 (decimal values are not capped)
    P("999999999999999999.1", "999999999999999999100m", id="18-digits-fraction"),
    P("1000000000000000000", "1E", id="19-digits-to-exa"),
    P("9223372036854775808", "9223372036854775808", id="int64-max-plus-1"),
    P("10000000000000000000000m", "10E", id="huge-milli"),
    P("-1.0000000000000000001E", "-1000000000000000000100m", id="negative-huge-fraction"),
    # TestQuantityString negative rows / TestQuantityParseEmit negatives
    P("-1", "-1", id="negative-1"),
    P("-0.5", "-500m", id="negative-half"),
    P("-1024Mi", "-1Gi", id="negative-binary"),
    P("-1.5Gi", "-1536Mi", id="negative-binary-fraction"),
    P("-1000M", "-1G", id="negative-decimal"),
    # TestParseQuantityString / "Things written by trolls" (Go reuses non-canonical input)
    P("+1", "+1", id="plus-sign-kept"),
    P("+1Gi", "+1Gi", id="plus-binary-kept"),
    P("01", "01", id="leading-zero-kept"),
    P("1.", "1.", id="trailing-dot-kept"),
    P("1.G", "1.G", id="dot-suffix-kept"),
    P(".001", "1m", id="leading-dot"),
    P(".", "0", id="lone-dot-is-zero"),
    P("-.", "0", id="signed-lone-dot-is-zero"),
    P("1.001", "1.001", id="3n-fraction-digits-kept-k8s-138165"),
    P("1.44", "1440m", id="2-fraction-digits-canonicalised"),
    # CanonicalizeBytes drops an unknown DecimalSI suffix (fixed upstream later, k8s #140459)
    P("1000E", "1", id="decimal-si-above-exa-loses-suffix"),
    # TestJSONWhitespace: UnmarshalJSON trims surrounding whitespace
    P(" 1", "1", id="leading-space"),
    P("1 ", "1", id="trailing-space"),
    P(" -1", "-1", id="space-negative"),
    P("\u00a02Gi\u3000", "2Gi", id="unicode-space-trimmed"),
    # numbers as they arrive through YAML -> JSON (encoding/json float formatting)
    P(10, "10", id="int-10"),
    P(-3, "-3", id="int-negative"),
    P(0, "0", id="int-zero"),
    P(0.5, "500m", id="float-half"),
    P(1.0, "1", id="float-integral"),
    P(0.1, "100m", id="float-tenth"),
    P(1e16, "10P", id="float-fixed-notation"),
    P(1e21, "1e+21", id="float-exponent-notation"),
    P(1.5e-7, "150e-9", id="float-small-exponent"),
]


@pytest.mark.parametrize(("value", "expected"), CANONICAL)
def test_canonical(value: str | int | float, expected: str) -> None:
    assert canonical(value) == expected


@pytest.mark.parametrize(("value", "expected"), CANONICAL)
def test_canonical_output_reparses_to_same_value(value: str | int | float, expected: str) -> None:
    if value == "1000E":  # Go's suffix loss is lossy by nature
        return
    assert parse(expected) == parse(value)
    assert canonical(expected) == expected


INVALID = [
    # TestQuantityParse "invalid" list
    P("1.1.M", ERR_FORMAT, id="two-dots"),
    P("1+1.0M", ERR_FORMAT, id="sign-in-middle"),
    P("0.1mi", ERR_SUFFIX, id="milli-i"),
    P("0.1am", ERR_FORMAT, id="unknown-letter"),
    P("aoeu", ERR_FORMAT, id="word"),
    P(".5i", ERR_SUFFIX, id="bare-i"),
    P("1i", ERR_SUFFIX, id="1i"),
    P("-3.01i", ERR_SUFFIX, id="negative-i"),
    P("-3.01e-", ERR_SUFFIX, id="exponent-without-digits"),
    # TestQuantityParse: empty string is an error
    P("", ERR_FORMAT, id="empty"),
    P("   ", ERR_FORMAT, id="only-whitespace"),
    P("1e", ERR_SUFFIX, id="bare-e"),
    P("1ki", ERR_SUFFIX, id="lowercase-ki"),
    P("1KB", ERR_FORMAT, id="bytes-suffix"),
    P("1 Gi", ERR_FORMAT, id="inner-space"),
    # json.Marshal escapes tabs/newlines, and UnmarshalJSON trims the raw text only
    P("\t1", ERR_FORMAT, id="tab-not-trimmed"),
    P("1\n", ERR_FORMAT, id="newline-not-trimmed"),
    P("1e99999999999999999999", ERR_SUFFIX, id="exponent-overflows-int64"),
    P("-.e-12", ERR_NUMERIC, id="no-digits-slow-path"),
    P("１", ERR_FORMAT, id="fullwidth-digit"),
    P(True, ERR_FORMAT, id="bool"),
    P(None, ERR_FORMAT, id="none"),
    P(float("nan"), ERR_FORMAT, id="nan"),
]


@pytest.mark.parametrize(("value", "message"), INVALID)
def test_invalid(value: object, message: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        canonical(value)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        parse(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        P("100m", Fraction(1, 10), id="milli"),
        P("1.5Gi", Fraction(3 * 2**29), id="binary-fraction"),
        P("-0.9n", Fraction(-1, 10**9), id="rounded-away-from-zero"),
        P("9Ei", Fraction(2**63 - 1), id="capped"),
        P("1e3", Fraction(1000), id="exponent"),
        P(0.1, Fraction(1, 10), id="float-exact-decimal"),
    ],
)
def test_parse(value: str | int | float, expected: Fraction) -> None:
    assert parse(value) == expected


def test_parse_orders_quantities() -> None:
    assert parse("1Gi") > parse("1000Mi") > parse("1G") > parse("999M")
    assert parse("500m") < parse(1)


def test_canonical_resources() -> None:
    resources = {
        "requests": {"cpu": 0.5, "memory": "1024Mi", "nvidia.com/gpu": 1},
        "limits": {"cpu": "2000m", "memory": "bogus"},
        "claims": [{"name": "x"}],
    }
    out = canonical_resources(resources)
    assert out == {
        "requests": {"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": "1"},
        "limits": {"cpu": "2", "memory": "bogus"},
        "claims": [{"name": "x"}],
    }
    assert out["claims"] is resources["claims"]
    assert resources["requests"]["memory"] == "1024Mi"  # input untouched
    assert canonical_resources({}) == {}


def test_int32_exponent_wrap() -> None:
    # Go keeps exponents in int32; these were checked against apimachinery itself.
    assert canonical("1e4294967296") == "1e4294967296"  # wraps to e0, input reused
    assert canonical("1.5e-2147483648") == "150e2147483646"
    with pytest.raises(ValueError, match="too large"):
        parse("1e2147483647")
