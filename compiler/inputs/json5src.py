"""JSON5 parsing (OpenClaw's config format: comments, trailing commas, unquoted keys) that
remembers the line and column of every value, like the YAML reader.

The `json5` package (the `openclaw` extra) parses and gives the line and column of a syntax
error; it records no positions for values, so a small scanner walks the already valid text to
locate each key and list item, and to place the problems json5 reports without a position
(a duplicate key, a number too long to use).
"""

from __future__ import annotations

import bisect
import json
import re
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._lib import checks, fsutil
from .._lib.errors import Location, PromptcError
from .._lib.text import replace_surrogates

MAX_DEPTH = 100
"""Levels of nested objects and arrays past which a document is refused (the YAML reader has the
same limit)."""
MISSING = "reading JSON5 needs the json5 package: pip install 'promptc[openclaw]'"

_TOKEN = re.compile(
    r"""(?P<space>[\s\ufeff]+)
      | (?P<comment>//[^\n\r\u2028\u2029]*|/\*.*?\*/)
      | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
      | (?P<punct>[{}\[\]:,])
      | (?P<word>[^\s\ufeff{}\[\]:,"'/]+)""",
    re.DOTALL | re.VERBOSE,
)
_SYNTAX = re.compile(r"^<string>:(\d+) (.*?)(?: at column (\d+))?$")
_INTEGER = re.compile(r"[+-]?(?:[0-9]+|0[xX][0-9a-fA-F]+)")


def available() -> bool:
    """Whether the json5 package is installed."""
    return _json5() is not None


def parse(text: str, path: str, error: type[PromptcError]) -> tuple[Any, Mapping[tuple, Location]]:
    """The parsed value (lone surrogates replaced) and the location of every key and item.

    Plain JSON goes through the standard library's parser (fast, in C); only text with JSON5's
    own syntax goes to the json5 package, which is pure Python and slow, so that text is held to
    MAX_JSON5_BYTES.
    """
    json5 = _json5()
    if json5 is None:
        raise error(MISSING, Location(path))
    if not text.strip():
        return None, {}  # an empty file sets nothing, as an empty YAML file does
    value = _plain_json(text)
    if value is _NOT_PLAIN:
        locations = _locate(text, path, error)  # raises for nesting, a duplicate key, a long number
        value = _json5_value(json5, text, path, error)
        return _clean(value), locations
    try:
        cleaned = _clean(value)
    except _TooDeep:
        _locate(text, path, error)  # raises, with the line and column of the level too deep
        raise
    return cleaned, Locations(lambda: _locate(text, path, error))


MAX_JSON5_BYTES = 256 * 1024
"""The largest text read with JSON5's own syntax (comments, trailing commas, unquoted keys);
plain JSON is read up to the input file limit (fsutil.MAX_INPUT_BYTES)."""
_FRAMES_PER_LEVEL = 30
"""Python frames the json5 package spends per level of nesting (about 22 for a mapping)."""
_DEEP = threading.Lock()
"""Held while the recursion limit is raised for the json5 package, so no two parses undo each
other's raise."""
_NOT_PLAIN = object()


def _plain_json(text: str) -> Any:
    """The value of `text` read as plain JSON, or _NOT_PLAIN when it is not plain JSON or has
    something the scanner must place: a duplicate key, a number too long, nesting too deep."""
    try:
        return json.loads(text, parse_int=_parse_int, object_pairs_hook=_unique_keys)
    except (ValueError, RecursionError):
        return _NOT_PLAIN


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    mapping = dict(pairs)
    if len(mapping) != len(pairs):
        raise ValueError("duplicate key")
    return mapping


def _json5_value(json5: Any, text: str, path: str, error: type[PromptcError]) -> Any:
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_JSON5_BYTES:
        raise error(
            f"a JSON5 file of {size:,} bytes is too large: text with comments, trailing commas or unquoted"
            f" keys is read up to {MAX_JSON5_BYTES:,} bytes (plain JSON up to {fsutil.MAX_INPUT_BYTES:,})",
            Location(path),
        )
    with _DEEP:
        # The scanner has checked the nesting against MAX_DEPTH; json5 recurses ~22 frames a
        # level, more than Python's default limit allows for that depth.
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(limit + MAX_DEPTH * _FRAMES_PER_LEVEL)
        try:
            return json5.loads(text, allow_duplicate_keys=False, parse_int=_parse_int)
        except ValueError as exc:
            raise error(*_syntax_problem(str(exc), path)) from exc
        finally:
            sys.setrecursionlimit(limit)


def _parse_int(text: str, base: int = 10) -> int:
    """A JSON5 integer (decimal or hex); one too long is refused before it is converted (the
    scanner then says where it is)."""
    short = len(text) <= checks.MAX_DIGITS  # then it cannot have too many digits: skip counting
    value = int(text, base) if short or checks.long_number_text(text) is None else None
    if value is None or checks.long_number(value):
        raise ValueError(checks.TOO_LONG)
    return value


def _json5() -> Any:
    try:
        import json5
    except ImportError:
        return None
    return json5


def _syntax_problem(message: str, path: str) -> tuple[str, Location]:
    """json5's `<string>:LINE Unexpected "x" at column COL` as our message and location."""
    match = _SYNTAX.match(message.splitlines()[0] if message else "")
    if match is None:
        return f"invalid JSON5: {message.split(';')[0]}", Location(path)
    line, problem, column = match.groups()
    return f"invalid JSON5: {problem[0].lower()}{problem[1:]}", Location(path, int(line), int(column or 1))


class _TooDeep(Exception):
    """Plain JSON nested past MAX_DEPTH (the scanner then says where)."""


def _clean(value: Any, depth: int = 0) -> Any:
    if isinstance(value, str):
        return replace_surrogates(value)
    if isinstance(value, (list, dict)) and depth >= MAX_DEPTH:
        raise _TooDeep
    if isinstance(value, list):
        return [_clean(item, depth + 1) for item in value]
    if isinstance(value, dict):
        return {replace_surrogates(key): _clean(item, depth + 1) for key, item in value.items()}
    return value


class Locations(Mapping[tuple, Location]):
    """Key path -> location, found by scanning the text when first asked for (a large plain
    JSON file whose values are all valid is never scanned)."""

    def __init__(self, scan: Callable[[], dict[tuple, Location]]) -> None:
        self._scan: Callable[[], dict[tuple, Location]] | None = scan
        self._found: dict[tuple, Location] = {}

    def _all(self) -> dict[tuple, Location]:
        if self._scan is not None:
            self._found, self._scan = self._scan(), None
        return self._found

    def __getitem__(self, key: tuple) -> Location:
        return self._all()[key]

    def __iter__(self) -> Iterator[tuple]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


@dataclass
class _Open:
    """A mapping or list being scanned."""

    key_path: tuple
    is_mapping: bool
    key: str | None = None
    """The member key read last, until its value is read (mappings only)."""
    index: int = 0
    """The next item's index (lists only)."""
    keys: set[str] = field(default_factory=set)


class _Scanner:
    """Walks the tokens of valid JSON5, recording where each key and list item starts."""

    def __init__(self, text: str, path: str, error: type[PromptcError]) -> None:
        self.text, self.path, self.error = text, path, error
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.locations: dict[tuple, Location] = {}
        self.stack: list[_Open] = []

    def run(self) -> dict[tuple, Location]:
        for match in _TOKEN.finditer(self.text):
            kind, token = match.lastgroup, match.group()
            if kind == "punct" and token in "}]":
                if not self.stack:
                    break  # a close with nothing open: the parser says where
                self.stack.pop()
            elif kind in ("string", "word") or token in "{[":
                self._item(kind, token, match.start())
        return self.locations

    def _item(self, kind: str | None, token: str, offset: int) -> None:
        top = self.stack[-1] if self.stack else None
        if top is not None and top.is_mapping and top.key is None:
            self._key(top, _key_text(kind, token), offset)
            return
        if top is None:
            key_path: tuple = ()
        elif top.is_mapping:
            key_path, top.key = top.key_path + (top.key,), None
        else:
            key_path, top.index = top.key_path + (top.index,), top.index + 1
        self.locations.setdefault(key_path, self._where(offset))
        if token in ("{", "["):
            if len(self.stack) >= MAX_DEPTH:
                raise self.error(f"nested more than {MAX_DEPTH} levels deep", self._where(offset))
            self.stack.append(_Open(key_path, token == "{"))
        elif kind == "word" and _INTEGER.fullmatch(token):
            try:
                _parse_int(token, 16 if "x" in token.lower() else 10)
            except ValueError as exc:
                raise self.error(f"cannot read this value: {exc}", self._where(offset)) from exc

    def _key(self, top: _Open, key: str, offset: int) -> None:
        if key in top.keys:
            raise self.error(f"duplicate key {key!r}", self._where(offset))
        top.keys.add(key)
        top.key = key
        # A member is located at its key, as in YAML: that is the line a reader looks for.
        self.locations[top.key_path + (key,)] = self._where(offset)

    def _where(self, offset: int) -> Location:
        line = bisect.bisect_right(self.line_starts, offset) - 1
        return Location(self.path, line + 1, offset - self.line_starts[line] + 1)


def _locate(text: str, path: str, error: type[PromptcError]) -> dict[tuple, Location]:
    return _Scanner(text, path, error).run()


def _key_text(kind: str | None, token: str) -> str:
    """A member key as json5 reads it: quotes removed, escapes decoded."""
    if kind == "string" and "\\" not in token:
        return token[1:-1]
    if "\\" in token:
        try:
            decoded = _json5().loads("{" + token + ": 0}")
        except ValueError:
            return token  # a bad escape: the parser says where
        return replace_surrogates(next(iter(decoded)))
    return token
