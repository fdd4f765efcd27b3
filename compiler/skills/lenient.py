"""Read a SKILL.md frontmatter block line by line, for the blocks strict YAML refuses.

OpenClaw reads such a block one `key: value` line at a time, so a description holding an unquoted
colon (`description: Use this: carefully`) still names its skill. This reader follows the same
rules, so promptc lists the skills OpenClaw lists:

- a line `key: value` (the key made of ASCII letters, digits, `_` and `-`) splits at its first
  colon; the value is trimmed and loses one pair of matching outer quotes (`"..."` or `'...'`);
- a key with nothing after its colon takes the indented lines below it (blank lines included,
  up to the first line that starts in column one), joined and trimmed;
- an empty value sets nothing; a later line for the same key wins; every other line is ignored.

Every value is text. `metadata`, when its text is a flow mapping (`{...}`, the one-line JSON form
skills use), is read as YAML into a mapping; any other `metadata` text is kept as it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .._lib import frontmatter

_KEY_LINE = re.compile(r"([\w-]+):\s*(.*)", re.ASCII)
_QUOTES = ('"', "'")


def read_block(block: str) -> dict[str, Any]:
    """The block's keys and their text values, read line by line (never raises)."""
    lines = block.split("\n")
    found: dict[str, Any] = {}
    index = 0
    while index < len(lines):
        match = _KEY_LINE.fullmatch(lines[index])
        if match is None:
            index += 1
            continue
        key, inline = match.group(1), match.group(2).strip()
        if not inline and _indented(lines, index + 1):
            value, index = _indented_value(lines, index + 1)
        else:
            value, index = _unquoted(inline), index + 1
        if value:
            found[key] = value
    if isinstance(found.get("metadata"), str):
        found["metadata"] = _flow_mapping(found["metadata"])
    return found


def _indented(lines: list[str], index: int) -> bool:
    """Whether line `index` exists and starts with a space or a tab."""
    return index < len(lines) and lines[index][:1] in (" ", "\t")


def _indented_value(lines: list[str], start: int) -> tuple[str, int]:
    """The lines from `start` that are blank or indented, joined and trimmed; and the next index."""
    end = start
    while end < len(lines) and (not lines[end] or lines[end][:1] in (" ", "\t")):
        end += 1
    return "\n".join(lines[start:end]).strip(), end


def _unquoted(value: str) -> str:
    """The value without one pair of matching outer quotes."""
    if value[:1] in _QUOTES and value.endswith(value[0]):
        return value[1:-1]
    return value


def _flow_mapping(text: str) -> Mapping[str, Any] | str:
    """`text` read as a YAML mapping when it is written `{...}`; else the text itself."""
    if not text.startswith("{"):
        return text
    found, problem = frontmatter.parse_block(text)
    return found if problem is None and found is not None else text
