"""Thinking blocks and their signatures: drop what a provider would reject, keep turns non-empty."""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime

from .encode import to_json
from .model import (
    AssistantMessage,
    Block,
    CompactionSummary,
    OpaqueBlock,
    TextBlock,
    ThinkingBlock,
    Transcript,
    UserMessage,
)
from .queries import number_of, says_nothing, tool_calls, without_fields

THOUGHT_SIGNATURE_KEYS = ("thought_signature", "thoughtSignature")
_BASE64ISH = re.compile(r"[A-Za-z0-9+/=_-]+")


def strip_thought_signatures(messages: Transcript) -> Transcript:
    """Remove Gemini thought signatures that are not real base64 (standard or URL-safe); a value
    that decodes is kept whatever it starts with, a Claude `msg_…` id included.

    Turns that ended in `error` are left alone: their blocks are replayed as they were.
    """
    return tuple(
        replace(m, content=tuple(_clean_thought_signature(b) for b in m.content))
        if isinstance(m, AssistantMessage) and m.stop_reason != "error" and not isinstance(m.content, str)
        else m
        for m in messages
    )


def _clean_thought_signature(block: Block) -> Block:
    if isinstance(block, OpaqueBlock):
        return block
    current = to_json(block)
    bad = [k for k in THOUGHT_SIGNATURE_KEYS if k in current and not _replayable_signature(current[k])]
    return without_fields(block, *bad) if bad else block


def _replayable_signature(value: object) -> bool:
    return isinstance(value, str) and is_base64(value)


def is_base64(value: str) -> bool:
    """Standard or URL-safe base64 that decodes to at least one byte and re-encodes to itself."""
    text = re.sub(r"\s", "", value)
    if not _BASE64ISH.fullmatch(text):
        return False
    standard = text.replace("-", "+").replace("_", "/").rstrip("=")
    try:
        decoded = base64.b64decode(standard + "=" * (-len(standard) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return bool(decoded) and base64.b64encode(decoded).decode().rstrip("=") == standard


def strip_unsigned_thinking(messages: Transcript, placeholder: str) -> Transcript:
    """Drop thinking a signed-thinking provider would reject.

    Turns older than the latest compaction lose all thinking (signatures are bound to the prompt
    prefix, which compaction rewrote); other turns lose thinking without a signature, except the
    turn still in progress.
    """
    cutoff = _latest_compaction_ms(messages)
    live = _live_turn(messages)

    def remove(index: int, message: AssistantMessage) -> Callable[[ThinkingBlock], bool]:
        stamp = timestamp_ms(message.timestamp)
        if cutoff is not None and stamp is not None and stamp < cutoff:
            return lambda block: True
        return lambda block: index != live and not block.signed

    return tuple(
        _remove_thinking(m, remove(i, m), placeholder) if isinstance(m, AssistantMessage) else m
        for i, m in enumerate(messages)
    )


def drop_historical_thinking(messages: Transcript, placeholder: str) -> Transcript:
    """Remove thinking from every assistant turn except the one still in progress."""
    live = _live_turn(messages)
    return tuple(
        _remove_thinking(m, lambda block: True, placeholder) if isinstance(m, AssistantMessage) and i != live else m
        for i, m in enumerate(messages)
    )


def _remove_thinking(
    message: AssistantMessage, remove: Callable[[ThinkingBlock], bool], placeholder: str
) -> AssistantMessage:
    if isinstance(message.content, str):
        return message
    kept = tuple(b for b in message.content if not (isinstance(b, ThinkingBlock) and remove(b)))
    if len(kept) == len(message.content):
        return message
    # An emptied turn keeps a line of text, so later steps do not delete the turn and break alternation;
    # a silent-reply token left alone says nothing, so it counts as emptied too.
    return replace(message, content=kept if not all(says_nothing(b) for b in kept) else (TextBlock(text=placeholder),))


def _live_turn(messages: Transcript) -> int | None:
    """The latest assistant turn, if still in progress: no user turn after it, and it either ends
    the history or is waiting on its own tool calls."""
    latest = max((i for i, m in enumerate(messages) if isinstance(m, AssistantMessage)), default=None)
    if latest is None:
        return None
    after = messages[latest + 1 :]
    if any(isinstance(m, UserMessage) for m in after):
        return None
    return latest if not after or tool_calls(messages[latest]) else None


def _latest_compaction_ms(messages: Transcript) -> float | None:
    """The newest compaction time: summaries need not come in time order (merged or re-ordered histories)."""
    stamps = [timestamp_ms(m.timestamp) for m in messages if isinstance(m, CompactionSummary)]
    return max((s for s in stamps if s is not None), default=None)


def timestamp_ms(value: object) -> float | None:
    """Unix milliseconds from a number or an ISO-8601 string (naive times count as UTC)."""
    if number_of(value) is not None:
        return number_of(value)
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp() * 1000


def replayable_reasoning(block: ThinkingBlock) -> bool:
    """An OpenAI Responses reasoning item: its signature is a JSON object with an `rs_` id and type
    `reasoning` or `reasoning.*`."""
    try:
        item = json.loads(block.thinking_signature) if isinstance(block.thinking_signature, str) else None
    except ValueError:
        return False
    if not isinstance(item, dict) or block.type != "thinking":
        return False
    kind = item.get("type")
    return (
        str(item.get("id", "")).startswith("rs_")
        and isinstance(kind, str)
        and (kind == "reasoning" or kind.startswith("reasoning."))
    )


def drop_orphan_reasoning(messages: Transcript) -> Transcript:
    """Remove Responses reasoning items that no output item follows in their turn; a turn left empty goes.

    The API rejects a reasoning item replayed without the message or call it led to (a turn cut
    off after thinking leaves one behind).
    """
    out = []
    for message in messages:
        if not isinstance(message, AssistantMessage) or isinstance(message.content, str):
            out.append(message)
            continue
        blocks = message.content
        kept = tuple(b for i, b in enumerate(blocks) if not _orphan_reasoning(blocks, i))
        out.extend([message if len(kept) == len(blocks) else replace(message, content=kept)] if kept else [])
    return tuple(out)


def _orphan_reasoning(blocks: tuple[Block, ...], index: int) -> bool:
    block = blocks[index]
    if not isinstance(block, ThinkingBlock) or not replayable_reasoning(block):
        return False
    return all(isinstance(b, ThinkingBlock) and b.type == "thinking" for b in blocks[index + 1 :])
