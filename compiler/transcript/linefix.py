"""On-disk repair of one session-file line: what is wrong with it, and the line with only that changed.

A line is copied, dropped, or rewritten by splicing new values into it (jsonline): the message's
`content` and the entry's `parentId` are the only values a fix replaces, so every other byte of
the line (numbers, escapes, spacing, duplicate keys, bytes that are not UTF-8) stays as it was.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from . import jsonline
from .images import looks_like_image
from .texts import Texts

# Kinds of fix, counted per line (the report words them).
MALFORMED = "malformed"
INVALID_MESSAGE = "invalid_message"
FAILED_ASSISTANT = "failed_assistant"
BLANK_USER = "blank_user"
BAD_IMAGE = "bad_image"
RELINKED = "relinked"
NOT_REWRITABLE = "not_rewritable"
"""Not a fix: a value that should change but cannot be written back exactly, so it is left."""

IMAGE_MIME_KEYS = ("mimeType", "mediaType", "media_type")
_SNIFF_CHARS = 128
"""Base64 characters decoded to check that an image block holds an image (96 bytes cover every signature)."""
NO_CHANGES: Mapping[str, int] = MappingProxyType({})
"""The changes of a line that needs none (shared: most lines need none)."""


@dataclass(frozen=True, slots=True)
class LineFix:
    """The outcome for one line of the file."""

    output: bytes
    """Bytes the repaired file gets for this line (empty when the line is dropped)."""
    changes: Mapping[str, int] = field(default_factory=lambda: NO_CHANGES)
    """How many fixes of each kind the line got (a dropped line counts once)."""
    value: Any = None
    """The parsed JSON object, when the line held one (also for a dropped entry)."""


def fix_line(raw: bytes, texts: Texts, relink: Mapping[str, str] | None = None) -> LineFix:
    """Decide one line: copy it, drop it (not a JSON object, or a message entry without a message object
    or a role), or rewrite it. `relink` maps the ids of entries that moved to the JSON text of their
    stand-in parent."""
    body = raw.rstrip(b"\r\n")
    text = jsonline.decode_line(body)
    if not text.strip():
        return LineFix(raw)
    try:
        value = jsonline.loads(text)
    except (ValueError, RecursionError):
        return LineFix(b"", {MALFORMED: 1})
    if not isinstance(value, dict):
        return LineFix(b"", {MALFORMED: 1})
    if invalid_message_entry(value):
        return LineFix(b"", {INVALID_MESSAGE: 1}, value)
    edits, changes = _edits(text, value, texts, {} if relink is None else relink)
    if not edits:
        return LineFix(raw, changes, value)
    return LineFix(jsonline.encode_line(jsonline.splice(text, edits)) + raw[len(body) :], changes, value)


def invalid_message_entry(value: Mapping[str, Any]) -> bool:
    """A `message` entry whose message is missing, not an object, or has no non-blank string role:
    no provider can be sent it, and keeping it only carries the damage into the repaired file."""
    if value.get("type") != "message":
        return False
    message = value.get("message")
    role = message.get("role") if isinstance(message, dict) else None
    return not isinstance(role, str) or not role.strip()


def _edits(text: str, value: dict, texts: Texts, relink: Mapping[str, str]) -> tuple[list, Mapping[str, int]]:
    message = value.get("message") if value.get("type") == "message" else None
    plan, planned = content_plan(message, texts) if isinstance(message, dict) else (None, NO_CHANGES)
    parent = value.get("parentId")
    new_parent = relink.get(parent) if isinstance(parent, str) else None
    if plan is None and new_parent is None:
        return [], NO_CHANGES
    edits: list[tuple[jsonline.Span, str]] = []
    changes = Counter(planned)
    root = jsonline.member_spans(text, jsonline.value_span(text))
    if plan is not None:
        edits.append(_content_edit(text, jsonline.member_spans(text, root["message"])["content"], plan))
    if new_parent is not None:
        edits.append((root["parentId"], new_parent))
        changes[RELINKED] += 1
    return edits, changes


def _content_edit(text: str, span: jsonline.Span, plan: str | list) -> tuple[jsonline.Span, str]:
    """The new text of a `content` value: a new string, or the array rebuilt from kept and new blocks."""
    if isinstance(plan, str):
        return span, jsonline.dumps(plan, ascii_only=True)
    elements = jsonline.element_spans(text, span) if text[span.start] == "[" else []
    items = [
        text[elements[i].start : elements[i].end] if isinstance(i, int) else jsonline.dumps(i, ascii_only=True)
        for i in plan
    ]
    return span, "[" + jsonline.separator(text, elements).join(items) + "]"


def content_plan(message: dict, texts: Texts) -> tuple[str | list | None, Mapping[str, int]]:
    """How a message's content must change: None (it need not), a new string, or a list whose items
    are indexes of blocks kept as they are and new blocks (dicts) in their places."""
    role, content = message.get("role"), message.get("content")
    if role == "assistant" and content == [] and message.get("stopReason") == "error":
        # Some providers reject an empty assistant turn, and the session would fail on every retry.
        return [_text_block(texts.failed_turn)], {FAILED_ASSISTANT: 1}
    if isinstance(content, str):
        blank_user = role == "user" and not content.strip()
        return (texts.blank_user_turn, {BLANK_USER: 1}) if blank_user else (None, NO_CHANGES)
    if not isinstance(content, list):
        return None, NO_CHANGES
    changes: Counter[str] = Counter()
    plan: list = list(range(len(content)))
    for index, block in enumerate(content):
        if corrupted_image(block):
            plan[index] = _text_block(texts.repaired_image)
            changes[BAD_IMAGE] += 1
    if role == "user":
        kept = [item for item in plan if not (isinstance(item, int) and _blank_text(content[item]))]
        if len(kept) < len(plan) or not kept:
            # Blank text goes; a turn left with nothing gets the placeholder, so no user turn is lost.
            plan = kept or [_text_block(texts.blank_user_turn)]
            changes[BLANK_USER] = 1
    return (plan, changes) if changes else (None, NO_CHANGES)


def _text_block(text: str) -> dict:
    return {"type": "text", "text": text}


def _blank_text(block: Any) -> bool:
    return (
        isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
        and not block["text"].strip()
    )


def corrupted_image(block: Any) -> bool:
    """An image block that declares an image type but whose data is not base64 of an image: not ASCII,
    not base64 (whitespace and missing padding are forgiven), or no known image signature in front."""
    if not isinstance(block, dict) or block.get("type") != "image" or not isinstance(block.get("data"), str):
        return False
    declared = (block.get(key) for key in IMAGE_MIME_KEYS)
    if not any(isinstance(m, str) and m.strip().lower().startswith("image/") for m in declared):
        return False
    data = block["data"]
    payload = canonical_base64(data) if data.isascii() else None
    if payload is None:
        return True
    head = payload[:_SNIFF_CHARS]
    try:
        return not looks_like_image(base64.b64decode(head + "=" * (-len(head) % 4)))
    except (binascii.Error, ValueError):
        return True


_BASE64_BODY = re.compile(r"[A-Za-z0-9+/]*")


def canonical_base64(data: str) -> str | None:
    """Base64 without whitespace and with its padding restored, or None when it is not base64."""
    text = re.sub(r"[\x00-\x20]", "", data)
    body = text.rstrip("=")
    padding = len(text) - len(body)
    if not body or padding > 2 or not _BASE64_BODY.fullmatch(body) or len(body) % 4 == 1:
        return None
    if padding and len(text) % 4:
        return None
    return body + "=" * (-len(body) % 4)


def relink_target(value: Mapping[str, Any], relink: Mapping[str, str]) -> str | None:
    """For a dropped entry: the JSON text its children should name as parent instead (its own parent,
    or where that one moved), or None when that value cannot be written back exactly."""
    parent = value.get("parentId")
    if isinstance(parent, str) and parent in relink:
        return relink[parent]
    return jsonline.exact_json(parent)
