"""JSON read as Go's ``encoding/json`` reads it: its syntax errors, word for word, and number literals kept.

``json.Unmarshal`` first scans the whole input (``checkValid`` in ``encoding/json/scanner.go``) and fails with
the scanner's ``SyntaxError``: ``unexpected end of JSON input``, or ``invalid character 'x' <context>``, the
character quoted as ``strconv.Quote`` quotes the rune of that *byte*. ``syntax_error`` walks the same grammar over
the UTF-8 bytes and returns that text; Python's ``json`` messages (``Expecting value: line 1 column 27``) are never
shown. At the end of the input the scanner is fed one space, so ``12.`` ends with ``invalid character ' ' after
decimal point in numeric literal`` rather than ``unexpected end of JSON input``, as in Go.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 10000  # encoding/json's maxNestingDepth
_SPACE = b" \t\r\n"
_ESCAPES = b'"\\/bfnrtu'
_HEX = b"0123456789abcdefABCDEF"
_DIGITS = b"0123456789"
_LITERALS = {ord("t"): b"true", ord("f"): b"false", ord("n"): b"null"}
_QUOTED = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 0x5C: "\\\\"}


class GoInt(int):
    """An integer literal, with its text (Go's type errors quote it)."""

    raw: str


class GoFloat(float):
    """A number literal with a fraction or an exponent, with its text."""

    raw: str


def _go_int(text: str) -> GoInt | GoFloat:
    try:
        value = GoInt(text)
    except ValueError:  # beyond Python's int-from-text digit limit: far beyond any int64 too
        return _go_float(text)
    value.raw = text
    return value


def _go_float(text: str) -> GoFloat:
    value = GoFloat(text)
    value.raw = text
    return value


def quote_char(byte: int) -> str:
    """``quoteChar``: the byte as a rune, quoted by ``strconv.Quote`` between single quotes."""
    if byte == ord("'"):
        return "'\\''"
    if byte == ord('"'):
        return "'\"'"
    char = chr(byte)
    if byte in _QUOTED:
        body = _QUOTED[byte]
    elif char.isprintable():
        body = char
    elif byte < 0x80:
        body = f"\\x{byte:02x}"
    else:
        body = f"\\u{byte:04x}"
    return f"'{body}'"


class _SyntaxError(Exception):
    pass


def _bad(byte: int, context: str) -> _SyntaxError:
    return _SyntaxError(f"invalid character {quote_char(byte)} {context}")


class _Scanner:
    """Go's scanner grammar over ``data``, without recursion (nesting is bounded by ``MAX_DEPTH`` only)."""

    def __init__(self, data: bytes) -> None:
        self.data = data + b" "  # eof(): Go steps the scanner once more with a space
        self.end = len(data)
        self.at = 0

    def next(self) -> int:
        if self.at > self.end:
            raise _SyntaxError("unexpected end of JSON input")
        byte = self.data[self.at]
        self.at += 1
        return byte

    def skip(self, byte: int) -> int:
        while byte in _SPACE:
            byte = self.next()
        return byte

    def scan(self) -> None:
        stack = bytearray()  # the open containers, b"{" or b"["
        byte = self.skip(self.next())
        while True:
            byte = self._value(byte, stack)  # the byte after a complete value
            while True:
                if not stack:
                    self._end_top(byte)
                    return
                byte = self.skip(byte)
                in_object = stack[-1] == ord("{")
                if byte == (ord("}") if in_object else ord("]")):
                    stack.pop()
                    byte = self.next()
                    continue
                if byte != ord(","):
                    raise _bad(byte, "after object key:value pair" if in_object else "after array element")
                break
            byte = self.skip(self.next())
            if stack[-1] == ord("{"):
                self._read_key(byte)
                byte = self.skip(self.next())

    def _value(self, byte: int, stack: bytearray) -> int:
        """Read one value starting with ``byte``; an opening bracket is pushed and its first element read too."""
        while byte in b"{[":
            stack.append(byte)
            if len(stack) > MAX_DEPTH:
                raise _bad(byte, "exceeded max depth")
            closing = ord("}") if byte == ord("{") else ord("]")
            first = self.skip(self.next())
            if first == closing:
                stack.pop()
                return self.next()
            if byte == ord("{"):
                self._read_key(first)
                first = self.skip(self.next())
            byte = first
        if byte == ord('"'):
            self._string()
            return self.next()
        if byte == ord("-") or byte in _DIGITS:
            return self._number(byte)
        if byte in _LITERALS:
            word = _LITERALS[byte]
            for expected in word[1:]:
                got = self.next()
                if got != expected:
                    raise _bad(got, f"in literal {word.decode()} (expecting {quote_char(expected)})")
            return self.next()
        raise _bad(byte, "looking for beginning of value")

    def _read_key(self, byte: int) -> None:
        """An object key and the ``:`` after it."""
        if byte != ord('"'):
            raise _bad(byte, "looking for beginning of object key string")
        self._string()
        byte = self.skip(self.next())
        if byte != ord(":"):
            raise _bad(byte, "after object key")

    def _end_top(self, byte: int) -> None:
        """After the top-level value only whitespace may follow (the appended space ends the input)."""
        while True:
            if byte not in _SPACE:
                raise _bad(byte, "after top-level value")
            if self.at > self.end:
                return
            byte = self.next()

    def _string(self) -> None:
        while True:
            byte = self.next()
            if byte == ord('"'):
                return
            if byte == ord("\\"):
                byte = self.next()
                if byte not in _ESCAPES:
                    raise _bad(byte, "in string escape code")
                if byte == ord("u"):
                    for _ in range(4):
                        byte = self.next()
                        if byte not in _HEX:
                            raise _bad(byte, "in \\u hexadecimal character escape")
            elif byte < 0x20:
                raise _bad(byte, "in string literal")

    def _digits(self) -> int:
        byte = self.next()
        while byte in _DIGITS:
            byte = self.next()
        return byte

    def _number(self, byte: int) -> int:
        if byte == ord("-"):
            byte = self.next()
            if byte not in _DIGITS:
                raise _bad(byte, "in numeric literal")
        byte = self.next() if byte == ord("0") else self._digits()
        if byte == ord("."):
            byte = self.next()
            if byte not in _DIGITS:
                raise _bad(byte, "after decimal point in numeric literal")
            byte = self._digits()
        if byte in b"eE":
            byte = self.next()
            if byte in b"+-":
                byte = self.next()
            if byte not in _DIGITS:
                raise _bad(byte, "in exponent of numeric literal")
            byte = self._digits()
        return byte


def syntax_error(text: str) -> str | None:
    """The ``SyntaxError`` text ``json.Unmarshal`` returns for ``text``, or ``None`` when it is valid JSON."""
    try:
        _Scanner(text.encode("utf-8", "surrogatepass")).scan()
    except _SyntaxError as exc:
        return str(exc)
    return None


def loads(text: str) -> tuple[Any, str | None]:
    """(the value, ``None``) for valid JSON, numbers as ``GoInt``/``GoFloat``; else (``None``, Go's error text)."""
    error = syntax_error(text)
    if error is not None:
        return None, error
    try:
        return json.loads(text, parse_int=_go_int, parse_float=_go_float), None
    except RecursionError:  # valid for Go (up to MAX_DEPTH), deeper than Python's decoder goes
        return None, f"nested deeper than omerender decodes (Go reads up to {MAX_DEPTH} levels)"
