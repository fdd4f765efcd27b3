"""Tool-call input validation: drop calls no provider can replay (no arguments, no id, bad name).

With provider-owned signed thinking replay (policy.signed_thinking_replay), a turn that carries
thinking is bound to its signature: it is replayed exactly as stored when every call in it can be,
and otherwise loses its thinking (which can no longer be replayed) before its calls are checked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from .model import (
    AssistantMessage,
    Block,
    Message,
    ThinkingBlock,
    ToolCallBlock,
    Transcript,
    is_usable_string,
)
from .queries import blocks_of, tool_calls, without_fields

TOOL_NAME = re.compile(r"[A-Za-z0-9_:.-]{1,64}")


def validate_tool_call_inputs(
    messages: Transcript, allowed_names: frozenset[str] | None = None, signed_thinking: bool = False
) -> Transcript:
    """Drop invalid tool calls (see `_valid_call`); a turn left with no content is left out.

    A call whose id sits under `tool_call_id` or `call_id` gets it under `id` too, where replay reads it.
    """
    allowed = _lowered(allowed_names)
    as_is = replay_as_is(messages, allowed).turns if signed_thinking else frozenset()
    out: list[Message] = []
    for index, message in enumerate(messages):
        if not isinstance(message, AssistantMessage) or not tool_calls(message) or index in as_is:
            out.append(message)
            continue
        turn = _without_thinking(message) if signed_thinking else message
        blocks = blocks_of(turn)
        kept = tuple(b for b in (_valid_call(b, turn, allowed) for b in blocks) if b is not None)
        unchanged = len(kept) == len(blocks) and all(a is b for a, b in zip(kept, blocks, strict=True))
        out.extend([turn if unchanged else replace(turn, content=kept)] if kept else [])
    return tuple(out)


def _lowered(names: frozenset[str] | None) -> frozenset[str] | None:
    return None if names is None else frozenset(n.lower() for n in names)


def _without_thinking(message: AssistantMessage) -> AssistantMessage:
    blocks = blocks_of(message)
    kept = tuple(b for b in blocks if not isinstance(b, ThinkingBlock))
    return message if len(kept) == len(blocks) else replace(message, content=kept)


def _valid_call(block: Block, message: AssistantMessage, allowed: frozenset[str] | None) -> Block | None:
    """The call (name trimmed, finished scratch text removed, id under `id`), or None when it cannot be replayed."""
    if not isinstance(block, ToolCallBlock):
        return block
    name = block.name.strip() if isinstance(block.name, str) else ""
    if block.arguments is None and block.input is None:
        return None
    if not is_usable_string(block.id) or not TOOL_NAME.fullmatch(name):
        return None
    if allowed is not None and name.lower() not in allowed:
        return None
    if block.partial_json is not None:
        if not _finished_responses_call(block, message):
            return None
        block = without_fields(block, "partialJson")
    if block.raw.get("id") != block.id:
        block = block.with_id(block.id)
    return block if name == block.name else replace(block, name=name)


def _finished_responses_call(block: ToolCallBlock, message: AssistantMessage) -> bool:
    """An OpenAI Responses call that completed but kept its streaming scratch text."""
    if message.stop_reason != "toolUse" or "|" not in block.id:
        return False
    if not isinstance(block.arguments, dict) or block.input is not None or not isinstance(block.partial_json, str):
        return False
    if not block.partial_json.strip():
        return not block.arguments
    try:
        return isinstance(json.loads(block.partial_json), dict)
    except ValueError:
        return False


# ---------------------------------------------------------------------------------------------
# Turns replayed exactly as stored (signed thinking)


@dataclass(frozen=True, slots=True)
class ReplayAsIs:
    """Assistant turns that carry thinking and whose calls all replay unchanged, with the ids they hold."""

    turns: frozenset[int]
    """Indexes of those turns in the history they were found in."""
    ids: frozenset[str]
    """Every call id of those turns: no other call may be given one of them."""


NOTHING_AS_IS = ReplayAsIs(frozenset(), frozenset())
"""For policies without signed thinking replay: every turn may be changed."""


def replay_as_is(messages: Transcript, allowed: frozenset[str] | None) -> ReplayAsIs:
    """The turns a signed-thinking provider gets back exactly as stored.

    A turn qualifies when it holds thinking and at least one call, and every call has arguments, a
    stored `id` that is unique in the turn and not taken by an earlier qualifying turn, a valid name
    that needs no trimming, and no scratch text: replaying it needs no change at all.
    """
    turns: set[int] = set()
    reserved: set[str] = set()
    for index, message in enumerate(messages):
        calls = tool_calls(message)
        if not calls or not any(isinstance(b, ThinkingBlock) for b in blocks_of(message)):
            continue
        # When every call is as-is, every stored id is a string, so `ids` holds one per call.
        ids = [stored for call in calls if isinstance(stored := call.raw.get("id"), str)]
        if all(_as_is(call, allowed) for call in calls) and _fresh(ids, reserved):
            turns.add(index)
            reserved.update(ids)
    return ReplayAsIs(frozenset(turns), frozenset(reserved))


def _as_is(call: ToolCallBlock, allowed: frozenset[str] | None) -> bool:
    name = call.name
    return (
        (call.arguments is not None or call.input is not None)
        and call.partial_json is None
        and is_usable_string(call.raw.get("id"))
        and isinstance(name, str)
        and TOOL_NAME.fullmatch(name) is not None
        and (allowed is None or name.lower() in allowed)
    )


def _fresh(ids: Iterable[str], reserved: set[str]) -> bool:
    ids = list(ids)
    return len(set(ids)) == len(ids) and not reserved.intersection(ids)
