"""Decide whether HEARTBEAT.md holds any task, so a caller can skip a heartbeat's model call."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_CHECKBOX_ONLY = re.compile(r"\[[ \txX]?\]")
_parser = MarkdownIt("commonmark")


MAX_FENCE_DEPTH = 8
"""A code fence is judged by what it holds, and so is a fence inside it; a fence nested deeper
than this counts as a task when it holds any text. So nested fences cost at most this many
extra reads of the file, and a doubtful heartbeat is never skipped."""


MAX_JUDGED_CHARS = 20_000
"""A HEARTBEAT.md longer than this (the default per-file budget, which would cut it in the prompt)
is never judged empty: its heartbeat runs. No empty template is that long, and markdown-it's parse of a
file of bare checkboxes grows with its size, so a huge one would stall every compile."""


def is_effectively_empty(text: str | None) -> bool:
    """True when the text has no task: only blank lines, headings, empty list items or
    checkboxes, HTML comments, thematic breaks and code fences holding nothing else.

    A missing file (None) is not empty: there is nothing to decide a skip on; nor is a text
    longer than MAX_JUDGED_CHARS. `#TODO check mail` is a paragraph in CommonMark, so it counts
    as content.
    """
    if text is None or len(text) > MAX_JUDGED_CHARS:
        return False
    pending = [(text, 0)]
    while pending:
        chunk, depth = pending.pop()
        if depth > MAX_FENCE_DEPTH:
            if chunk.strip():
                return False
            continue
        has_content, fences = _scan(chunk)
        if has_content:
            return False
        # Judged line by line like the rest: a fence around headings is still no task.
        pending.extend((fence, depth + 1) for fence in fences)
    return True


def _scan(text: str) -> tuple[bool, list[str]]:
    """Parse once: whether any leaf outside code fences carries a task, and the fences' contents."""
    open_blocks: list[str] = []
    fences: list[str] = []
    for token in _parser.parse(text):
        if token.nesting == 1:
            open_blocks.append(token.type)
        elif token.nesting == -1:
            open_blocks.pop()
        elif token.type in ("fence", "code_block"):
            fences.append(token.content)
        elif _carries_content(token, open_blocks):
            return True, fences
    return False, fences


def _carries_content(token: Token, open_blocks: list[str]) -> bool:
    """Whether one leaf token (not a code block) holds text a heartbeat would act on."""
    if token.type == "inline":
        return _inline_has_content(token.content, open_blocks)
    if token.type == "html_block":
        return bool(_without_comments(token.content).strip())
    return False


def _inline_has_content(content: str, open_blocks: list[str]) -> bool:
    """Heading text is a label, not a task; a list item of just `[ ]` or `[x]` is empty."""
    if open_blocks[-1:] == ["heading_open"]:
        return False
    remaining = _without_comments(content).strip()
    if not remaining:
        return False
    is_checkbox_item = open_blocks[-2:] == ["list_item_open", "paragraph_open"]
    return not (is_checkbox_item and _CHECKBOX_ONLY.fullmatch(remaining))


def _without_comments(text: str) -> str:
    """The text with HTML comments (an unclosed one runs to the end) removed."""
    return _HTML_COMMENT.sub("", text)
