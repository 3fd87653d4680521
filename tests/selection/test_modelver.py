"""OME pkg/modelver parsing and the matcher's operator rules (ome-selection.md §1.5), plus Go
strconv.ParseFloat as used by parseModelSize (§1.6)."""

from __future__ import annotations

import math

import pytest

from omerender.selection.versions import (
    Version,
    VersionError,
    compare,
    go_parse_float,
    go_quote,
    is_unofficial,
    parse,
    versions_match,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("1.0.0", Version(1, "", 0, 0, precision=3), id="three-parts"),
        pytest.param("1", Version(1, "", 0, 0, precision=1), id="major-only"),
        pytest.param("v1", Version(1, "v", 0, 0, precision=1), id="v-major-only"),
        pytest.param("1.12", Version(1, "", 12, 0, precision=2), id="two-parts"),
        pytest.param("v1.12", Version(1, "v", 12, 0, precision=2), id="v-two-parts"),
        pytest.param("v0.8.0", Version(0, "v", 8, 0, precision=3), id="v-prefix"),
        pytest.param("4.45.0.dev0", Version(4, "", 45, 0, dev=("dev0",)), id="dev"),
        pytest.param("4.51.3-SAM-HQ-preview", Version(4, "", 51, 3, pre=("SAM-HQ-preview",)), id="pre-with-dashes"),
        pytest.param("4.43.0+build", Version(4, "", 43, 0, build=("build",)), id="build"),
        pytest.param("1.2.3-rc.1+b.2", Version(1, "", 2, 3, pre=("rc", "1"), build=("b", "2")), id="pre-and-build"),
        pytest.param("1.2.3.dev1.post2", Version(1, "", 2, 3, dev=("dev1", "post2")), id="dev-parts"),
        pytest.param("1.2.3.dev0-rc", Version(1, "", 2, 3, pre=("rc",), dev=("dev0",)), id="pre-split-before-dev"),
        pytest.param("18446744073709551615", Version(2**64 - 1, "", 0, 0, precision=1), id="uint64-max"),
    ],
)
def test_parse(text: str, expected: Version) -> None:
    assert parse(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("", "Version string empty", id="empty"),
        pytest.param("01.0.0", 'major must not have leading zeroes: "01"', id="leading-zero-major"),
        pytest.param("1.2.03", 'patch must not have leading zeroes: "03"', id="leading-zero-patch"),
        pytest.param("V1.0.0", 'invalid character(s) in major number "V1"', id="uppercase-V"),
        pytest.param("vv1", 'invalid character(s) in major number "v1"', id="double-v"),
        pytest.param("1.x", 'invalid character(s) in minor number "x"', id="alpha-minor"),
        pytest.param("1.2-rc", 'invalid character(s) in minor number "2-rc"', id="pre-on-minor"),
        pytest.param("1.2.a", 'invalid character(s) in patch number "a"', id="alpha-patch"),
        pytest.param("1.2.3\n", 'invalid character(s) in patch number "3\\n"', id="go-quoting"),
        pytest.param("1..3", 'strconv.ParseUint: parsing "": invalid syntax', id="empty-minor"),
        pytest.param("v", 'strconv.ParseUint: parsing "": invalid syntax', id="bare-v"),
        pytest.param(
            "18446744073709551616",
            'strconv.ParseUint: parsing "18446744073709551616": value out of range',
            id="uint64-overflow",
        ),
        pytest.param("1.2.3-", "prerelease meta data is empty", id="empty-pre"),
        pytest.param("1.0.0-rc..1", "prerelease meta data is empty", id="empty-pre-part"),
        pytest.param("1.2.3+", "build meta data is empty", id="empty-build"),
        pytest.param("1.2.3.", "dev meta data is empty", id="empty-dev"),
        pytest.param(5, "version is not a string: 5", id="not-a-string"),
    ],
)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(VersionError) as info:
        parse(text)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        pytest.param("1.2.3", "1.2.3", 0, id="equal"),
        pytest.param("v1.2.3", "1.2.3", 0, id="prefix-ignored"),
        pytest.param("1", "1.0.0", 0, id="precision-ignored"),
        pytest.param("1.10.0", "1.9.0", 1, id="numeric-minor"),
        pytest.param("1.0.0", "1.0.1", -1, id="patch"),
        pytest.param("1.0.0-alpha", "1.0.0-beta", -1, id="pre-strings"),
        pytest.param("1.0.0", "1.0.0-rc", -1, id="no-pre-is-smaller"),
        pytest.param("1.0.0.dev9", "1.0.0.dev10", 1, id="dev-compared-as-strings"),
        pytest.param("1.0.0+b", "1.0.0+a", 1, id="build-takes-part"),
    ],
)
def test_compare(a: str, b: str, expected: int) -> None:
    assert compare(parse(a), parse(b)) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("4.45.0", False), ("4.45.0.dev0", True), ("1.0.0-rc", True), ("1.0.0+b", True), ("v1", False)],
)
def test_is_unofficial(text: str, expected: bool) -> None:
    assert is_unofficial(parse(text)) is expected


@pytest.mark.parametrize(
    ("runtime", "model", "operator", "expected"),
    [
        # §1.5 verified vectors (runtime version first)
        pytest.param("1.0.0", "1.0.0", None, True, id="equal-nil-op"),
        pytest.param("1", "1.0.0", None, True, id="equal-ignores-precision"),
        pytest.param("v1.0.0", "1.0.0", "Equal", True, id="equal-ignores-prefix"),
        pytest.param("4.33.1", "4.45.0", "GreaterThanOrEqual", False, id="gte-runtime-is-upper-bound"),
        pytest.param("4.45.0", "4.33.1", "GreaterThanOrEqual", True, id="gte-runtime-newer"),
        pytest.param("4.33.1", "4.33.1", "GreaterThan", False, id="gt-equal"),
        pytest.param("4.34.0", "4.33.1", "GreaterThan", True, id="gt-runtime-newer"),
        pytest.param("4.34", "4.33.1", "GreaterThanOrEqual", False, id="precision-differs"),
        pytest.param("v2.0.0", "1.0.0", "GreaterThan", False, id="prefix-differs"),
        pytest.param("4.45.0.dev0", "4.45.0.dev0", None, True, id="dev-equal"),
        pytest.param("4.45.0.dev0", "4.45.0", None, False, id="dev-vs-release"),
        pytest.param("4.50.0", "4.45.0.dev0", "GreaterThanOrEqual", False, id="dev-forces-equal"),
        pytest.param("1.8.0-alpha", "1.8.0-dev", "GreaterThan", False, id="pre-forces-equal"),
        pytest.param("4.43.0+build", "4.43.0", None, False, id="build-differs"),
        pytest.param("01.0.0", "1.0.0", None, False, id="runtime-parse-error"),
        pytest.param("V1.0.0", "1.0.0", None, False, id="uppercase-prefix"),
        pytest.param("4.0.0", "4.0.0", "Foo", True, id="unknown-op-is-equal"),
        # further rules
        pytest.param("1", "1.0.0", "Foo", False, id="unknown-op-checks-precision"),
        pytest.param("1", "1.0.0", "equal", False, id="operator-case-sensitive"),
        pytest.param("4.33.1", "4.33.1", "GreaterThanOrEqual", True, id="gte-equal"),
        pytest.param("v4.34.0", "v4.33.1", "GreaterThan", True, id="gt-both-prefixed"),
        pytest.param("4.34", "4.33", "GreaterThan", True, id="gt-two-parts"),
        pytest.param("4.45.0.dev0", "4.45.0.dev0", "GreaterThan", True, id="dev-gt-becomes-equal"),
        pytest.param("1.0.0", "", None, False, id="model-empty"),
        pytest.param("", "1.0.0", None, False, id="runtime-empty"),
        pytest.param("1.0.0", "1.0.x", "GreaterThan", False, id="model-parse-error"),
    ],
)
def test_versions_match(runtime: str, model: str, operator: str | None, expected: bool) -> None:
    assert versions_match(runtime, model, operator) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("7", 7.0, id="int"),
        pytest.param("007", 7.0, id="leading-zeros"),
        pytest.param("1.5", 1.5, id="decimal"),
        pytest.param(".5", 0.5, id="no-int-part"),
        pytest.param("5.", 5.0, id="no-fraction"),
        pytest.param("1e3", 1000.0, id="exponent"),
        pytest.param("1E+3", 1000.0, id="exponent-upper"),
        pytest.param("+1", 1.0, id="plus"),
        pytest.param("-1", -1.0, id="minus"),
        pytest.param("1_000", 1000.0, id="underscore"),
        pytest.param("1_23.50_0_0e+1_2", 1.235e14, id="go-test-underscores"),
        pytest.param("0x1p3", 8.0, id="hex"),
        pytest.param("0x_1_2.3_4_5p+1_2", 74565.0, id="go-test-hex-underscores"),
        pytest.param("1e-400", 0.0, id="underflow-is-not-an-error"),
        pytest.param("Inf", math.inf, id="inf"),
        pytest.param("+inf", math.inf, id="plus-inf"),
        pytest.param("-Infinity", -math.inf, id="minus-infinity"),
    ],
)
def test_go_parse_float(text: str, expected: float) -> None:
    assert go_parse_float(text) == expected


@pytest.mark.parametrize("text", ["NaN", "nan", "nAn"])
def test_go_parse_float_nan(text: str) -> None:
    assert math.isnan(go_parse_float(text))


@pytest.mark.parametrize(
    "text",
    [
        "",
        " 7",
        "7 ",
        "7b",
        "1.5K",
        "+nan",
        "-nan",
        "infin",
        "1__0",
        "_1",
        "1_",
        "1_.5",
        "0x10",
        "0x",
        "1e",
        "1e+",
        "1e_5",
        ".",
        "+",
        "1,5",
        "--1",
        "0b101",
        "\u0661",
        "1.2.3",
    ],
)
def test_go_parse_float_syntax_errors(text: str) -> None:
    with pytest.raises(ValueError) as info:
        go_parse_float(text)
    assert str(info.value) == f"strconv.ParseFloat: parsing {go_quote(text)}: invalid syntax"


@pytest.mark.parametrize("text", ["1e400", "-1e400", "0x1p2000"])
def test_go_parse_float_range_errors(text: str) -> None:
    with pytest.raises(ValueError) as info:
        go_parse_float(text)
    assert str(info.value) == f'strconv.ParseFloat: parsing "{text}": value out of range'


@pytest.mark.parametrize(
    ("text", "expected"),
    [("a", '"a"'), ('q"b\\', '"q\\"b\\\\"'), ("\t\x01", '"\\t\\x01"'), ("é", '"é"'), ("\u200b", '"\\u200b"')],
)
def test_go_quote(text: str, expected: str) -> None:
    assert go_quote(text) == expected
