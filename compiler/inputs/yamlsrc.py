"""YAML (and JSON) parsing that remembers the line and column of every value."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from .._lib import checks, fsutil
from .._lib.errors import Location, PromptcError
from .._lib.text import replace_surrogates

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's parser when PyYAML was built with it (several times faster), else pure Python."""
FAST_LOADER = _LOADER
"""The same, for callers that need plain data without locations (`--set` values)."""


@dataclass(frozen=True, slots=True)
class Located:
    """A parsed document plus the location of every node, keyed by its path tuple."""

    value: Any
    """Plain Python data (dicts, lists, scalars)."""
    locations: Mapping[tuple[Any, ...], Location]
    """Path tuple (keys and list indexes) -> where that value starts."""
    path: str
    """The source name used in locations."""

    def where(self, key_path: tuple[Any, ...]) -> Location:
        """Location of the deepest known node on `key_path` (the document start if none)."""
        for end in range(len(key_path), -1, -1):
            found = self.locations.get(tuple(key_path[:end]))
            if found is not None:
                return found
        return Location(self.path, 1, 1) if self.locations else Location(self.path)


def parse(text: str, path: str, error: type[PromptcError] = PromptcError) -> Located:
    """Parse one YAML document; a syntax error is raised as `error` with its location."""
    try:
        node = yaml.compose(text, Loader=_LOADER)
    except yaml.YAMLError as exc:
        raise error(_problem(exc), _mark_location(exc, path)) from exc
    except RecursionError as exc:  # the pure-Python composer recurses per nesting level
        raise error(f"nested more than {MAX_DEPTH} levels deep", Location(path)) from exc
    if node is None:
        return Located(None, {}, path)
    builder = _Builder(path, error)
    try:
        value = builder.build(node, ())
    except yaml.YAMLError as exc:
        raise error(_problem(exc), _mark_location(exc, path)) from exc
    return Located(value, builder.locations, path)


JSON_SUFFIXES = (".json", ".json5")
"""Read as JSON5 (JSON is a subset), when the json5 package is installed."""


def load_file(path: Path, error: type[PromptcError] = PromptcError) -> Located:
    """Read and parse a YAML, JSON or JSON5 file; unreadable files are raised as `error`.

    Only a regular file of at most fsutil.MAX_INPUT_BYTES is read: a FIFO or a device is
    refused at once, never waited on or read without end.
    """
    return parse_source(decode(fsutil.read_input(path, error), path, error), path, error)


def decode(data: bytes, path: Path, error: type[PromptcError] = PromptcError) -> str:
    """A file's bytes as text (UTF-8, a BOM dropped); undecodable bytes are raised as `error`."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"cannot read file: {exc}", Location(str(path))) from exc


def parse_source(text: str, path: Path, error: type[PromptcError] = PromptcError) -> Located:
    """Parse a file's text by its kind.

    `.json` and `.json5` files are JSON5 (OpenClaw's `openclaw.json` has comments and trailing
    commas). Without the json5 package a `.json` file is read as YAML, which holds plain JSON,
    and a failure says what to install.
    """
    suffix = path.suffix.lower()
    if suffix in (".json", ".json5"):
        from . import json5src  # here: a YAML config never loads the JSON5 reader

        if suffix == ".json5" or json5src.available():
            value, locations = json5src.parse(text, str(path), error)
            return Located(value, locations, str(path))
    try:
        return parse(text, str(path), error)
    except PromptcError as exc:
        if suffix != ".json":
            raise
        hint = "a JSON5 file, with comments or trailing commas, needs: pip install 'promptc[openclaw]'"
        raise error(f"{exc.message} ({hint})", exc.location) from exc


MAX_VALUES = 100_000
"""Values (scalars, mappings and lists, each alias counted again) a document may hold: aliases can
make a small file expand enormously, and past this many it is refused."""
MAX_DEPTH = 100
"""Levels of nested mappings and lists: config is a few deep, and nesting past this is refused
before it can exhaust the stack."""
MAX_TEXT_CHARS = 4 * fsutil.MAX_INPUT_BYTES
"""Characters of text (keys and values) a document may hold once its aliases are expanded: an
alias repeats its anchor's text without costing bytes in the file."""


class _Builder:
    """Turns a composed node graph into plain data, recording where each value sits.

    Each document gets a constructor of its own: a constructor remembers every node it built
    (and, through their marks, the source text), so one shared by the module would keep every
    document ever parsed alive in a long-running process."""

    def __init__(self, path: str, error: type[PromptcError]) -> None:
        self.path, self.error = path, error
        self.constructor = yaml.constructor.SafeConstructor()
        self.locations: dict[tuple[Any, ...], Location] = {}
        self.budget = MAX_VALUES
        self.chars = MAX_TEXT_CHARS
        self.open: set[int] = set()  # nodes being built: meeting one again is a recursive alias

    def build(self, node: yaml.Node, key_path: tuple, at: Location | None = None) -> Any:
        """One node's value; `at` is where its path is reported (a mapping's value: its key),
        its own start otherwise. A problem inside it points at its own start."""
        self.locations[key_path] = at or self.where(node)
        self.budget -= 1
        if self.budget < 0:
            raise self.error(f"too many values after expanding aliases (limit {MAX_VALUES})", self.where(node))
        if id(node) in self.open:
            raise self.error("an alias refers to a value that contains it", self.where(node))
        if len(self.open) >= MAX_DEPTH:
            raise self.error(f"nested more than {MAX_DEPTH} levels deep", self.where(node))
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node)
        self.open.add(id(node))
        try:
            if isinstance(node, yaml.MappingNode):
                return self._mapping(node, key_path)
            assert isinstance(node, yaml.SequenceNode)
            return self._sequence(node, key_path)
        finally:
            self.open.discard(id(node))

    def where(self, node: yaml.Node) -> Location:
        return _node_location(node, self.path)

    def _sequence(self, node: yaml.SequenceNode, key_path: tuple) -> list[Any]:
        return [self.build(item, key_path + (index,)) for index, item in enumerate(node.value)]

    def _mapping(self, node: yaml.MappingNode, key_path: tuple) -> dict[Any, Any]:
        self.constructor.flatten_mapping(node)  # applies `<<: *anchor` merge keys
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise self.error("mapping keys must be plain values", self.where(key_node))
            key = self.scalar(key_node)
            if key in result:
                raise self.error(f"duplicate key {key!r}", self.where(key_node))
            # A value is reported at its key: that is the line a reader looks for.
            result[key] = self.build(value_node, key_path + (key,), self.where(key_node))
        return result

    def scalar(self, node: yaml.Node) -> Any:
        """One scalar's value, its text counted against MAX_TEXT_CHARS first; strings lose lone
        surrogates (they cannot be written as UTF-8), and a number too long to write out again is
        refused however it is written."""
        self.chars -= len(node.value)
        if self.chars < 0:
            limit = f"{MAX_TEXT_CHARS:,} characters"
            raise self.error(f"too much text after expanding aliases (limit {limit})", self.where(node))
        if node.tag == STR_TAG:  # a string is its scalar's text, as SafeConstructor makes it
            return replace_surrogates(node.value)
        if node.tag == INT_TAG and checks.long_number_text(node.value):  # before it costs time
            raise self.error(f"cannot read this value: {checks.TOO_LONG}", self.where(node))
        try:
            value = self.constructor.construct_object(node, deep=True)
        except ValueError as exc:  # a value its tag cannot hold: `!!float abc`, `!!int x`
            raise self.error(f"cannot read this value: {str(exc).split(';')[0]}", self.where(node)) from exc
        if checks.long_number(value):
            raise self.error(f"cannot read this value: {checks.TOO_LONG}", self.where(node))
        return replace_surrogates(value) if isinstance(value, str) else value


INT_TAG = "tag:yaml.org,2002:int"
STR_TAG = "tag:yaml.org,2002:str"


def _node_location(node: yaml.Node, path: str) -> Location:
    mark = node.start_mark
    return Location(path, mark.line + 1, mark.column + 1)


def _mark_location(exc: yaml.YAMLError, path: str) -> Location:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is None:
        return Location(path)
    return Location(path, mark.line + 1, mark.column + 1)


def _problem(exc: yaml.YAMLError) -> str:
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    text = f"{context}, {problem}" if context else problem
    return f"invalid YAML: {text}"
