"""Row-level cleanups (transcript/normalize.py): blank text, empty and failed turns, half-finished
reasoning, and transcript-only rows."""

from __future__ import annotations

import pytest

from promptc.transcript.normalize import (
    clean_empty_text,
    drop_incomplete_reasoning_turns,
    drop_trailing_failed_turns,
    drop_transcript_only_rows,
)
from promptc.transcript.policy import POLICY_TABLE
from promptc.transcript.sanitize import sanitize
from promptc.transcript.texts import Texts

from support.transcript_strategies import OPENCLAW_FAILED_TURN, A, R, U, image, plain, tc, text, thinking, typed

TEXTS = Texts(empty_content="EMPTY", failed_turn="FAILED")


def _clean(*messages):
    return plain(clean_empty_text(typed(*messages), TEXTS))


def test_blank_tool_result_gets_the_placeholder():
    result = {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [text("  ")]}
    assert _clean(result) == [{**result, "content": [text("EMPTY")]}]


def test_blank_text_next_to_an_image_goes():
    assert _clean(U([text(""), image("AAAA")])) == [U([image("AAAA")])]


def test_blank_assistant_turn_is_not_replayed():
    assert _clean(U("q"), A(text("  "), sr="stop")) == [U("q")]


def test_blank_user_turns_are_not_replayed():
    assert _clean(U("  "), U([text(""), text(" ")]), U([]), U("kept")) == [U("kept")]


def test_empty_error_turn_gets_the_failed_turn_text():
    assert _clean(U("a"), A(sr="error"), U("b")) == [U("a"), A(text("FAILED"), sr="error"), U("b")]


def test_failed_turn_text_is_not_left_at_the_end():
    cleaned = clean_empty_text(typed(U("a"), A(sr="error")), TEXTS)
    assert plain(drop_trailing_failed_turns(cleaned, TEXTS)) == [U("a")]


def test_empty_stop_turn_with_usage_is_dropped_not_filled():
    assert _clean(U("a"), A(sr="stop", usage={"input": 100})) == [U("a")]


def test_empty_stop_turn_with_zero_usage_counts_as_failed():
    zero = {"input": 0, "output": 0}
    assert _clean(A(sr="stop", usage=zero)) == [A(text("FAILED"), sr="stop", usage=zero)]


def test_blank_text_only_error_turn_is_dropped():
    assert _clean(U("a"), A(text(" "), sr="error")) == [U("a")]


def test_a_real_reply_with_the_failed_turn_text_stays_at_the_end():
    history = typed(U("a"), A(text("FAILED"), sr="stop", usage={"input": 5}))
    assert drop_trailing_failed_turns(history, TEXTS) == history


def test_legacy_string_assistant_content_becomes_a_block():
    assert _clean({"role": "assistant", "content": "hello", "stopReason": "stop"}) == [A(text("hello"))]


def test_reasoning_only_length_turn_is_dropped():
    cut_short = A(thinking("…"), text(" "), sr="length")
    empty, with_call = A(sr="length"), A(thinking(), tc("c1"), sr="length")
    history = typed(U("q"), cut_short, empty, with_call)
    assert plain(drop_incomplete_reasoning_turns(history)) == [U("q"), empty, with_call]


def test_transcript_only_rows_are_not_replayed():
    history = typed(
        U("q"),
        A(text("mirror"), provider="openclaw", model="delivery-mirror"),
        A(text("note"), provider="openclaw", model="gateway-injected"),
        A(text("final"), openclawDeliveryMirror={"kind": "channel-final"}),
        A(text("real"), provider="openclaw", model="other"),
        R("c1"),
    )
    assert plain(drop_transcript_only_rows(history)) == [U("q"), plain(history)[4], R("c1")]


@pytest.mark.parametrize("silent", ["NO_REPLY", "  NO_REPLY\n", [text("NO_REPLY")], [text(" NO_REPLY "), text("")]])
def test_an_assistant_turn_holding_only_the_silent_reply_token_is_dropped(silent):
    turn = {"role": "assistant", "content": silent, "stopReason": "stop", "usage": {"input": 9, "output": 1}}
    assert _clean(U("q"), turn, U("again")) == [U("q"), U("again")]


def test_the_silent_reply_token_beside_real_text_goes_and_the_text_stays():
    assert _clean(A(text("NO_REPLY"), text("sent it"))) == [A(text("sent it"))]


def test_a_cut_off_reasoning_turn_that_ends_in_the_silent_reply_token_is_dropped():
    history = typed(U("q"), A(thinking(), text("NO_REPLY"), sr="length"))
    assert plain(drop_incomplete_reasoning_turns(history)) == [U("q")]


def test_the_token_inside_a_sentence_or_from_the_user_is_kept():
    history = [U("NO_REPLY"), A(text("I said NO_REPLY on purpose")), A(text("no_reply"))]
    assert _clean(*history) == history


@pytest.mark.parametrize("policy", sorted(POLICY_TABLE.values(), key=lambda p: p.name), ids=lambda p: p.name)
def test_no_policy_replays_a_silent_reply_turn(policy):
    out = plain(sanitize(typed(U("q"), A(text("NO_REPLY"), usage={"input": 9}), U("again")), policy))
    assert not [m for m in out if m["role"] == "assistant"]


@pytest.mark.parametrize("stop", [{"stopReason": "error"}, {"stopReason": "stop", "usage": {"input": 0}}])
def test_a_trailing_failed_turn_openclaw_wrote_is_not_replayed(stop):
    history = typed(U("a"), {"role": "assistant", "content": [text(OPENCLAW_FAILED_TURN)], **stop})
    assert plain(drop_trailing_failed_turns(history, TEXTS)) == [U("a")]


def test_every_policy_ends_on_the_user_turn_before_an_openclaw_stand_in():
    for policy in POLICY_TABLE.values():
        out = plain(sanitize(typed(U("a"), A(text(OPENCLAW_FAILED_TURN), sr="error")), policy))
        assert out[-1] == U("a") and not any(OPENCLAW_FAILED_TURN in str(m) for m in out), policy.name


def test_an_openclaw_stand_in_inside_the_history_is_left_as_it_was():
    history = typed(U("a"), A(text(OPENCLAW_FAILED_TURN), sr="error"), U("b"))
    assert drop_trailing_failed_turns(history, TEXTS) == history
