"""Find a leading YAML frontmatter block in a text and read it as plain data, never evaluating it.

Workspace files, section files and SKILL.md all find their block here; `split` also gives a
workspace file's body, byte-exactly (anything doubtful keeps the text verbatim).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from . import checks
from . import text as text_helpers

OPENING_DELIMITER = "---"
NEVER_CLOSED = "frontmatter opened on line 1 is never closed"

Parsed = tuple[Mapping[str, Any] | None, str | None]
"""A block read: (its mapping, None), or (None, why it cannot be used)."""


@dataclass(frozen=True, slots=True)
class Delimiters:
    """The lines that open and close a frontmatter block: the first line opens it when it reads
    `---`, and the first later line that reads one of `closing` closes it."""

    closing: tuple[str, ...]
    """What a closing line reads."""
    trim: Callable[[str], str]
    """What a line loses before it is compared."""

    def opens(self, line: str) -> bool:
        """Whether `line`, a text's first, opens a block."""
        return self.trim(line) == OPENING_DELIMITER

    def closing_line(self, lines: Sequence[str]) -> int | None:
        """The index of the line closing the block that `lines[0]` opens; None when none does."""
        for index in range(1, len(lines)):
            if self.trim(lines[index]) in self.closing:
                return index
        return None


DELIMITERS = Delimiters(("---", "..."), lambda line: line.rstrip(" \t"))
"""Workspace files and SKILL.md: closed by `---` or `...`; spaces and tabs may trail either line."""


# --------------------------------------------------------------------------- the YAML reader


class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PyYAML's safe loader, on libyaml when PyYAML has it, with YAML 1.2 booleans, no timestamp
    type and whole numbers of at most checks.MAX_DIGITS digits.

    `name: yes` stays the string "yes" (YAML 1.1 would make it True), and dates stay strings,
    so metadata is plain JSON-friendly data.
    """


Loader.yaml_implicit_resolvers = {
    first: [
        (tag, regexp)
        for tag, regexp in resolvers
        if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")
    ]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"),
)


def _whole_number(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    """YAML's int, refused when too long to write out again, and refused before it is built when
    written too long (a `1:00:00...` number takes time quadratic in its length to build)."""
    problem = checks.long_number_text(node.value)
    value = loader.construct_yaml_int(node) if problem is None else None
    if value is None or checks.long_number(value):
        raise ValueError(checks.TOO_LONG)
    return value


Loader.add_constructor("tag:yaml.org,2002:int", _whole_number)


class _PurePython(yaml.SafeLoader):
    """Loader's rules on PyYAML's own parser. A block libyaml refuses is read again with it, so a
    refusal is worded the same whether or not PyYAML has libyaml, and what only libyaml refuses
    (an escaped lone surrogate) still reads."""

    yaml_implicit_resolvers = Loader.yaml_implicit_resolvers
    yaml_constructors = Loader.yaml_constructors


_LIBYAML = not issubclass(Loader, yaml.SafeLoader)


def parse_block(block: str) -> Parsed:
    """The YAML between the delimiters as plain data, or why it cannot be used. A block Loader
    cannot use on libyaml is read again on PyYAML's own parser, whose outcome stands."""
    found = _read(block, Loader)
    if found[0] is None and _LIBYAML:
        found = _read(block, _PurePython)
    return found


def _read(block: str, loader: type) -> Parsed:
    try:
        data = yaml.load(block, Loader=loader)
    except yaml.YAMLError as error:
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


def _first_line(text: str) -> str:
    return text.splitlines()[0] if text else "unknown problem"


def _describe_yaml_error(error: yaml.YAMLError) -> str:
    """A one-line reason with the file line number (the block starts on line 2)."""
    problem = getattr(error, "problem", None) or "parse error"
    mark = getattr(error, "problem_mark", None)
    if mark is None:
        return problem
    return f"{problem} at line {mark.line + 2}, column {mark.column + 1}"


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
    return text_helpers.replace_surrogates(str(value))


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


# --------------------------------------------------------------------------- what the callers take


@dataclass(frozen=True, slots=True)
class Split:
    """A text with its frontmatter block taken off (or left on, with the reason)."""

    body: str
    """The text after the block and the blank lines that followed it; the whole text if kept."""
    metadata: Mapping[str, Any] | None
    """The parsed mapping; None when there was no usable frontmatter."""
    diagnostic: str | None = None
    """Why a block that looked like frontmatter was kept verbatim."""


_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\n)+")


def split(text: str) -> Split:
    """A workspace file without its frontmatter block; the text verbatim when in doubt.

    Expects LF newlines. The block is read without the line break of its last line.
    """
    lines = text.split("\n")
    if not DELIMITERS.opens(lines[0]):
        return Split(text, None)
    closing = DELIMITERS.closing_line(lines)
    if closing is None:
        return Split(text, None, f"{NEVER_CLOSED}; file kept verbatim")
    found, problem = parse_block("\n".join(lines[1:closing]))
    if problem is not None:
        return Split(text, None, f"{problem}; file kept verbatim")
    return Split(_LEADING_BLANK_LINES.sub("", "\n".join(lines[closing + 1 :])), found)


def metadata(text: str) -> Parsed:
    """A SKILL.md's frontmatter mapping, or None and why not ((None, None): the text has no block).

    Expects LF newlines. The block is read as a YAML document of its lines, each with its line
    break (a block scalar that ends it keeps its final newline).
    """
    lines = text.split("\n")
    if not DELIMITERS.opens(lines[0]):
        return None, None
    closing = DELIMITERS.closing_line(lines)
    if closing is None:
        return None, NEVER_CLOSED
    return parse_block("".join(line + "\n" for line in lines[1:closing]))
