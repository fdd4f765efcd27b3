"""Tool-call input validation (transcript/tool_inputs.py) and finished Responses scratch text."""

from __future__ import annotations

import pytest

from promptc.transcript.tool_inputs import validate_tool_call_inputs

from support.transcript_strategies import A, U, plain, tc, text, typed


def test_call_without_arguments_is_dropped():
    ok = tc("call_ok", "read", kind="toolUse", args={"path": "a"})
    bare = {"type": "toolCall", "id": "call_drop", "name": "read"}
    out = plain(validate_tool_call_inputs(typed(A(text("before"), ok, bare))))
    assert out == [A(text("before"), ok)]


def test_turn_with_only_a_bad_call_is_left_out():
    bare = {"type": "toolCall", "id": "call_drop", "name": "read"}
    assert plain(validate_tool_call_inputs(typed(A(bare), U("hello")))) == [U("hello")]


BAD_NAMES = ["", "   ", 'toolu_01abc <|tool_call_argument_begin|> {"command"', "read_" + "x" * 80, None]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_bad_names_are_dropped(name):
    assert plain(validate_tool_call_inputs(typed(A(text("t"), tc("c1", name))))) == [A(text("t"))]


def test_surrounding_spaces_are_trimmed_and_dotted_names_accepted():
    out = plain(validate_tool_call_inputs(typed(A(tc("c1", " read "), tc("c2", "my.server:some_tool")))))
    assert [b["name"] for b in out[0]["content"]] == ["read", "my.server:some_tool"]


def test_names_outside_the_allow_list_are_dropped_case_insensitively():
    history = typed(A(tc("c1", "Read"), tc("c2", "exec")))
    out = plain(validate_tool_call_inputs(history, allowed_names=frozenset({"read"})))
    assert out == [A(tc("c1", "Read"))]


@pytest.mark.parametrize("call_id", [None, "", "  ", 7])
def test_call_without_an_id_is_dropped(call_id):
    assert plain(validate_tool_call_inputs(typed(A(text("t"), tc(call_id))))) == [A(text("t"))]


def test_null_arguments_count_as_missing():
    assert plain(validate_tool_call_inputs(typed(A(text("t"), tc("c1") | {"arguments": None})))) == [A(text("t"))]


def test_finished_responses_call_keeps_the_call_and_loses_its_scratch_text():
    call = tc("call_1|fc_1", args={"a": 1}, partialJson='{"a": 1}')
    out = plain(validate_tool_call_inputs(typed(A(call, sr="toolUse"))))
    assert out == [A(tc("call_1|fc_1", args={"a": 1}), sr="toolUse")]


@pytest.mark.parametrize(
    "call, stop",
    [
        (tc("call_1|fc_1", args={"a": 1}, partialJson='{"a":'), "toolUse"),
        (tc("call_1|fc_1", args={"a": 1}, partialJson='{"a": 1}'), "aborted"),
        (tc("call_1", args={"a": 1}, partialJson='{"a": 1}'), "toolUse"),
        (tc("call_1|fc_1", args={"a": 1}, partialJson=""), "toolUse"),
    ],
)
def test_interrupted_calls_with_scratch_text_are_dropped(call, stop):
    assert plain(validate_tool_call_inputs(typed(A(text("t"), call, sr=stop)))) == [A(text("t"), sr=stop)]


def test_a_valid_turn_is_returned_as_the_same_object():
    history = typed(A(tc("c1")))
    assert validate_tool_call_inputs(history)[0] is history[0]


@pytest.mark.parametrize("key", ["tool_call_id", "call_id"])
def test_a_call_whose_id_is_under_another_key_is_kept_with_its_id_under_id(key):
    call = {"type": "toolCall", key: "call_7", "name": "read", "arguments": {"path": "a"}}
    out = plain(validate_tool_call_inputs(typed(A(call, sr="toolUse"))))
    assert out == [A({**call, "id": "call_7"}, sr="toolUse")]


def test_the_id_key_wins_when_several_hold_an_id():
    call = {"type": "toolCall", "id": "a", "call_id": "b", "name": "read", "arguments": {}}
    assert plain(validate_tool_call_inputs(typed(A(call)))) == [A(call)]
