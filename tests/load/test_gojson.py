"""Go's encoding/json syntax errors, word for word (encoding/json/scanner.go)."""

from __future__ import annotations

import pytest

from omerender.load.gojson import GoFloat, GoInt, loads, syntax_error


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"defaultDeploymentMode": "RawDeployment"', "unexpected end of JSON input"),
        ("", "unexpected end of JSON input"),
        ('"abc', "unexpected end of JSON input"),
        ("[1,", "unexpected end of JSON input"),
        ("x", "invalid character 'x' looking for beginning of value"),
        ("{'a': 1}", "invalid character '\\'' looking for beginning of object key string"),
        ('{"a" 1}', "invalid character '1' after object key"),
        ('{"a":1 "b":2}', "invalid character '\"' after object key:value pair"),
        ('{"a":1,}', "invalid character '}' looking for beginning of object key string"),
        ("[1,]", "invalid character ']' looking for beginning of value"),
        ("[1 2]", "invalid character '2' after array element"),
        ('{"a":1}}', "invalid character '}' after top-level value"),
        ("01", "invalid character '1' after top-level value"),
        ("trUe", "invalid character 'U' in literal true (expecting 'u')"),
        # at the end Go steps the scanner with a space, so an unfinished literal or number names ' '
        ("nul", "invalid character ' ' in literal null (expecting 'l')"),
        ("12.", "invalid character ' ' after decimal point in numeric literal"),
        ("-", "invalid character ' ' in numeric literal"),
        ("1e+", "invalid character ' ' in exponent of numeric literal"),
        ('"\\', "invalid character ' ' in string escape code"),
        ('"\\x"', "invalid character 'x' in string escape code"),
        ('"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"),
        ('"a\nb"', "invalid character '\\n' in string literal"),
        ("\x01", "invalid character '\\x01' looking for beginning of value"),
        ("é", "invalid character 'Ã' looking for beginning of value"),  # the first UTF-8 byte, as a rune
        ('{"a":NaN}', "invalid character 'N' looking for beginning of value"),
        ("[" * 10001, "invalid character '[' exceeded max depth"),
    ],
)
def test_syntax_errors(text: str, message: str) -> None:
    assert syntax_error(text) == message


@pytest.mark.parametrize(
    "text", ["{}", " [1, -0.5e+3, true, null] ", '{"a":{"b":["\\u00e9"]}}', "[" * 10000 + "]" * 10000]
)
def test_valid(text: str) -> None:
    assert syntax_error(text) is None


def test_numbers_keep_their_text() -> None:
    value, error = loads('{"a": 1.50, "b": 30, "c": ' + "9" * 5000 + "}")
    assert error is None
    assert isinstance(value["a"], GoFloat) and value["a"].raw == "1.50"
    assert isinstance(value["b"], GoInt) and value["b"].raw == "30"
    assert value["c"].raw == "9" * 5000  # beyond Python's int parsing limit: kept as text, no exception


def test_deep_but_valid_nesting_is_an_error_not_a_crash() -> None:
    value, error = loads("[" * 10000 + "]" * 10000)
    assert value is None and error is not None and "deeper than omerender decodes" in error
