"""A quick look at HEARTBEAT.md: a line that certainly is a task, found without markdown-it.

`heartbeat.is_effectively_empty` parses with markdown-it, whose import is a large part of a
cold `promptc render`. Most HEARTBEAT.md files hold a plain task line, and for those the
answer is known without parsing. This look is one-sided: True only when the parser must find
content; anything it cannot rule out (comments, a possible setext heading, a link reference
definition nearby) leaves the decision to the parser. tests/workspace/test_quicklook.py checks it
against the parser on generated texts.
"""

from __future__ import annotations

import re

_UNDERLINE = re.compile(r" {0,3}(=+|-+)[ \t]*$")
"""A line that could turn the paragraph above it into a (setext) heading."""
_LINK_REFERENCE = re.compile(r" {0,3}\[")
"""A line that could open a link reference definition, whose title may span lines."""
_LIST_MARKER = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]?\][ \t]+)?")
"""A list item's marker, and a checkbox after it."""


def has_task(text: str) -> bool:
    """True when some line certainly carries a task: it starts with a letter (after a list
    marker and checkbox, if any) in a paragraph that no heading underline or link reference
    could swallow, and there is no HTML comment anywhere to hide it in."""
    if "<!--" in text:
        return False
    lines = text.split("\n")
    return any(_starts_with_a_word(line) and _plain_block(lines, index) for index, line in enumerate(lines))


def _starts_with_a_word(line: str) -> bool:
    marker = _LIST_MARKER.match(line)
    rest = line[marker.end() :] if marker else line.lstrip()
    return rest[:1].isalpha()


def _plain_block(lines: list[str], index: int) -> bool:
    """No underline below the line and no link reference in its run of non-blank lines."""
    start, end = index, index
    while start > 0 and lines[start - 1].strip():
        start -= 1
    while end + 1 < len(lines) and lines[end + 1].strip():
        end += 1
    below = lines[index + 1 : end + 1]
    return not any(_UNDERLINE.match(line) for line in below) and not any(
        _LINK_REFERENCE.match(line) for line in lines[start : end + 1]
    )
