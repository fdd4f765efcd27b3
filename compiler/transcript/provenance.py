"""Inter-session marker: a relayed user turn says where it came from and that it is not the user speaking."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from functools import lru_cache
from typing import Any, TypeGuard

from .model import Block, Message, TextBlock, Transcript, UserMessage
from .queries import is_blank_text
from .texts import OPENCLAW_SPELLINGS, Texts, sha256_matches

_LINES = re.compile(r"[^\n]*\n|[^\n]+")
"""Lines with their endings; only a newline ends a line (a user's other separators stay inside it)."""

# (marker label, provenance key), in the order the marker lists them.
MARKER_FIELDS = (
    ("sourceSession", "sourceSessionKey"),
    ("sourceChannel", "sourceChannel"),
    ("sourceTool", "sourceTool"),
)


def mark_inter_session(messages: Transcript, texts: Texts) -> Transcript:
    """Put the marker on top of every user turn whose provenance kind is `inter_session`."""
    return tuple(_mark(m, texts) if _is_inter_session(m) else m for m in messages)


def _is_inter_session(message: Message) -> TypeGuard[UserMessage]:
    """A user turn relayed from another session (only user turns carry provenance)."""
    provenance = message.provenance if isinstance(message, UserMessage) else None
    return isinstance(provenance, Mapping) and provenance.get("kind") == "inter_session"


def marker(provenance: Mapping[str, Any], texts: Texts) -> str:
    """Header line (`key=value` source fields and `isUser=false`), the notice line, then a newline."""
    items = [
        f"{label}={value.strip()}"
        for label, key in MARKER_FIELDS
        if isinstance(value := provenance.get(key), str) and value.strip()
    ]
    header = " ".join([texts.inter_session_header, *items, "isUser=false"])
    return f"{header}\n{texts.inter_session_notice}\n"


def _mark(message: UserMessage, texts: Texts) -> UserMessage:
    mark = marker(message.provenance or {}, texts)
    if isinstance(message.content, str):
        if not message.content.strip():
            return message
        return replace(message, content=_annotated(message.content, mark, texts))
    return replace(message, content=_marked_blocks(message.content, mark, texts))


def _marked_blocks(blocks: tuple[Block, ...], mark: str, texts: Texts) -> tuple[Block, ...]:
    """The current marker on the first readable text block; older markers in any text block go.

    A turn merged from relayed turns carries each part's marker at the head of that part's block;
    when one of them is the current marker the turn is already marked and stays as it is.
    """
    readable = {i: b for i, b in enumerate(blocks) if isinstance(b, TextBlock) and b.text.strip()}
    if any(b.text.startswith(mark) for b in readable.values()):
        return blocks
    if not readable:
        if all(is_blank_text(b) for b in blocks):
            return blocks  # nothing to attribute; the empty-text step removes the turn
        return (TextBlock(text=mark + texts.inter_session_no_text), *blocks)
    cleaned = {i: _unmarked(b, texts) for i, b in readable.items()}
    first = min(cleaned)
    cleaned[first] = replace(cleaned[first], text=mark + cleaned[first].text)
    return tuple(cleaned.get(i, b) for i, b in enumerate(blocks))


def _unmarked(block: TextBlock, texts: Texts) -> TextBlock:
    text = without_markers(block.text, texts)
    return block if text == block.text else replace(block, text=text)


def _annotated(text: str, mark: str, texts: Texts) -> str:
    """The text under the current marker, with any older or differently sourced marker in it removed."""
    return text if text.startswith(mark) else mark + without_markers(text, texts)


def without_markers(text: str, texts: Texts) -> str:
    """The text without the complete markers in it, wherever they are (a relay may have put text above one).

    A marker is a whole line that is a marker header (ours, now or before, or the one OpenClaw writes),
    with the notice line under it when there is one. Words that merely start like a header are the
    user's, and a text that would be left blank keeps its marker rather than being emptied.
    """
    lines = _LINES.findall(text)
    kept: list[str] = []
    at = 0
    while at < len(lines):
        if is_marker_header(lines[at].rstrip("\r\n"), texts):
            at += 2 if at + 1 < len(lines) and _is_notice(lines[at + 1].rstrip("\r\n"), texts) else 1
            continue
        kept.append(lines[at])
        at += 1
    remaining = "".join(kept)
    return remaining if remaining.strip() else text


def _is_notice(line: str, texts: Texts) -> bool:
    return line == texts.inter_session_notice or sha256_matches(line, OPENCLAW_SPELLINGS.inter_session_notice_sha256)


def is_marker_header(line: str, texts: Texts) -> bool:
    """A marker header line as `marker` writes it, now or before, or as OpenClaw writes its own: the
    header, then optional `sourceSession=`, `sourceChannel=`, `sourceTool=` items in that order, then
    optional `isUser=false`."""
    return any(
        _header_grammar(header).fullmatch(line) is not None
        for header in (texts.inter_session_header, OPENCLAW_SPELLINGS.inter_session_header)
    )


@lru_cache(maxsize=8)
def _header_grammar(header: str) -> re.Pattern[str]:
    items = "".join(f"(?: {re.escape(label)}=\\S+)?" for label, _ in MARKER_FIELDS)
    return re.compile(re.escape(header) + items + "(?: isUser=false)?")
