"""Inter-session marker: a relayed user turn says where it came from and that it is not the user speaking."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from functools import lru_cache
from typing import Any

from .model import Block, Message, TextBlock, Transcript, UserMessage, is_blank_text
from .texts import Texts

# (marker label, provenance key), in the order the marker lists them.
MARKER_FIELDS = (
    ("sourceSession", "sourceSessionKey"),
    ("sourceChannel", "sourceChannel"),
    ("sourceTool", "sourceTool"),
)


def mark_inter_session(messages: Transcript, texts: Texts) -> Transcript:
    """Put the marker on top of every user turn whose provenance kind is `inter_session`."""
    return tuple(_mark(m, texts) if _is_inter_session(m) else m for m in messages)


def _is_inter_session(message: Message) -> bool:
    provenance = getattr(message, "provenance", None)
    return isinstance(provenance, Mapping) and provenance.get("kind") == "inter_session"


def marker(provenance: Mapping[str, Any], texts: Texts) -> str:
    """Header line (`key=value` source fields and `isUser=false`), the notice line, then a newline."""
    items = [
        f"{label}={value.strip()}" for label, key in MARKER_FIELDS
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
    readable = [i for i, b in enumerate(blocks) if isinstance(b, TextBlock) and b.text.strip()]
    if any(blocks[i].text.startswith(mark) for i in readable):
        return blocks  # already marked (in a merged turn the marked text may come second)
    if readable:
        first = readable[0]
        annotated = replace(blocks[first], text=_annotated(blocks[first].text, mark, texts))
        return (*blocks[:first], annotated, *blocks[first + 1:])
    if all(is_blank_text(b) for b in blocks):
        return blocks  # nothing to attribute; the empty-text step removes the turn
    return (TextBlock(text=mark + texts.inter_session_no_text), *blocks)


def _annotated(text: str, mark: str, texts: Texts) -> str:
    """The text under the current marker, replacing an older or differently sourced one."""
    return text if text.startswith(mark) else mark + _without_marker(text, texts)


def _without_marker(text: str, texts: Texts) -> str:
    """The text under a leading marker line (and its notice line), or the whole text.

    Only a first line that is a complete marker header counts, and only when text remains under
    it: words that merely start like the header are the user's, and are never dropped.
    """
    first, newline, rest = text.partition("\n")
    if not newline or not is_marker_header(first, texts):
        return text
    notice, _, after = rest.partition("\n")
    body = after if notice == texts.inter_session_notice else rest
    return body if body.strip() else text


def is_marker_header(line: str, texts: Texts) -> bool:
    """A marker header line as `marker` writes it, now or before: the header, then optional
    `sourceSession=`, `sourceChannel=`, `sourceTool=` items in that order, then optional `isUser=false`."""
    return _header_grammar(texts.inter_session_header).fullmatch(line) is not None


@lru_cache(maxsize=8)
def _header_grammar(header: str) -> re.Pattern[str]:
    items = "".join(f"(?: {re.escape(label)}=\\S+)?" for label, _ in MARKER_FIELDS)
    return re.compile(re.escape(header) + items + "(?: isUser=false)?")
