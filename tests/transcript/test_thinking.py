"""Thinking blocks and their signatures (transcript/thinking.py)."""

from __future__ import annotations

from promptc.transcript import policy as policies
from promptc.transcript.sanitize import sanitize
from promptc.transcript.thinking import (
    drop_historical_thinking,
    drop_orphan_reasoning,
    is_base64,
    strip_thought_signatures,
    strip_unsigned_thinking,
    timestamp_ms,
)

from support.transcript_strategies import A, R, U, plain, tc, text, thinking, typed

OMITTED = "OMITTED"


def test_claude_message_ids_that_are_not_base64_are_removed_base64_kept():
    # "msg_01!" holds a character outside both base64 alphabets.
    history = typed(A(tc("c1", thoughtSignature="msg_01!"), tc("c2", thoughtSignature="c2lnbmF0dXJl")))
    assert plain(strip_thought_signatures(history)) == [A(tc("c1"), tc("c2", thoughtSignature="c2lnbmF0dXJl"))]


def test_a_msg_signature_that_is_valid_base64url_is_kept():
    # "msg_abc": seven base64url characters, 42 bits of which the last two are zero (c = 011100),
    # so it decodes to five bytes and encodes back to itself.
    assert is_base64("msg_abc")
    history = typed(A(tc("c1", thoughtSignature="msg_abc"), text("t", thought_signature="msg_abc")))
    assert strip_thought_signatures(history) == history


def test_a_msg_signature_whose_last_character_has_spare_bits_is_removed():
    # "msg_abd": d = 011101 leaves a set bit past the last whole byte, so it does not round-trip.
    assert not is_base64("msg_abd")
    assert plain(strip_thought_signatures(typed(A(tc("c1", thoughtSignature="msg_abd"))))) == [A(tc("c1"))]


def test_thought_signatures_that_are_not_base64_are_removed_from_any_block():
    history = typed(A(thinking(signature="s", thought_signature="not base64!"), text("t", thought_signature=3)))
    assert plain(strip_thought_signatures(history)) == [A(thinking(signature="s"), text("t"))]


def test_thought_signatures_of_error_turns_are_left_alone():
    history = typed(A(tc("c1", thoughtSignature="msg_01!"), sr="error"))
    assert strip_thought_signatures(history) == history


def test_base64_check_accepts_url_safe_and_rejects_non_canonical_text():
    assert is_base64("c2lnbmF0dXJl") and is_base64("_-8=") and is_base64("c2ln\nbmF0dXJl")
    assert not is_base64("") and not is_base64("a") and not is_base64("c2=ln")


def test_thinking_before_compaction_is_replaced_after_is_kept():
    history = typed(
        {"role": "compactionSummary", "summary": "s", "timestamp": 5000},
        A(thinking(signature="s1"), timestamp=4999),
        U("q", timestamp=5001),
        A(thinking(signature="s2"), text("answer"), timestamp=5002),
        U("next", timestamp=5003),
    )
    out = plain(strip_unsigned_thinking(history, OMITTED))
    assert out[1] == A(text(OMITTED), timestamp=4999)
    assert out[3] == A(thinking(signature="s2"), text("answer"), timestamp=5002)


def test_compaction_time_may_be_an_iso_string():
    history = typed(
        {"role": "compactionSummary", "summary": "s", "timestamp": "1970-01-01T00:00:05Z"},
        A(thinking(), text("kept text"), timestamp=4999),
        U("q"),
    )
    assert plain(strip_unsigned_thinking(history, OMITTED))[1] == A(text("kept text"), timestamp=4999)


def test_unsigned_thinking_goes_except_in_the_turn_still_in_progress():
    history = typed(
        A(thinking(signature=None), text("a")),
        U("q"),
        A(thinking(signature=" "), tc("c1")),
        R("c1"),
    )
    out = plain(strip_unsigned_thinking(history, OMITTED))
    assert out[0] == A(text("a"))
    assert out[2] == A(thinking(signature=" "), tc("c1"))


def test_redacted_thinking_is_signed_by_its_data():
    redacted = {"type": "redacted_thinking", "data": "opaque"}
    history = typed(A(redacted, text("a")), U("q"))
    assert strip_unsigned_thinking(history, OMITTED) == history


def test_historical_thinking_goes_from_finished_turns_only():
    history = typed(A(thinking(), text("a")), U("q"), A(thinking()), U("r"), A(thinking(), tc("c1")))
    out = plain(drop_historical_thinking(history, OMITTED))
    assert out == [A(text("a")), U("q"), A(text(OMITTED)), U("r"), A(thinking(), tc("c1"))]


def test_a_finished_last_turn_is_not_in_progress_once_a_user_follows():
    history = typed(A(thinking(), text("a")), U("q"))
    assert plain(drop_historical_thinking(history, OMITTED)) == [A(text("a")), U("q")]


def test_claude_before_4_drops_historical_thinking_and_4_keeps_it():
    old = policies.resolve("anthropic", "anthropic-messages", "claude-3-7-sonnet-latest")
    new = policies.resolve("amazon-bedrock", "bedrock-converse-stream", "anthropic.claude-sonnet-4-20250514-v1:0")
    assert policies.HISTORICAL_THINKING in old.transforms
    assert policies.HISTORICAL_THINKING not in new.transforms


def test_timestamps_from_numbers_and_iso_strings():
    assert timestamp_ms(1500) == 1500.0
    assert timestamp_ms("1970-01-01T00:00:01.500+00:00") == 1500.0
    assert timestamp_ms("1970-01-01T00:00:01") == 1000.0
    assert timestamp_ms("yesterday") is None and timestamp_ms(True) is None and timestamp_ms(None) is None


def test_cutoff_is_the_newest_compaction_not_the_last_listed():
    history = typed(
        {"role": "compactionSummary", "summary": "newer", "timestamp": 5000},
        {"role": "compactionSummary", "summary": "older", "timestamp": 1000},
        A(thinking(signature="s1"), text("answer"), timestamp=3000),
        U("q", timestamp=6000),
    )
    assert plain(strip_unsigned_thinking(history, OMITTED))[2] == A(text("answer"), timestamp=3000)


def test_the_anthropic_policy_uses_the_newest_compaction_too():
    policy = policies.resolve("anthropic", "anthropic-messages", "claude-sonnet-4-5")
    history = typed(
        {"role": "compactionSummary", "summary": "newer", "timestamp": "1970-01-01T00:00:05Z"},
        {"role": "compactionSummary", "summary": "older", "timestamp": "1970-01-01T00:00:01Z"},
        U("q", timestamp=2000),
        A(thinking(signature="s1"), text("answer"), timestamp=3000),
        U("next", timestamp=6000),
    )
    replayed = [m for m in plain(sanitize(history, policy)) if m["role"] == "assistant"]
    assert replayed == [A(text("answer"), timestamp=3000)]


RESPONSES = policies.resolve("openai", "openai-responses", "gpt-5")
REASONING = thinking(signature='{"id":"rs_1","type":"reasoning"}')


def test_an_orphaned_responses_reasoning_item_is_dropped():
    history = typed(U("q"), A(text("answer"), REASONING), U("more"), A(REASONING, sr="length"), U("again"))
    assert plain(sanitize(history, RESPONSES)) == [U("q"), A(text("answer")), U("more"), U("again")]


def test_a_reasoning_item_with_an_output_after_it_stays():
    encrypted = thinking("", signature='{"id":"rs_2","type":"reasoning.encrypted_content"}')
    history = typed(U("q"), A(REASONING, text("answer")), U("more"), A(encrypted, REASONING, text("done")))
    assert plain(drop_orphan_reasoning(history)) == plain(history)


def test_only_responses_reasoning_items_count_as_orphans():
    anthropic_style = thinking(signature="sig")
    history = typed(A(text("answer"), anthropic_style), A(text("x"), thinking(signature='{"id":"rs_1","type":"r"}')))
    assert drop_orphan_reasoning(history) == history


def test_a_turn_left_with_only_the_silent_reply_token_counts_as_emptied():
    history = typed(A(thinking(), text(" NO_REPLY\n")), U("q"))
    assert plain(drop_historical_thinking(history, OMITTED)) == [A(text(OMITTED)), U("q")]
