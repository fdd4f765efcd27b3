"""Turn-shape fixes (transcript/turns.py): Gemini merge and bootstrap, Anthropic validation."""

from __future__ import annotations

from promptc.transcript.turns import (
    merge_consecutive_assistants,
    prepend_bootstrap_turn,
    strip_dangling_tool_calls,
    validate_anthropic_turns,
)

from support.transcript_strategies import A, R, U, plain, tc, text, thinking, typed

BOOT = "BOOT"
OMITTED = "OMITTED"


def test_assistant_first_history_gets_a_bootstrap_user_turn_once():
    history = typed(A(text("hi")), U("q", timestamp=5))
    once = prepend_bootstrap_turn(history, BOOT)
    assert plain(once) == [U(BOOT), A(text("hi")), U("q", timestamp=5)]
    assert prepend_bootstrap_turn(once, BOOT) == once


def test_bootstrap_turn_borrows_the_first_turns_timestamp():
    assert plain(prepend_bootstrap_turn(typed(A(text("hi"), timestamp=77)), BOOT))[0] == U(BOOT, timestamp=77)


def test_gemini_merges_consecutive_assistants_later_usage_and_stop_win():
    history = typed(
        U("q"),
        A(text("Part 1"), sr=None, usage={"input": 10, "output": 5}),
        A(text("Part 2"), sr="end_turn", usage={"input": 10, "output": 10}),
        U("next"),
    )
    assert plain(merge_consecutive_assistants(history)) == [
        U("q"),
        A(text("Part 1"), text("Part 2"), sr="end_turn", usage={"input": 10, "output": 10}),
        U("next"),
    ]


def test_a_tool_result_between_assistants_prevents_a_merge():
    history = typed(A(tc("c1")), R("c1"), A(text("done")))
    assert merge_consecutive_assistants(history) == history


def test_a_failed_earlier_turn_does_not_pass_its_failure_to_the_merged_turn():
    merged = plain(merge_consecutive_assistants(typed(A(text("x"), sr="error"), A(tc("c1"), sr=None))))
    assert merged == [{"role": "assistant", "content": [text("x"), tc("c1")]}]


def test_anthropic_merges_consecutive_users():
    history = typed(U([text("First")], timestamp=1000, a=1), U([text("Second")], timestamp=2000, b=2))
    expected = U([text("First"), text("Second")], timestamp=2000, b=2)
    assert plain(validate_anthropic_turns(history, OMITTED)) == [expected]


def test_merged_user_turns_turn_strings_into_blocks_and_keep_an_earlier_timestamp():
    out = plain(validate_anthropic_turns(typed(U("a", timestamp=1), U("b")), OMITTED))
    assert out == [U([text("a"), text("b")], timestamp=1)]


def test_dangling_call_is_stripped_and_its_text_kept():
    history = typed(U("q"), A(tc("tool-1", kind="toolUse"), text("I'll check that")), U("Hello"))
    assert plain(validate_anthropic_turns(history, OMITTED))[1] == A(text("I'll check that"))


def test_turn_of_only_dangling_calls_gets_the_placeholder():
    history = typed(U("q"), A(tc("tool-1", kind="toolUse")), U("Hello"))
    assert plain(validate_anthropic_turns(history, OMITTED))[1] == A(text(OMITTED))


def test_failed_turn_of_only_dangling_calls_is_dropped_at_the_tail():
    history = typed(U("q"), A(tc("tool-1", kind="toolUse"), sr="aborted"))
    assert plain(validate_anthropic_turns(history, OMITTED)) == [U("q")]


def test_results_inside_user_content_answer_calls():
    embedded = {"type": "toolResult", "toolUseId": "tool-1", "content": "r"}
    history = typed(
        A(tc("tool-1", kind="toolUse"), tc("tool-2", kind="toolUse"), text("Done")),
        U([embedded, text("Thanks")]),
    )
    once = validate_anthropic_turns(history, OMITTED)
    assert plain(once) == [A(tc("tool-1", kind="toolUse"), text("Done")), U([embedded, text("Thanks")])]
    assert plain(validate_anthropic_turns(once, OMITTED)) == plain(once)


def test_signed_thinking_turn_with_a_misnamed_result_is_replaced():
    history = typed(
        A(thinking(signature="sig_1"), tc("tool-1", "gateway")),
        R("tool-1", name="exec"),
        U("next"),
    )
    out = plain(validate_anthropic_turns(history, OMITTED))
    assert out[0] == A(text(OMITTED))
    # Our addition: the result of the removed call goes too, or it would answer nothing.
    assert out[1:] == [U("next")]


def test_thinking_turn_keeps_calls_with_trusted_results_but_not_its_thinking():
    turn = A(thinking(), tc("c1", "read"), tc("c2", "exec"))
    history = typed(turn, R("c1", "one", name="read"), R("c2", name="read"))
    assert plain(validate_anthropic_turns(history, OMITTED)) == [A(tc("c1", "read")), R("c1", "one", name="read")]


def test_thinking_turn_with_every_call_trusted_is_kept_verbatim():
    history = typed(A(thinking(), tc("c1", "read")), R("c1", name="read"), U("ok"))
    assert validate_anthropic_turns(history, OMITTED) == history


def test_stripping_that_joins_two_assistant_turns_merges_them():
    history = typed(A(thinking(), tc("c1", "read")), R("c1", name="exec"), A(text("after")))
    assert plain(validate_anthropic_turns(history, OMITTED)) == [A(text(OMITTED), text("after"))]


def test_results_for_calls_a_turn_never_made_are_dropped():
    assert plain(strip_dangling_tool_calls(typed(A(text("hi")), R("nobody")), OMITTED)) == [A(text("hi"))]


def test_a_thinking_turn_answered_inside_the_user_turn_is_kept_verbatim():
    # Anthropic's own shape for an answer: the result sits in the user turn and quotes the call's id.
    embedded = {"type": "toolResult", "toolUseId": "c1", "content": "r"}
    history = typed(A(thinking(), text("looking"), tc("c1", "read")), U([embedded, text("and?")]))
    assert validate_anthropic_turns(history, OMITTED) == history


def test_a_result_inside_the_user_turn_that_answers_no_call_goes():
    embedded = {"type": "toolResult", "toolUseId": "c9", "content": "r"}
    history = typed(A(text("hi")), U([embedded, text("and?")]), A(text("so")), U([embedded]))
    assert plain(validate_anthropic_turns(history, OMITTED)) == [A(text("hi")), U([text("and?")]), A(text("so"))]


def test_a_turn_replayed_as_stored_keeps_a_call_whose_result_names_another_tool():
    history = typed(A(thinking(), tc("c1", "gateway")), R("c1", name="exec"), U("next"))
    assert validate_anthropic_turns(history, OMITTED, signed_thinking=True) == history
    assert plain(validate_anthropic_turns(history, OMITTED))[0] == A(text(OMITTED))
