"""Turn-shape fixes for providers that insist on alternation: merges, a bootstrap turn, dangling calls."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from .answers import Answer, answers_until_next_assistant, drop_orphan_embedded, embedded_ids
from .model import (
    AssistantMessage,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    Transcript,
    UserMessage,
)
from .queries import blocks_of, is_failed, tool_calls
from .tool_inputs import replay_as_is


def merge_consecutive_assistants(messages: Transcript) -> Transcript:
    """Join back-to-back assistant turns; the later turn's usage, stop reason and error win when set."""
    return _merge_runs(messages, AssistantMessage, _merge_assistant)


def merge_consecutive_users(messages: Transcript) -> Transcript:
    """Join back-to-back user turns into one turn of blocks; other fields come from the later turn."""
    return _merge_runs(messages, UserMessage, _merge_user)


def _merge_runs(messages: Transcript, kind: type, merge: Callable[[Any, Any], Message]) -> Transcript:
    out: list[Message] = []
    for message in messages:
        if out and isinstance(out[-1], kind) and isinstance(message, kind):
            out[-1] = merge(out[-1], message)
        else:
            out.append(message)
    return tuple(out)


def _merge_assistant(earlier: AssistantMessage, later: AssistantMessage) -> AssistantMessage:
    return replace(
        earlier,
        content=blocks_of(earlier) + blocks_of(later),
        usage=_later_if_set(earlier.usage, later.usage),
        # A failure is not passed on: the later turn ran after it, and its calls were answered.
        stop_reason=later.stop_reason if is_failed(earlier) else _later_if_set(earlier.stop_reason, later.stop_reason),
        error_message=_later_if_set(earlier.error_message, later.error_message),
    )


def _merge_user(earlier: UserMessage, later: UserMessage) -> UserMessage:
    return replace(
        later,
        content=blocks_of(earlier) + blocks_of(later),
        timestamp=_later_if_set(earlier.timestamp, later.timestamp),
    )


def _later_if_set(earlier: Any, later: Any) -> Any:
    return later if later is not None else earlier


def prepend_bootstrap_turn(messages: Transcript, text: str) -> Transcript:
    """Put a tiny user turn first when the history starts with the assistant (Gemini rejects that)."""
    if not messages or not isinstance(messages[0], AssistantMessage):
        return messages
    return (UserMessage(content=text, timestamp=messages[0].timestamp), *messages)


def validate_anthropic_turns(
    messages: Transcript, omitted_calls_text: str, signed_thinking: bool = False
) -> Transcript:
    """Alternating turns with every tool call answered: merge assistants, strip dangling calls, merge users.

    With `signed_thinking` (policy.signed_thinking_replay), see strip_dangling_tool_calls.
    """
    stripped = strip_dangling_tool_calls(merge_consecutive_assistants(messages), omitted_calls_text, signed_thinking)
    # Stripping can remove the results that separated two assistant turns, so merge once more.
    return merge_consecutive_users(merge_consecutive_assistants(stripped))


def strip_dangling_tool_calls(
    messages: Transcript, omitted_calls_text: str, signed_thinking: bool = False
) -> Transcript:
    """Remove tool calls that no later result answers, then results whose call is gone (inside user turns too).

    With `signed_thinking`, a turn replayed exactly as stored (tool_inputs.replay_as_is) has its calls
    answered by id, as the provider matches them: its call ids were kept for it, so taking its thinking
    away here would leave them to be rewritten on the next pass.
    """
    as_stored = replay_as_is(messages, None).turns if signed_thinking else frozenset()
    out: list[Message] = []
    for index, message in enumerate(messages):
        if not isinstance(message, AssistantMessage) or not tool_calls(message):
            out.append(message)
            continue
        answers = answers_until_next_assistant(messages[index + 1 :])
        kept = _keep_answered_calls(message, answers, omitted_calls_text, trusted_only=index not in as_stored)
        out.extend([kept] if kept is not None else [])
    return drop_orphan_embedded(_drop_unanswered_results(out))


def _keep_answered_calls(
    assistant: AssistantMessage, answers: list[Answer], omitted_calls_text: str, trusted_only: bool
) -> AssistantMessage | None:
    """The turn with unanswered calls removed; None when a failed turn is left with nothing.

    `trusted_only`: in a thinking turn, only answers `_is_answered_trusted` accepts count.
    """
    blocks = blocks_of(assistant)
    thinking = any(isinstance(b, ThinkingBlock) for b in blocks)
    answered = _is_answered_trusted(answers) if thinking and trusted_only else _is_answered(answers)
    if all(answered(call) for call in tool_calls(assistant)):
        return assistant
    # Signed thinking is bound to the whole turn; once the turn changes it cannot be replayed.
    kept = tuple(
        b
        for b in blocks
        if not (isinstance(b, ToolCallBlock) and not answered(b)) and not (thinking and isinstance(b, ThinkingBlock))
    )
    if kept:
        return replace(assistant, content=kept)
    return None if is_failed(assistant) else replace(assistant, content=(TextBlock(text=omitted_calls_text),))


def _is_answered(answers: list[Answer]) -> Callable[[ToolCallBlock], bool]:
    ids = {a.id for a in answers if isinstance(a.id, str)}
    return lambda call: isinstance(call.id, str) and call.id in ids


def _is_answered_trusted(answers: list[Answer]) -> Callable[[ToolCallBlock], bool]:
    """In a thinking turn a result message must also name the call's tool; a result inside the user
    turn names none and vouches by its id (Anthropic's own shape for an answer)."""
    trusted = {(a.id, a.name) for a in answers if a.standalone and isinstance(a.id, str) and isinstance(a.name, str)}
    inline = embedded_ids(answers)
    return lambda call: (
        isinstance(call.id, str)
        and (call.id in inline or (isinstance(call.name, str) and (call.id, call.name) in trusted))
    )


def _drop_unanswered_results(messages: list[Message]) -> Transcript:
    out: list[Message] = []
    open_ids: set[Any] = set()
    for message in messages:
        if isinstance(message, AssistantMessage):
            open_ids = {call.id for call in tool_calls(message) if isinstance(call.id, str)}
        if not isinstance(message, ToolResultMessage) or _answers_one_of(message, open_ids):
            out.append(message)
    return tuple(out)


def _answers_one_of(result: ToolResultMessage, call_ids: set[Any]) -> bool:
    return isinstance(result.answers, str) and result.answers in call_ids
