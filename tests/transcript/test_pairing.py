"""Tool-result pairing (transcript/pairing.py): every call followed by exactly one result, and the
frame rules around them."""

from __future__ import annotations

import pytest

from promptc.transcript.pairing import repair_pairing
from promptc.transcript.texts import DEFAULT_TEXTS

from support.transcript_strategies import A, R, U, embedded_result, plain, tc, text, typed

MISSING = "MISSING"


def _synthetic(call_id, name="read", **extra):
    return {**R(call_id, MISSING, name=name), "isError": True, **extra}


def _repair(*messages):
    return plain(repair_pairing(typed(*messages), MISSING))


def test_result_moves_up_and_missing_one_is_synthesised():
    call_1, call_2 = tc("call_1", "read"), tc("call_2", "exec")
    assert _repair(A(call_1, call_2, sr="toolUse"), U("msg"), R("call_2", "ok", name="exec")) == [
        A(call_1, call_2, sr="toolUse"),
        _synthetic("call_1"),
        R("call_2", "ok", name="exec"),
        U("msg"),
    ]


def test_duplicate_results_keep_the_first():
    assert _repair(A(tc("call_1")), R("call_1", "first"), R("call_1", "second"), U("ok")) == [
        A(tc("call_1")),
        R("call_1", "first"),
        U("ok"),
    ]


def test_free_orphan_is_dropped():
    assert _repair(U("hello"), R("call_orphan"), A(text("ok"))) == [U("hello"), A(text("ok"))]


def test_failed_turn_gets_no_synthetic_result():
    # Current generation as read: a failed turn's calls never ran, so they are not replayed;
    # a turn that was only calls is left out, a turn that also said something keeps its words.
    assert _repair(A(tc("call_error"), sr="error"), U("next")) == [U("next")]
    said_something = A(text("trying"), tc("call_error"), sr="error")
    assert _repair(said_something, U("next")) == [A(text("trying"), sr="error"), U("next")]


def test_failed_turn_drops_its_partial_result():
    assert _repair(A(tc("call_aborted"), sr="aborted"), R("call_aborted", "partial"), U("next")) == [U("next")]


def test_synthetic_result_takes_the_turn_timestamp_and_unknown_for_a_nameless_call():
    out = _repair(A(tc("call_1", name=None), timestamp=1234))
    assert out[1] == _synthetic("call_1", name="unknown", timestamp=1234)


def test_result_in_a_later_frame_moves_back_to_its_only_possible_owner():
    assert _repair(A(tc("c1")), A(tc("c2")), R("c1", "one"), R("c2", "two")) == [
        A(tc("c1")),
        R("c1", "one"),
        A(tc("c2")),
        R("c2", "two"),
    ]


def test_result_with_two_possible_owners_is_dropped():
    out = _repair(A(tc("x")), A(tc("x")), A(tc("y")), R("x", "which?"))
    assert [m["content"][0]["text"] for m in out if m["role"] == "toolResult"] == [MISSING] * 3


def test_result_that_lost_its_id_answers_the_only_call_and_is_marked_as_error():
    out = _repair(A(tc("c1", "read")), R(None, "out", name="read"))
    assert out[1] == {**R(None, "out"), "toolCallId": "c1", "isError": True}


def test_result_that_lost_its_id_is_not_adopted_when_names_disagree():
    assert _repair(A(tc("c1", "read")), R(None, "out", name="exec"))[1] == _synthetic("c1")


def test_result_that_lost_its_id_never_displaces_the_real_answer():
    assert _repair(A(tc("c1")), R(None, "guess"), R("c1", "real")) == [A(tc("c1")), R("c1", "real")]


def test_blank_result_name_is_filled_from_the_call():
    assert _repair(A(tc("c1", "exec")), R("c1", name=""))[1] == R("c1", name="exec")


def test_results_come_back_in_call_order():
    out = _repair(A(tc("a"), tc("b")), R("b", "second"), R("a", "first"))
    assert [m["content"][0]["text"] for m in out[1:]] == ["first", "second"]


def test_a_result_embedded_in_the_user_turn_answers_its_call():
    history = [A(tc("toolu_1", kind="toolUse"), sr="toolUse"), U([embedded_result("toolu_1"), text("thanks")])]
    assert _repair(*history) == history


def test_only_the_calls_the_user_turn_does_not_answer_get_a_synthetic_result():
    turn = A(tc("toolu_1", kind="toolUse"), tc("toolu_2", kind="toolUse"), sr="toolUse")
    reply = U([embedded_result("toolu_2", "two")])
    assert _repair(turn, reply) == [turn, _synthetic("toolu_1"), reply]


def test_a_result_message_of_the_frame_is_kept_beside_an_embedded_answer():
    # Both are real output; dropping either would lose it, and keeping both is stable on a second pass.
    turn, reply = A(tc("c1")), U([embedded_result("c1", "inline")])
    assert _repair(turn, reply, R("c1", "again")) == [turn, R("c1", "again"), reply]


def test_a_stray_result_is_not_moved_back_to_a_call_answered_in_its_user_turn():
    turn, reply, later = A(tc("c1")), U([embedded_result("c1", "inline")]), A(tc("c2"))
    assert _repair(turn, reply, later, R("c2", "two"), R("c1", "stray")) == [turn, reply, later, R("c2", "two")]


def test_an_embedded_answer_after_the_next_assistant_turn_does_not_count_and_goes():
    # The provider would read it as an answer to the later turn, which made no call.
    turn, later = A(tc("c1")), A(text("meanwhile"))
    assert _repair(turn, later, U([embedded_result("c1"), text("see above")])) == [
        turn,
        _synthetic("c1"),
        later,
        U([text("see above")]),
    ]


def test_a_result_inside_the_user_turn_that_answers_no_call_goes_with_nothing_else():
    assert _repair(U("q"), A(text("hi")), U([embedded_result("c1"), text("and?")])) == [
        U("q"),
        A(text("hi")),
        U([text("and?")]),
    ]
    assert _repair(U([embedded_result("c1")]), A(text("hi")), U([embedded_result("c1")])) == [A(text("hi"))]


def test_an_openai_tool_row_that_answers_no_call_goes():
    row = {"role": "tool", "tool_call_id": "c9", "content": "42"}
    assert _repair(A(tc("c1")), row, U("next")) == [A(tc("c1")), _synthetic("c1"), U("next")]


def test_results_inside_the_user_turn_after_a_failed_turn_that_keeps_its_words_go():
    failed = A(text("trying"), tc("c1"), sr="error")
    assert _repair(U("q"), failed, U([embedded_result("c1"), text("hm")])) == [
        U("q"),
        A(text("trying"), sr="error"),
        U([text("hm")]),
    ]


def test_an_openai_tool_row_answers_its_call():
    history = [A(tc("c1")), {"role": "tool", "tool_call_id": "c1", "content": "42"}, U("next")]
    assert _repair(*history) == history


# ---------------------------------------------------------------------------------------------
# A stored stand-in never beats the real result

OPENCLAW_STAND_IN_TEXT = (
    "[openclaw] missing tool result in session history; inserted synthetic error result for transcript repair."
)
"""OpenClaw's own stand-in text (reference notes, section 9), as it appears in files it wrote."""
STAND_INS = {
    "ours": {**R("c1", DEFAULT_TEXTS.missing_tool_result), "isError": True},
    "openclaw text": {**R("c1", OPENCLAW_STAND_IN_TEXT), "isError": True},
    "openclaw flag": {**R("c1", "aborted"), "isError": True, "details": {"openclawSyntheticMissingToolResult": True}},
    "our repair": {**R("c1", "aborted"), "isError": True, "details": {"promptcSyntheticToolResult": True}},
}


@pytest.mark.parametrize("stand_in", STAND_INS.values(), ids=STAND_INS.keys())
def test_real_result_beats_stored_synthetic_in_the_same_span(stand_in):
    assert _repair(A(tc("c1")), stand_in, R("c1", "real"), U("next")) == [A(tc("c1")), R("c1", "real"), U("next")]


@pytest.mark.parametrize("stand_in", STAND_INS.values(), ids=STAND_INS.keys())
def test_real_result_beats_stored_synthetic_after_a_turn_without_calls(stand_in):
    history = [A(tc("c1")), stand_in, U("go on"), A(text("still waiting")), R("c1", "real")]
    assert _repair(*history) == [A(tc("c1")), R("c1", "real"), U("go on"), A(text("still waiting"))]


@pytest.mark.parametrize("stand_in", STAND_INS.values(), ids=STAND_INS.keys())
def test_real_result_beats_stored_synthetic_after_a_turn_with_calls(stand_in):
    history = [A(tc("c1")), stand_in, U("go on"), A(tc("c2")), R("c2", "two"), R("c1", "real")]
    assert _repair(*history) == [A(tc("c1")), R("c1", "real"), U("go on"), A(tc("c2")), R("c2", "two")]


def test_of_two_stand_ins_the_first_stays_and_a_real_result_is_never_replaced():
    ours, theirs = STAND_INS["ours"], STAND_INS["openclaw flag"]
    assert _repair(A(tc("c1")), ours, theirs) == [A(tc("c1")), ours]
    assert _repair(A(tc("c1")), R("c1", "real"), ours) == [A(tc("c1")), R("c1", "real")]


def test_a_stand_in_beside_an_embedded_answer_goes():
    turn, reply = A(tc("c1")), U([embedded_result("c1", "inline")])
    assert _repair(turn, STAND_INS["ours"], reply) == [turn, reply]


def test_an_error_result_that_only_says_aborted_is_not_a_stand_in():
    # A real tool may fail with that word; without a stand-in flag it keeps its place.
    failed = {**R("c1", "aborted"), "isError": True}
    assert _repair(A(tc("c1")), failed, R("c1", "later")) == [A(tc("c1")), failed]


def test_a_failed_turn_left_out_lets_the_answer_after_it_count_for_the_call_before():
    # Found by the idempotence search: once the failed turn is gone, the embedded answer follows the
    # first turn, so a second pass would see the call answered there and drop the synthetic result.
    history = [
        A(tc("call_1")),
        {"role": "compactionSummary", "summary": "s"},
        A(tc("call_1"), sr="error"),
        U([embedded_result("call_1", "inline")]),
    ]
    once = _repair(*history)
    assert once == [history[0], history[1], history[3]] and _repair(*once) == once


def test_a_call_whose_id_is_not_a_string_is_paired_like_any_other_with_an_embedded_answer_after_it():
    # Pairing runs after the input check in every policy (which drops such a call), but on its own it
    # must take a call id that cannot be hashed, also once a result embedded in the user turn is seen.
    # The result quotes no call of that turn, so it goes with the user turn it emptied.
    call = tc(["x"])
    assert _repair(A(call), U([embedded_result("c")])) == [A(call), _synthetic(["x"])]
