"""Split a leading YAML frontmatter block off a text, byte-exactly and without evaluating it.

The body is returned untouched apart from the removed block; anything doubtful is kept verbatim.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from . import checks
from .text import replace_surrogates

OPENING_DELIMITER = "---"
CLOSING_DELIMITERS = ("---", "...")
_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\n)+")


class _FrontmatterLoader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 booleans and no timestamp type.

    `name: yes` stays the string "yes" (YAML 1.1 would make it True), and dates stay strings,
    so metadata is plain JSON-friendly data.
    """


_FrontmatterLoader.yaml_implicit_resolvers = {
    first: [
        (tag, regexp)
        for tag, regexp in resolvers
        if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")
    ]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_FrontmatterLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"),
)


class FastLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The same rules on libyaml's parser (about 18x faster), for SKILL.md metadata. Its error
    messages are worded differently, so a failed parse is repeated with _FrontmatterLoader."""


FastLoader.yaml_implicit_resolvers = _FrontmatterLoader.yaml_implicit_resolvers


def _whole_number(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    """YAML's int, refused when too long to write out again, and refused before it is built when
    written too long (a `1:00:00...` number takes time quadratic in its length to build)."""
    problem = checks.long_number_text(node.value)
    value = loader.construct_yaml_int(node) if problem is None else None
    if value is None or checks.long_number(value):
        raise ValueError(checks.TOO_LONG)
    return value


for _loader in (_FrontmatterLoader, FastLoader):
    _loader.add_constructor("tag:yaml.org,2002:int", _whole_number)


@dataclass(frozen=True, slots=True)
class Split:
    """A text with its frontmatter block taken off (or left on, with the reason)."""

    body: str
    """The text after the block and the blank lines that followed it; the whole text if kept."""
    metadata: Mapping[str, Any] | None
    """The parsed mapping; None when there was no usable frontmatter."""
    diagnostic: str | None = None
    """Why a block that looked like frontmatter was kept verbatim."""


def split(text: str) -> Split:
    """Remove a leading `---` block closed by `---` or `...`; keep the text verbatim when in doubt.

    Expects LF newlines. Delimiter lines may carry trailing spaces or tabs.
    """
    lines = text.split("\n")
    if not lines or lines[0].rstrip(" \t") != OPENING_DELIMITER:
        return Split(text, None)
    closing = _closing_line_index(lines)
    if closing is None:
        return Split(text, None, "frontmatter opened on line 1 is never closed; file kept verbatim")
    metadata, problem = parse_block("\n".join(lines[1:closing]))
    if problem is not None:
        return Split(text, None, f"{problem}; file kept verbatim")
    return Split(_strip_leading_blank_lines(lines[closing + 1 :]), metadata)


def _closing_line_index(lines: list[str]) -> int | None:
    """Index of the first line after the opening one that closes the block."""
    for index in range(1, len(lines)):
        if lines[index].rstrip(" \t") in CLOSING_DELIMITERS:
            return index
    return None


def parse_block(block: str, loader: type = _FrontmatterLoader) -> tuple[Mapping[str, Any] | None, str | None]:
    """Parse the YAML between the delimiters: (mapping, None) or (None, what went wrong)."""
    try:
        data = yaml.load(block, Loader=loader)
    except yaml.YAMLError as error:
        if loader is not _FrontmatterLoader:
            return parse_block(block)  # for the usual wording of what is wrong
        return None, f"frontmatter is not valid YAML ({_describe_yaml_error(error)})"
    except RecursionError:  # PyYAML composes nested nodes recursively
        return None, "frontmatter is nested too deeply to read"
    except ValueError as error:  # a value its tag cannot hold: 4,301+ digits, `!!float abc`
        return None, f"frontmatter has a value YAML cannot read ({_first_line(str(error))})"
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return None, f"frontmatter is YAML but not a mapping (found {type(data).__name__})"
    try:
        return _plain(data, _Budget()), None
    except ValueError as error:
        return None, f"frontmatter {error}"


def parse_metadata(block: str) -> tuple[Mapping[str, Any] | None, str | None]:
    """`parse_block` with libyaml (FastLoader), and no YAML at all for a block of one-line
    `key: value` entries, as most SKILL.md files are (YAML was ~9 ms of a cold render of 127)."""
    plain = plain_mapping(block)
    if plain is not None:
        return plain, None
    return parse_block(block, FastLoader)


_ENTRY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]{0,127}): +(\S[^\t]*)")
"""`key: value` at column 0, a key of word characters (short: YAML allows a simple key 1,024
characters), no tab anywhere."""
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")
"""A character outside YAML's printable set (an error), one it reads as a line break (U+0085,
U+2028, U+2029), or a byte-order mark (U+FEFF). Written as the complement of the printable
ranges: compiling those ranges costs ~6 ms, a cold render's worth of SKILL.md parsing."""
_NOT_PLAIN = re.compile(": |:$| #")
"""What ends a plain scalar: a value indicator (a mapping) or a comment."""
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
UNSURE = object()
"""What a reader below returns for a value it cannot vouch YAML reads the same way."""


def plain_mapping(block: str) -> dict[str, Any] | None:
    """The block as FastLoader reads it when every line is empty or one `key: value` entry whose
    value is plain text or one-line JSON (`{...}`, `[...]`, `"..."`), read by the loader's own implicit
    resolvers; else None, for the loader to read. tests/test_frontmatter.py proves it equal to
    the loader on generated blocks."""
    found: dict[str, Any] = {}
    for line in block.split("\n"):
        if not line:
            continue
        entry = _ENTRY.fullmatch(line)
        if entry is None or _UNPRINTABLE.search(line) or not _is_text(entry[1]):
            return None
        value = entry[2].rstrip(" ")
        found[entry[1]] = _json(value) if value[0] in '[{"' else _scalar(value)
        if found[entry[1]] is UNSURE:
            return None
    try:
        return _plain(found, _Budget()) if found else None
    except ValueError:  # too many values or too deep: the loader's reading says so
        return None


def _scalar(value: str) -> Any:
    if value[0] in _INDICATORS or _NOT_PLAIN.search(value) or not _is_text(value):
        return UNSURE
    return value


def _json(value: str) -> Any:
    """A flow collection or double-quoted string written as JSON, with YAML's reading of each
    number (`1e5` is text to YAML 1.1, and `NaN` a plain word)."""
    try:
        return json.loads(value, parse_int=_yaml_int, parse_float=_yaml_float, parse_constant=_refuse)
    except (ValueError, RecursionError):
        return UNSURE


def _yaml_int(text: str) -> int:
    if checks.long_number_text(text) or _tag(text) != "tag:yaml.org,2002:int":
        raise ValueError(text)
    value = int(text)
    if checks.long_number(value):
        raise ValueError(text)
    return value


def _yaml_float(text: str) -> float:
    if _tag(text) != "tag:yaml.org,2002:float":
        raise ValueError(text)
    return float(text)


def _refuse(text: str) -> Any:
    raise ValueError(text)


def _tag(scalar: str) -> str | None:
    """The tag the loader's implicit resolvers give a plain scalar; None for a string."""
    resolvers = FastLoader.yaml_implicit_resolvers
    for tag, regexp in (*resolvers.get(scalar[0], ()), *resolvers.get(None, ())):
        if regexp.match(scalar):
            return tag
    return None


def _is_text(scalar: str) -> bool:
    return _tag(scalar) is None


MAX_METADATA_VALUES = 10_000
"""Aliases can make a small block expand enormously; past this many values we give up on it."""
MAX_METADATA_DEPTH = 64
"""Metadata is a few levels deep; far deeper nesting is refused before it can exhaust the stack."""


class _Budget:
    """Counts values while flattening metadata, and the containers currently being flattened."""

    def __init__(self) -> None:
        self.left = MAX_METADATA_VALUES
        self.open: set[int] = set()


def _plain(value: Any, budget: _Budget) -> Any:
    """The metadata as plain, deterministic JSON data (sets sorted, odd scalars as text, lone
    surrogates replaced so the metadata can be written as UTF-8)."""
    budget.left -= 1
    if budget.left < 0:
        raise ValueError(f"expands to more than {MAX_METADATA_VALUES} values")
    if isinstance(value, (dict, list, tuple)):
        return _plain_container(value, budget)
    if isinstance(value, (set, frozenset)):
        return sorted(_text(item) for item in value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, (int, float, bool)):
        return value
    return _text(value)


def _text(value: Any) -> str:
    return replace_surrogates(str(value))


def _plain_container(value: dict | list | tuple, budget: _Budget) -> Any:
    if id(value) in budget.open:
        raise ValueError("contains an alias to itself")
    if len(budget.open) >= MAX_METADATA_DEPTH:
        raise ValueError(f"is nested more than {MAX_METADATA_DEPTH} levels deep")
    budget.open.add(id(value))
    try:
        if isinstance(value, dict):
            return {_text(key): _plain(item, budget) for key, item in value.items()}
        return [_plain(item, budget) for item in value]
    finally:
        budget.open.discard(id(value))


def _first_line(text: str) -> str:
    return text.splitlines()[0] if text else "unknown problem"


def _describe_yaml_error(error: yaml.YAMLError) -> str:
    """A one-line reason with the file line number (the block starts on line 2)."""
    problem = getattr(error, "problem", None) or "parse error"
    mark = getattr(error, "problem_mark", None)
    if mark is None:
        return problem
    return f"{problem} at line {mark.line + 2}, column {mark.column + 1}"


def _strip_leading_blank_lines(lines: list[str]) -> str:
    """Join the lines after the block, dropping the blank ones at its start."""
    return _LEADING_BLANK_LINES.sub("", "\n".join(lines))
