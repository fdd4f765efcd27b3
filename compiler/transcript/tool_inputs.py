"""Tool-call input validation: drop calls no provider can replay (no arguments, no id, bad name)."""

from __future__ import annotations

import json
import re
from dataclasses import replace

from .model import AssistantMessage, Block, Message, ToolCallBlock, Transcript, tool_calls, without_fields

TOOL_NAME = re.compile(r"[A-Za-z0-9_:.-]{1,64}")


def validate_tool_call_inputs(messages: Transcript, allowed_names: frozenset[str] | None = None) -> Transcript:
    """Drop invalid tool calls (see `_valid_call`); a turn left with no content is left out."""
    allowed = None if allowed_names is None else frozenset(n.lower() for n in allowed_names)
    out: list[Message] = []
    for message in messages:
        if not tool_calls(message):
            out.append(message)
            continue
        blocks = message.content
        kept = tuple(b for b in (_valid_call(b, message, allowed) for b in blocks) if b is not None)
        unchanged = len(kept) == len(blocks) and all(a is b for a, b in zip(kept, blocks, strict=True))
        out.extend([message if unchanged else replace(message, content=kept)] if kept else [])
    return tuple(out)


def _valid_call(block: Block, message: AssistantMessage, allowed: frozenset[str] | None) -> Block | None:
    """The call (name trimmed, finished scratch text removed), or None when it cannot be replayed."""
    if not isinstance(block, ToolCallBlock):
        return block
    name = block.name.strip() if isinstance(block.name, str) else ""
    if block.arguments is None and block.input is None:
        return None
    if not isinstance(block.id, str) or not block.id.strip() or not TOOL_NAME.fullmatch(name):
        return None
    if allowed is not None and name.lower() not in allowed:
        return None
    if block.partial_json is not None:
        if not _finished_responses_call(block, message):
            return None
        block = without_fields(block, "partialJson")
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
