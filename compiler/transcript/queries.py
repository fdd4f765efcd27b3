"""Small questions the transforms ask about typed messages and blocks (no I/O)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import fields, replace
from typing import Any, TypeVar

from .jsonline import RawNumber
from .model import (
    FAILED_STOP_REASONS,
    USAGE_COUNTERS,
    AssistantMessage,
    Block,
    Message,
    Modelled,
    TextBlock,
    ToolCallBlock,
    is_one_of,
)

T = TypeVar("T", bound=Modelled)

SILENT_REPLY = re.compile(r"\s*NO_REPLY\s*")
"""The runtime's silent-reply token, alone: an assistant text holding only it says nothing."""


def without_fields(obj: T, *keys: str) -> T:
    """A copy of a typed object with the given JSON keys removed, modelled or not."""
    modelled = {f.metadata["json"]: f.name for f in fields(obj) if "json" in f.metadata}
    raw = {k: v for k, v in obj.raw.items() if k not in keys}
    return replace(obj, raw=raw, **{modelled[k]: None for k in keys if k in modelled})


def blocks_of(message: Message) -> tuple[Block, ...]:
    """A message's content as blocks (a legacy string is one text block)."""
    content = getattr(message, "content", ())
    return (TextBlock(text=content),) if isinstance(content, str) else content


def tool_calls(message: Message) -> tuple[ToolCallBlock, ...]:
    """The tool-call blocks of an assistant turn (none for other roles)."""
    if not isinstance(message, AssistantMessage):
        return ()
    return tuple(b for b in blocks_of(message) if isinstance(b, ToolCallBlock))


def is_failed(message: Message) -> bool:
    """An assistant turn that ended in `error` or `aborted`: its tool calls may be incomplete."""
    return isinstance(message, AssistantMessage) and is_one_of(message.stop_reason, FAILED_STOP_REASONS)


def is_blank_text(block: Block) -> bool:
    """A text block with nothing but whitespace."""
    return isinstance(block, TextBlock) and not block.text.strip()


def is_silent_text(text: str) -> bool:
    """Blank, or the silent-reply token alone (whitespace around it allowed)."""
    return not text.strip() or SILENT_REPLY.fullmatch(text) is not None


def says_nothing(block: Block) -> bool:
    """An assistant text block that replays as nothing: blank, or the silent-reply token."""
    return isinstance(block, TextBlock) and is_silent_text(block.text)


def has_zero_usage(message: AssistantMessage) -> bool:
    """Every token counter present is 0, and at least one is present."""
    usage = message.usage if isinstance(message.usage, Mapping) else {}
    present = [n for n in (number_of(usage.get(k)) for k in USAGE_COUNTERS) if n is not None]
    return bool(present) and all(v == 0 for v in present)


def number_of(value: Any) -> float | None:
    """A JSON number as a float (a RawNumber by its nearest float); None for anything else."""
    if isinstance(value, RawNumber):
        return value.value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None
