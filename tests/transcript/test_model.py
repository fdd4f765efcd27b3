"""Typed messages and entries: unknown fields and key order survive a read/write round trip."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from promptc.transcript.encode import loads, to_json
from promptc.transcript.jsonline import dumps
from promptc.transcript.model import (
    AssistantMessage,
    ImageBlock,
    OpaqueBlock,
    OpaqueMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
    parse_block,
    parse_entry,
    parse_header,
    parse_message,
)
from promptc.transcript.queries import has_zero_usage, without_fields

from support.transcript_strategies import A, R, U, image, tc, text, thinking

EVERY_SHAPE = [
    U("hi", provenance={"kind": "inter_session", "later": [1, {"x": None}]}, zz=1),
    U([text("a", textSignature='{"v":1}'), image("AAAA"), {"type": "toolResult", "toolUseId": "t"}, 7]),
    A(
        thinking(redacted=True),
        {"type": "redacted_thinking", "data": "d"},
        tc("c", partialJson="{"),
        sr="toolUse",
        usage={"input": 1, "cost": {"total": 0.5}},
        api="anthropic-messages",
        responseId="r",
        errorMessage=None,
    ),
    A(tc("c", kind="tool_use", args={"k": [1]}), {"type": "function_call", "id": "f"}, {"type": "future", "q": 1}),
    R("c", extra_field={"deep": True}, details={"diff": "…"}, toolUseId="c"),
    {"role": "assistant", "content": "legacy string"},
    {"role": "compactionSummary", "summary": "s", "tokensBefore": 9, "timestamp": 1},
    {"role": "bashExecution", "command": "ls"},
    {"role": "assistant", "content": {"single": "object"}},
    {"role": "user", "content": None},
]


@pytest.mark.parametrize("message", EVERY_SHAPE, ids=range(len(EVERY_SHAPE)))
def test_messages_round_trip_exactly_including_key_order(message):
    assert json.dumps(to_json(parse_message(message))) == json.dumps(message)


def test_entries_and_headers_round_trip_exactly():
    entry = {"type": "message", "id": "ab12cd34", "parentId": None, "timestamp": "t", "message": U("hi"), "new": 1}
    custom = {"type": "custom", "customType": "model-snapshot", "data": {"provider": "x"}, "id": "1", "parentId": "0"}
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/", "parentSession": "p"}
    assert to_json(parse_entry(entry)) == entry and list(to_json(parse_entry(entry))) == list(entry)
    assert to_json(parse_entry(custom)) == custom
    odd = {"type": "message", "message": "not an object", "id": "x"}
    assert to_json(parse_entry(odd)) == odd
    assert to_json(parse_header(header)) == header


def test_messages_are_typed_by_role_and_blocks_by_type():
    user, assistant, result = (parse_message(m) for m in (U([text("a"), image("B")]), A(thinking(), tc("c")), R("c")))
    assert isinstance(user, UserMessage) and [type(b) for b in user.content] == [TextBlock, ImageBlock]
    assert isinstance(assistant, AssistantMessage)
    assert [type(b) for b in assistant.content] == [ThinkingBlock, ToolCallBlock]
    assert isinstance(result, ToolResultMessage) and result.answers == "c"
    assert isinstance(parse_message({"role": "tool"}), OpaqueMessage)
    assert isinstance(parse_message(U([{"type": "text", "text": 5}])).content[0], OpaqueBlock)


@pytest.mark.parametrize("wrong", [["user"], {"role": "user"}, 7, None])
def test_a_role_or_block_type_that_is_not_a_string_stays_opaque_and_round_trips(wrong):
    # A list or an object here cannot be hashed: the reader must not look it up in a set.
    message, block = U("hi", role=wrong), {"type": wrong, "text": "hi"}
    assert isinstance(parse_message(message), OpaqueMessage) and to_json(parse_message(message)) == message
    assert isinstance(parse_block(block), OpaqueBlock) and to_json(parse_block(block)) == block


def test_a_changed_field_is_written_in_place_and_a_cleared_one_removed():
    message = parse_message(A(text("a"), sr="error", errorMessage="boom", after=1))
    changed = to_json(replace(message, stop_reason="stop", error_message=None))
    assert list(changed) == ["role", "content", "stopReason", "after"] and changed["stopReason"] == "stop"


def test_a_null_field_stays_null_when_untouched():
    assert to_json(parse_message(A(errorMessage=None)))["errorMessage"] is None


def test_new_objects_write_only_what_they_hold():
    assert to_json(ToolResultMessage(tool_call_id="c", content=(TextBlock(text="x"),))) == {
        "role": "toolResult",
        "toolCallId": "c",
        "content": [{"type": "text", "text": "x"}],
    }


def test_without_fields_removes_modelled_and_unknown_keys():
    block = parse_message(A(tc("c", thoughtSignature="s", partialJson="{"))).content[0]
    assert to_json(without_fields(block, "thoughtSignature", "partialJson")) == tc("c")


def test_thinking_is_signed_by_any_signature_field():
    assert ThinkingBlock(signature="s").signed and ThinkingBlock(thought_signature="s").signed
    assert not ThinkingBlock(thinking_signature="  ").signed and not ThinkingBlock(data="d").signed
    assert ThinkingBlock(type="redacted_thinking", data="d").signed


def test_zero_usage_needs_a_present_counter():
    assert has_zero_usage(parse_message(A(usage={"input": 0, "cost": {"total": 1}})))
    assert not has_zero_usage(parse_message(A(usage={"cost": {"total": 0}})))
    assert not has_zero_usage(parse_message(A(usage={"input": 0, "output": 2})))


def test_json_lines_are_strict():
    with pytest.raises(ValueError):
        loads('{"x": NaN}')


def test_a_call_id_under_another_key_is_the_calls_id_and_the_block_round_trips_exactly():
    for key in ("tool_call_id", "call_id"):
        raw = {"type": "toolCall", key: "c7", "name": "read", "arguments": {}}
        block = parse_message(A(raw)).content[0]
        assert block.id == "c7" and to_json(block) == raw
        assert to_json(block.with_id("x")) == {**raw, key: "x", "id": "x"}


def test_numbers_python_cannot_hold_round_trip_through_the_model():
    line = '{"role":"assistant","content":[],"usage":{"input":-0,"output":1e400},"n":' + "5" * 5000 + "}"
    assert dumps(to_json(parse_message(loads(line)))) == line
    assert has_zero_usage(parse_message(loads('{"role":"assistant","content":[],"usage":{"input":-0}}')))
