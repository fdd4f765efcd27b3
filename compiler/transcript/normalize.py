"""Row-level cleanups every provider needs: transcript-only rows, half-finished reasoning, blank text."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TypeVar

from .model import (
    AssistantMessage,
    Block,
    Content,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    Transcript,
    UserMessage,
    is_one_of,
)
from .queries import blocks_of, has_zero_usage, is_blank_text, says_nothing
from .texts import OPENCLAW_SPELLINGS, Texts

# Rows the runtime writes for its own bookkeeping (mirrors of delivered replies, injected notes).
TRANSCRIPT_ONLY_PROVIDER = "openclaw"
TRANSCRIPT_ONLY_MODELS = frozenset({"delivery-mirror", "gateway-injected"})
DELIVERY_MIRROR_KINDS = frozenset({"channel-final", "channel-final-suppressed", "message-tool-source-reply"})

C = TypeVar("C", UserMessage, AssistantMessage, ToolResultMessage)


def drop_transcript_only_rows(messages: Transcript) -> Transcript:
    """Remove assistant rows that exist only in the transcript and were never model output."""
    return tuple(m for m in messages if not _transcript_only(m))


def _transcript_only(message: Message) -> bool:
    if not isinstance(message, AssistantMessage):
        return False
    mirror = message.raw.get("openclawDeliveryMirror")
    return (message.provider == TRANSCRIPT_ONLY_PROVIDER and is_one_of(message.model, TRANSCRIPT_ONLY_MODELS)) or (
        isinstance(mirror, Mapping) and is_one_of(mirror.get("kind"), DELIVERY_MIRROR_KINDS)
    )


def drop_incomplete_reasoning_turns(messages: Transcript) -> Transcript:
    """Remove turns cut off by the length limit while still thinking: their signatures may be partial."""
    return tuple(m for m in messages if not _reasoning_cut_short(m))


def _reasoning_cut_short(message: Message) -> bool:
    if not isinstance(message, AssistantMessage) or message.stop_reason != "length":
        return False
    blocks = blocks_of(message)
    thinking = [b for b in blocks if isinstance(b, ThinkingBlock)]
    return bool(thinking) and all(isinstance(b, ThinkingBlock) or says_nothing(b) for b in blocks)


def clean_empty_text(messages: Transcript, texts: Texts) -> Transcript:
    """Remove blank text blocks; what an emptied turn becomes depends on its role.

    user: the turn is left out. toolResult: one placeholder block. assistant: the silent-reply
    token counts as blank too; a turn stored with no content that failed (or stopped with zero
    usage) gets the failed-turn text; any other empty assistant turn is left out.
    """
    cleaned = (_clean(m, texts) for m in messages)
    return tuple(m for m in cleaned if m is not None)


def _clean(message: Message, texts: Texts) -> Message | None:
    if isinstance(message, UserMessage):
        kept = _without(message.content, is_blank_text)
        return None if kept is None else _with_content(message, kept)
    if isinstance(message, ToolResultMessage):
        kept = _without(message.content, is_blank_text)
        return _with_content(message, kept if kept is not None else (TextBlock(text=texts.empty_content),))
    if isinstance(message, AssistantMessage):
        return _clean_assistant(message, texts)
    return message


def _clean_assistant(message: AssistantMessage, texts: Texts) -> AssistantMessage | None:
    if message.content == ():
        failed = replace(message, content=(TextBlock(text=texts.failed_turn),))
        return failed if failed_before_content(message) else None
    kept = _without(message.content, says_nothing)
    if kept is None:
        return None
    # Legacy string content becomes a block so later steps see one shape.
    return _with_content(message, (TextBlock(text=kept),) if isinstance(kept, str) else kept)


def _without(content: Content, empty: Callable[[Block], bool]) -> Content | None:
    """The content without the text blocks `empty` flags; None when nothing is left."""
    if isinstance(content, str):
        return None if empty(TextBlock(text=content)) else content
    kept = tuple(b for b in content if not empty(b))
    return (content if len(kept) == len(content) else kept) if kept else None


def _with_content(message: C, content: Content) -> C:
    return message if content is message.content else replace(message, content=content)


def failed_before_content(message: AssistantMessage) -> bool:
    """A turn that produced nothing because it failed (or stopped without using a token)."""
    return message.stop_reason == "error" or (message.stop_reason == "stop" and has_zero_usage(message))


def drop_trailing_failed_turns(messages: Transcript, texts: Texts) -> Transcript:
    """Do not end a replay on a failed-turn stand-in: a trailing assistant turn reads as a prefill."""
    end = len(messages)
    while end and _is_failed_turn_stand_in(messages[end - 1], texts):
        end -= 1
    return messages[:end]


def _is_failed_turn_stand_in(message: Message, texts: Texts) -> bool:
    """Our stand-in, or the one OpenClaw writes into the files it keeps (recognised, never written)."""
    if not isinstance(message, AssistantMessage) or not failed_before_content(message):
        return False
    blocks = blocks_of(message)
    stand_ins = (texts.failed_turn, OPENCLAW_SPELLINGS.failed_turn)
    return len(blocks) == 1 and isinstance(blocks[0], TextBlock) and blocks[0].text in stand_ins
