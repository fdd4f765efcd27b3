"""Where tool calls are answered: toolResult messages, and results carried inside other turns.

Older and Anthropic-shaped histories keep a tool result as a block inside the user turn that
follows the call (`{type: "toolResult", toolUseId: ...}`), and OpenAI chat-shaped rows as a
`role: "tool"` message. Neither is modelled (they stay opaque), but every step that asks "is this
call answered?" or rewrites call ids must see them; this module is the one place that reads them.
A provider reads such a result as the answer to a call of the latest assistant turn before it, so
one that answers none of them is an orphan it rejects (`drop_orphan_embedded`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeGuard

from .model import (
    AssistantMessage,
    Message,
    OpaqueBlock,
    OpaqueMessage,
    ToolResultMessage,
    Transcript,
    UserMessage,
    is_one_of,
)
from .queries import blocks_of, tool_calls

EMBEDDED_RESULT_TYPES = frozenset({"toolResult", "tool_result"})
"""Block types of a tool result carried inside a user turn."""
EMBEDDED_RESULT_ID_KEYS = ("toolCallId", "toolUseId", "tool_use_id", "tool_call_id", "callId", "call_id")
"""Keys that may hold the call id of an embedded result; the first one present is the id."""
TOOL_MESSAGE_ROLE = "tool"
"""Role of an OpenAI chat-shaped tool result row."""


@dataclass(frozen=True, slots=True)
class Answer:
    """A tool result seen after an assistant turn, before the next one."""

    id: Any
    """The call id it quotes."""
    name: Any
    """The tool name it reports (None when embedded)."""
    standalone: bool
    """A toolResult message (trusted), rather than a result embedded in another row."""


def answers_in(message: Message) -> list[Answer]:
    """The tool results one message carries: itself, or the result blocks embedded in it."""
    if isinstance(message, ToolResultMessage):
        return [Answer(message.answers, message.tool_name, standalone=True)]
    if _is_tool_row(message):
        return [Answer(embedded_id(message.raw), None, standalone=False)]
    if isinstance(message, UserMessage):
        return [Answer(embedded_id(b.raw), None, standalone=False) for b in blocks_of(message) if _is_result_block(b)]
    return []


def answers_until_next_assistant(messages: Iterable[Message]) -> list[Answer]:
    """Every answer in `messages` up to (not including) the first assistant turn."""
    found: list[Answer] = []
    for message in messages:
        if isinstance(message, AssistantMessage):
            break
        found.extend(answers_in(message))
    return found


def embedded_ids(answers: Iterable[Answer]) -> frozenset[str]:
    """The string call ids that embedded (not standalone) answers quote."""
    return frozenset(a.id for a in answers if not a.standalone and isinstance(a.id, str))


def embedded_id(raw: Mapping[str, Any]) -> Any:
    """The call id an embedded result quotes (None when it has none)."""
    return next((raw[k] for k in EMBEDDED_RESULT_ID_KEYS if k in raw), None)


def drop_orphan_embedded(messages: Transcript) -> Transcript:
    """Remove the results carried in other rows that answer no call of the latest assistant turn.

    A user turn keeps its other blocks; one left with nothing goes, and so does an orphaned
    `role: "tool"` row. Result messages are pairing's business and stay as they are.
    """
    out: list[Message] = []
    calls: frozenset[str] = frozenset()
    for message in messages:
        if isinstance(message, AssistantMessage):
            calls = frozenset(call.id for call in tool_calls(message) if isinstance(call.id, str))
        kept = _without_orphans(message, calls)
        out.extend([kept] if kept is not None else [])
    return tuple(out)


def _without_orphans(message: Message, calls: frozenset[str]) -> Message | None:
    if _is_tool_row(message):
        return message if is_one_of(embedded_id(message.raw), calls) else None
    if not isinstance(message, UserMessage) or isinstance(message.content, str):
        return message
    kept = tuple(b for b in message.content if not _is_result_block(b) or is_one_of(embedded_id(b.raw), calls))
    if len(kept) == len(message.content):
        return message
    return replace(message, content=kept) if kept else None


def rename_embedded(message: Message, rename: Callable[[str], str | None]) -> Message:
    """The message with each embedded result's call id replaced by `rename(id)` (None keeps it).

    Blocks are visited in order, so a stateful `rename` sees them as they appear in the turn.
    """
    if _is_tool_row(message):
        return OpaqueMessage(raw=_renamed(message.raw, rename))
    if not isinstance(message, UserMessage) or isinstance(message.content, str):
        return message
    if not any(_is_result_block(b) for b in message.content):
        return message
    content = tuple(OpaqueBlock(raw=_renamed(b.raw, rename)) if _is_result_block(b) else b for b in message.content)
    return replace(message, content=content)


def _renamed(raw: Mapping[str, Any], rename: Callable[[str], str | None]) -> Mapping[str, Any]:
    """A copy of `raw` (key order kept) with every id key that holds its call id renamed."""
    old = embedded_id(raw)
    new = rename(old) if isinstance(old, str) and old else None
    if new is None or new == old:
        return raw
    return {k: (new if k in EMBEDDED_RESULT_ID_KEYS and v == old else v) for k, v in raw.items()}


def _is_tool_row(message: Message) -> bool:
    """An OpenAI chat-shaped `role: "tool"` row (kept opaque)."""
    return (
        isinstance(message, OpaqueMessage)
        and isinstance(message.raw, dict)
        and message.raw.get("role") == TOOL_MESSAGE_ROLE
    )


def _is_result_block(block: object) -> TypeGuard[OpaqueBlock]:
    """A tool result block inside a user turn (kept opaque)."""
    raw = block.raw if isinstance(block, OpaqueBlock) else None
    return isinstance(raw, dict) and is_one_of(raw.get("type"), EMBEDDED_RESULT_TYPES)
