"""Lossless JSON for session lines: numbers keep their text, and an edit splices new values into a line.

Python's `json` would change what it cannot represent (`1e400` becomes `Infinity`, `-0` becomes
`0`, a 5,000-digit integer is refused). Here such a number is kept as a `RawNumber` holding its
text, and a line is rewritten by replacing only the spans of the values that change, so every
other byte of it (spacing, escapes, duplicate keys, number spellings) stays as it was.

A line's bytes are decoded with `surrogateescape`, so bytes that are not UTF-8 survive a splice.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

# Below this many digits an integer converts to Python and back exactly; above it Python refuses
# (sys.int_info.default_max_str_digits, 4300) or needs a global switch we do not want to flip.
_SAFE_INT_DIGITS = min(4000, sys.get_int_max_str_digits() or 4000)
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True, slots=True)
class RawNumber:
    """A JSON number that Python would not write back as it was read; it keeps its text."""

    text: str
    """The number exactly as it appeared, e.g. `-0`, `1e400`, `1.50`."""

    @property
    def value(self) -> float:
        """The nearest float (infinite or zero when out of range), for comparisons only."""
        return float(self.text)


def _parse_int(text: str) -> int | RawNumber:
    return RawNumber(text) if text == "-0" or len(text) > _SAFE_INT_DIGITS else int(text)


def _parse_float(text: str) -> float | RawNumber:
    number = float(text)
    return number if repr(number) == text else RawNumber(text)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(parse_int=_parse_int, parse_float=_parse_float, parse_constant=_reject_constant)
_C_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.raw_decode


def loads(text: str) -> Any:
    """Parse one JSON text strictly (NaN and Infinity are not JSON); numbers keep their text when needed.
    Nesting has no depth limit (a Node runtime reads any depth), only the line cap bounds it."""
    value, end = _scan(text, _skip(text, 0))
    if _skip(text, end) != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


def _scan(text: str, at: int) -> tuple[Any, int]:
    """(value, index just past it) for the JSON value that starts exactly at `at`. The C scanner
    recurses per level and gives up near Python's recursion limit; such a value is read again
    without recursion."""
    try:
        return _C_SCAN(text, at)
    except RecursionError:
        return _scan_flat(text, at)


# ---------------------------------------------------------------------------------------------
# Reading without recursion: open containers live on a list, so depth costs memory, not stack

_NUMBER = re.compile(r"(-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)?")
_LITERALS = (("true", True), ("false", False), ("null", None))
_CLOSER = {"[": "]", "{": "}"}


def _scan_flat(text: str, at: int) -> tuple[Any, int]:
    """What `_C_SCAN` returns, read with an explicit stack of [container, key awaiting a value]."""
    stack: list[list[Any]] = []
    while True:
        value, at = _start(text, at, stack)
        if value is _OPENED:
            continue
        while stack:
            value, at = _add(text, at, stack, value)
            if value is _OPENED:
                break
        else:
            return value, at


_OPENED = object()
"""Marker: a container was opened (pushed on the stack); its first value follows."""


def _start(text: str, at: int, stack: list[list[Any]]) -> tuple[Any, int]:
    """The scalar or empty container at `at`, or _OPENED after pushing a non-empty container."""
    at = _skip(text, at)
    char = text[at : at + 1]
    if char in _CLOSER:
        inner = _skip(text, at + 1)
        if text[inner : inner + 1] == _CLOSER[char]:
            return ({} if char == "{" else []), inner + 1
        if char == "[":
            stack.append([[], None])
            return _OPENED, inner
        stack.append([{}, None])
        stack[-1][1], at = _key(text, inner)
        return _OPENED, at
    if char == '"':
        return json.decoder.scanstring(text, at + 1, True)
    number = _NUMBER.match(text, at)
    if number:
        integer, fraction, exponent = number.groups()
        if fraction or exponent:
            return _parse_float(integer + (fraction or "") + (exponent or "")), number.end()
        return _parse_int(integer), number.end()
    for word, literal in _LITERALS:
        if text.startswith(word, at):
            return literal, at + len(word)
    raise json.JSONDecodeError("Expecting value", text, at)


def _add(text: str, at: int, stack: list[list[Any]], value: Any) -> tuple[Any, int]:
    """Put `value` in the innermost open container; then either the container closes (returned, and
    popped) or a comma leads to its next value (_OPENED)."""
    container, key = stack[-1]
    if key is None:
        container.append(value)
    else:
        container[key] = value
    at = _skip(text, at)
    char = text[at : at + 1]
    if char == ",":
        if isinstance(container, dict):
            stack[-1][1], at = _key(text, _skip(text, at + 1))
        return _OPENED, at + (not isinstance(container, dict))
    if char == ("]" if key is None else "}"):
        stack.pop()
        return container, at + 1
    raise json.JSONDecodeError("Expecting ',' delimiter", text, at)


def _key(text: str, at: int) -> tuple[str, int]:
    """An object key and the index just past its colon."""
    if text[at : at + 1] != '"':
        raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, at)
    key, at = json.decoder.scanstring(text, at + 1, True)
    at = _skip(text, at)
    if text[at : at + 1] != ":":
        raise json.JSONDecodeError("Expecting ':' delimiter", text, at)
    return key, at + 1


def decode_line(raw: bytes) -> str:
    """A line's text; bytes that are not UTF-8 become lone surrogates that `encode_line` turns back."""
    return raw.decode("utf-8", errors="surrogateescape")


def encode_line(text: str) -> bytes:
    """The bytes of a line decoded by `decode_line` (spliced values are ASCII, so they encode as is)."""
    return text.encode("utf-8", errors="surrogateescape")


# ---------------------------------------------------------------------------------------------
# Writing values


def dumps(value: Any, indent: int | None = None, ascii_only: bool = False) -> str:
    """JSON text for `value`: compact, or indented like `json.dumps(indent=...)`; RawNumbers as read."""
    parts: list[str] = []
    _write(value, parts, indent, 0, ascii_only)
    return "".join(parts)


def exact_json(value: Any) -> str | None:
    """ASCII JSON text that reads back as `value`, or None when a string in it holds a lone surrogate
    (it may stand for a byte that was not UTF-8, which no escape can write back)."""
    return None if _holds_surrogate(value) else dumps(value, ascii_only=True)


def _holds_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return _SURROGATE.search(value) is not None
    if isinstance(value, Mapping):
        return any(_holds_surrogate(k) or _holds_surrogate(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_holds_surrogate(v) for v in value)
    return False


def _write(value: Any, out: list[str], indent: int | None, depth: int, ascii_only: bool) -> None:
    if isinstance(value, RawNumber):
        out.append(value.text)
    elif isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=ascii_only))
    elif isinstance(value, Mapping):
        _write_container("{", "}", list(value.items()), out, indent, depth, ascii_only)
    elif isinstance(value, (list, tuple)):
        _write_container("[", "]", list(value), out, indent, depth, ascii_only)
    else:
        out.append(json.dumps(value, allow_nan=False))


def _write_container(
    opening: str, closing: str, items: list, out: list[str], indent: int | None, depth: int, ascii_only: bool
) -> None:
    if not items:
        out.append(opening + closing)
        return
    inner = "" if indent is None else "\n" + " " * (indent * (depth + 1))
    comma, colon = ("," + inner, ":") if indent is None else ("," + inner, ": ")
    out.append(opening + inner)
    for index, item in enumerate(items):
        if index:
            out.append(comma)
        if opening == "{":
            out.append(json.dumps(item[0], ensure_ascii=ascii_only) + colon)
            item = item[1]
        _write(item, out, indent, depth + 1, ascii_only)
    out.append(("" if indent is None else "\n" + " " * (indent * depth)) + closing)


# ---------------------------------------------------------------------------------------------
# Spans of values inside a line (the line is already known to parse)


@dataclass(frozen=True, slots=True)
class Span:
    """Where one value sits in a line's text."""

    start: int
    """Index of its first character."""
    end: int
    """Index just past its last character."""


def value_span(text: str) -> Span:
    """The span of the one value the line holds (without surrounding whitespace)."""
    start = _skip(text, 0)
    return Span(start, _scan(text, start)[1])


def member_spans(text: str, span: Span) -> dict[str, Span]:
    """Key -> value span for the object at `span`; a repeated key maps to its last value (the one
    every JSON reader we care about keeps), so editing it leaves the earlier ones in place."""
    members: dict[str, Span] = {}
    at = _skip(text, span.start + 1)
    while text[at] != "}":
        key, at = _scan(text, at)
        at = _skip(text, _skip(text, at) + 1)  # past the colon
        end = _scan(text, at)[1]
        members[key] = Span(at, end)
        at = _skip(text, end)
        at = _skip(text, at + 1) if text[at] == "," else at
    return members


def element_spans(text: str, span: Span) -> list[Span]:
    """The spans of the elements of the array at `span`, in order."""
    elements: list[Span] = []
    at = _skip(text, span.start + 1)
    while text[at] != "]":
        end = _scan(text, at)[1]
        elements.append(Span(at, end))
        at = _skip(text, end)
        at = _skip(text, at + 1) if text[at] == "," else at
    return elements


def separator(text: str, elements: list[Span]) -> str:
    """The text between the first two elements (`,` or `, `), so a rebuilt array reads like the original."""
    return text[elements[0].end : elements[1].start] if len(elements) > 1 else ","


def splice(text: str, edits: Iterable[tuple[Span, str]]) -> str:
    """`text` with each span replaced by its new text (spans must not overlap)."""
    out, at = [], 0
    for span, new in sorted(edits, key=lambda edit: edit[0].start):
        out += [text[at : span.start], new]
        at = span.end
    return "".join(out) + text[at:]


def _skip(text: str, at: int) -> int:
    match = _WHITESPACE.match(text, at)
    return match.end() if match else at
