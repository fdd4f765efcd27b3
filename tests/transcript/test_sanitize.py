"""Replay sanitising as a whole (transcript/sanitize.py): pipeline order, whole-policy cases, and
invariants over random histories."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise, takewhile

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from promptc.transcript import policy as policies
from promptc.transcript.model import (
    AssistantMessage,
    OpaqueBlock,
    TextBlock,
    ToolResultMessage,
    UserMessage,
    parse_message,
)
from promptc.transcript.queries import blocks_of, is_failed, tool_calls
from promptc.transcript.sanitize import STEPS, SanitizeOptions, sanitize
from promptc.transcript.texts import DEFAULT_TEXTS
from promptc.transcript.tool_inputs import TOOL_NAME

from support.transcript_strategies import (
    OLD_MARKERS,
    A,
    R,
    U,
    embedded_result,
    misshapen,
    plain,
    png_base64,
    tc,
    text,
    thinking,
    transcripts,
    typed,
)

ALL_POLICIES = sorted(policies.POLICY_TABLE.values(), key=lambda p: p.name)
ANTHROPIC_STYLE = [p for p in ALL_POLICIES if policies.ANTHROPIC_TURNS in p.transforms]
SIGNED_REPLAY = [
    policies.resolve("anthropic", "anthropic-messages", "claude-sonnet-4-5"),
    policies.resolve("amazon-bedrock", "bedrock-converse-stream", "claude-sonnet-4-5"),
    policies.resolve("minimax", "anthropic-messages", "MiniMax-M2"),
]
"""The Anthropic-style rows as `resolve` refines them for a model that signs its thinking (table rows do not)."""
SAMPLED = ALL_POLICIES + SIGNED_REPLAY
"""What the invariants sample from: every row, and the refinement that replays signed thinking as stored."""
RANDOM = settings(max_examples=400, deadline=None)
"""Deeper than the default: histories such as a real result after a stand-in under rewritten ids, an
embedded answer closing up behind a dropped failed turn, or a turn replayed as stored (SIGNED_REPLAY)
whose thinking a misnamed result takes, are rare in runs of 100 examples; each also has an example test."""
MERGING = settings(max_examples=1000, deadline=None)
"""Deep enough to find a per-turn step that runs before the Gemini merge changes what it sees, e.g. a
failed turn's thought signature kept, then merged into a completed turn (runs of 100 examples miss it)."""


def test_every_transform_in_the_order_has_a_step_and_no_step_is_unordered():
    assert set(STEPS) == set(policies.TRANSFORM_ORDER)


def test_steps_run_in_the_fixed_order_whatever_the_row_lists(monkeypatch):
    seen = []
    for name in policies.TRANSFORM_ORDER:
        monkeypatch.setitem(STEPS, name, lambda m, p, o, name=name: seen.append(name) or m)
    sanitize((), policies.POLICY_TABLE["openai-compatible"])
    assert seen == list(policies.POLICY_TABLE["openai-compatible"].transforms)
    assert seen == [n for n in policies.TRANSFORM_ORDER if n in seen]


def test_a_policy_that_lists_the_id_step_without_an_id_form_keeps_the_ids():
    # `Policy.ids` None means the ids are kept, also for a hand-built policy that lists the step
    # anyway (there is no id form named None).
    policy = policies.Policy("custom", None, frozenset({policies.TOOL_CALL_IDS}))
    history = typed(A(tc("call|1"), sr="toolUse"), R("call|1"))
    assert policies.TOOL_CALL_IDS in policy.transforms
    assert plain(sanitize(history, policy)) == plain(history)
    strict = sanitize(history, replace(policy, ids="strict"))
    assert [m.answers for m in strict if isinstance(m, ToolResultMessage)] == ["call1"]


def test_responses_missing_output_is_aborted_and_fc_suffix_dropped():
    policy = policies.resolve("openai", "openai-responses", "gpt-5")
    history = typed(A(tc("call_abc|fc_1"), sr="toolUse"), U("next"))
    assert plain(sanitize(history, policy)) == [
        A(tc("call_abc"), sr="toolUse"),
        {
            "role": "toolResult",
            "toolCallId": "call_abc",
            "toolName": "read",
            "content": [text("aborted")],
            "isError": True,
        },
        U("next"),
    ]


def test_fc_suffix_stays_when_reasoning_precedes_the_call():
    policy = policies.resolve("openai", "openai-responses", "gpt-5")
    reasoning = thinking(signature='{"id":"rs_1","type":"reasoning"}')
    history = typed(A(reasoning, tc("call_abc|fc_1"), sr="toolUse"), R("call_abc|fc_1"), U("next"))
    assert plain(sanitize(history, policy)) == plain(history)


def test_anthropic_policy_replays_a_typical_broken_history_as_alternating_turns():
    policy = policies.resolve("anthropic", "anthropic-messages", "claude-sonnet-4-5")
    history = typed(
        U("first"),
        U("second"),
        A(text("checking"), tc("toolu_01X", "read"), tc("call|2", "exec"), sr="toolUse"),
        R("call|2", "exec ran", name="exec"),
        A(sr="error"),
    )
    out = plain(sanitize(history, policy))
    assert out[0] == {"role": "user", "content": [text("first"), text("second")]}
    assert [c["id"] for c in out[1]["content"][1:]] == ["toolu_01X", "call2"]
    assert out[2]["toolCallId"] == "toolu_01X" and out[2]["isError"] is True
    assert out[2]["content"] == [text(DEFAULT_TEXTS.missing_tool_result)]
    assert out[3]["toolCallId"] == "call2" and out[3]["content"] == [text("exec ran")]
    assert len(out) == 4  # the failed empty turn at the end is not replayed


def test_image_limit_comes_from_the_options():
    history = typed(U([{"type": "image", "data": png_base64(300, 200), "mimeType": "image/png"}]))
    out = sanitize(history, policies.POLICY_TABLE["default"], SanitizeOptions(image_max_dimension_px=100))
    assert out[0].content[0].mime_type == "image/jpeg"


def test_callers_can_override_the_wording():
    options = SanitizeOptions(texts=replace(DEFAULT_TEXTS, missing_tool_result="NO RESULT", bootstrap_user_turn="BOOT"))
    out = plain(sanitize(typed(A(tc("c1"), sr="toolUse")), policies.POLICY_TABLE["google"], options))
    assert out[0] == U("BOOT") and out[2]["content"] == [text("NO RESULT")]


@pytest.mark.parametrize("policy", ALL_POLICIES, ids=lambda p: p.name)
def test_a_tool_result_embedded_in_the_user_turn_is_the_only_answer(policy):
    history = typed(
        U("what is 6 x 7?"),
        A(tc("toolu_1", kind="toolUse"), sr="toolUse"),
        U([embedded_result("toolu_1", "42")]),
        A(text("42")),
    )
    out = plain(sanitize(history, policy))
    assert not [m for m in out if m["role"] == "toolResult"]
    call_id = out[1]["content"][0]["id"]
    assert out[2]["content"] == [embedded_result(call_id, "42")]


def test_google_drops_a_bad_thought_signature_of_a_failed_turn_merged_into_a_later_one():
    # Merging makes the failed turn part of a completed one, so its signature is checked like any other:
    # in one pass, not only when the output is sanitised a second time.
    policy = policies.POLICY_TABLE["google"]
    history = typed(U("q"), A(text("partial", thoughtSignature="msg_01!"), sr="error"), A(text("done")))
    once = sanitize(history, policy)
    assert plain(once) == [U("q"), A(text("partial"), text("done"))]
    assert plain(sanitize(once, policy)) == plain(once)


@pytest.mark.parametrize("policy", ANTHROPIC_STYLE, ids=lambda p: p.name)
def test_a_stand_in_the_anthropic_turn_check_leaves_last_is_dropped_in_the_same_pass(policy):
    # The empty turn becomes the failed-turn stand-in and is merged with the thinking turn after it;
    # that turn's call is answered by a result naming another tool, so the check strips the call and
    # its result, and the stand-in is last: it goes now, not on a second pass.
    history = typed(U("q"), A(usage={"input": 0, "output": 0}), A(thinking(), tc("c1", "exec")), R("c1", name="read"))
    once = sanitize(history, policy)
    assert plain(once) == [U("q")]
    assert plain(sanitize(once, policy)) == plain(once)


@pytest.mark.parametrize("policy", ALL_POLICIES, ids=lambda p: p.name)
def test_an_embedded_result_whose_call_was_dropped_is_stable(policy):
    # The argument-less call is dropped, so the result embedded after it answers nothing: it goes,
    # instead of staying to be renamed once per pass.
    history = typed(
        A(tc("call_1"), sr="toolUse"),
        {"role": "compactionSummary", "summary": "earlier", "timestamp": 1},
        A({"type": "toolCall", "id": "call_1", "name": "read"}, text("retry"), sr="toolUse"),
        U([embedded_result("call_1", "inline")]),
    )
    once = sanitize(history, policy)
    assert plain(sanitize(once, policy)) == plain(once) and not _embedded_ids(once)


# ---------------------------------------------------------------------------------------------
# Invariants over random histories, for every policy


@RANDOM
@given(history=transcripts(), policy=st.sampled_from(SAMPLED))
def test_sanitising_is_idempotent(history, policy):
    once = sanitize(typed(*history), policy)
    assert plain(sanitize(once, policy)) == plain(once)


@MERGING
@given(history=transcripts())
def test_sanitising_for_google_is_idempotent(history):
    google = policies.POLICY_TABLE["google"]
    once = sanitize(typed(*history), google)
    assert plain(sanitize(once, google)) == plain(once)


@RANDOM
@given(history=transcripts(), policy=st.sampled_from(SAMPLED))
def test_no_user_text_is_lost(history, policy):
    out = sanitize(typed(*history), policy)
    replayed = [b.text for m in out if isinstance(m, UserMessage) for b in blocks_of(m) if isinstance(b, TextBlock)]
    for said in _user_texts(typed(*history)):
        assert any(said in r for r in replayed), said


@RANDOM
@given(history=transcripts(), policy=st.sampled_from(SAMPLED))
def test_no_real_tool_result_is_lost(history, policy):
    out = sanitize(typed(*history), policy)
    results = [m for m in out if isinstance(m, ToolResultMessage)]
    replayed = [b.text for m in results for b in blocks_of(m) if isinstance(b, TextBlock)]
    for result in _real_results(typed(*history)):
        assert result in replayed


@RANDOM
@given(history=transcripts(), policy=st.sampled_from(SAMPLED))
@example(  # a thinking turn whose call is answered inside the user turn (it lost the call, kept the result)
    history=[U("q"), A(thinking(), tc("toolu_01B", kind="toolUse"), sr="toolUse"), U([embedded_result("toolu_01B")])],
    policy=policies.POLICY_TABLE["anthropic"],
)
@example(  # a call without arguments answered inside the user turn (the call went, the result stayed)
    history=[A({"type": "toolUse", "id": "toolu_01B", "name": "read"}), U([embedded_result("toolu_01B"), text("ok")])],
    policy=policies.POLICY_TABLE["anthropic"],
)
def test_every_tool_call_is_answered_right_after_its_turn_no_result_is_an_orphan_and_failed_turns_keep_no_calls(
    history, policy
):
    out = sanitize(typed(*history), policy)
    _assert_calls_answered(out)
    assert not any(tool_calls(m) for m in out if is_failed(m))


@RANDOM
@given(history=transcripts(), policy=st.sampled_from(ANTHROPIC_STYLE + SIGNED_REPLAY))
def test_anthropic_style_output_alternates(history, policy):
    out = sanitize(typed(*history), policy)
    for earlier, later in pairwise(out):
        assert not (isinstance(earlier, UserMessage) and isinstance(later, UserMessage))
        assert not (isinstance(earlier, AssistantMessage) and isinstance(later, AssistantMessage))


def _user_texts(history):
    """What must survive of each user text: all of it, or for a relayed turn the text under a complete old marker."""
    return [
        _under_old_marker(b.text) if _relayed(m) else b.text
        for m in history
        if isinstance(m, UserMessage)
        for b in blocks_of(m)
        if isinstance(b, TextBlock) and b.text.strip()
    ]


def _relayed(message):
    return isinstance(message.provenance, dict) and message.provenance.get("kind") == "inter_session"


def _under_old_marker(said):
    """The text without a complete old marker standing at the start of one of its lines."""
    for marker in OLD_MARKERS:
        at = said.find(marker)
        if at >= 0 and (at == 0 or said[at - 1] == "\n") and (said[:at] + said[at + len(marker) :]).strip():
            return said[:at] + said[at + len(marker) :]
    return said


def _embedded_ids(messages):
    """Call ids quoted by tool result blocks inside user turns."""
    return {
        b.raw.get("toolUseId")
        for m in messages
        if isinstance(m, UserMessage)
        for b in blocks_of(m)
        if isinstance(b, OpaqueBlock) and b.raw.get("type") == "toolResult"
    }


def _real_results(history):
    """Texts of results that answer a valid, uniquely identified call of a completed turn in their frame."""
    calls = [c for m in history if not _transcript_only(m) for c in tool_calls(m) if _valid(c)]
    unique = {c.id for c in calls if sum(other.id == c.id for other in calls) == 1}
    frame, real, claimed = {}, [], set()
    for message in history:
        if isinstance(message, AssistantMessage) and tool_calls(message) and not _transcript_only(message):
            valid = {c.id: c.name.strip() for c in tool_calls(message) if _valid(c)}
            frame, claimed = ({} if is_failed(message) else valid), set()
        if isinstance(message, ToolResultMessage) and message.answers in frame and message.answers in unique:
            if _stored_stand_in(message):
                continue  # holds no output, and gives way to the real result
            body = message.content[0].text
            names_agree = message.tool_name in ("", frame[message.answers])
            if body.strip() and names_agree and message.answers not in claimed:
                real.append(body)
            claimed.add(message.answers)
    return real


def _valid(call):
    has_input = call.arguments is not None or call.input is not None
    return has_input and isinstance(call.name, str) and TOOL_NAME.fullmatch(call.name.strip()) is not None


def _transcript_only(message):
    return isinstance(message, AssistantMessage) and message.provider == "openclaw"


def _assert_calls_answered(out):
    for index, message in enumerate(out):
        if isinstance(message, ToolResultMessage):
            owner = next(m for m in reversed(out[:index]) if not isinstance(m, ToolResultMessage))
            assert message.answers in [c.id for c in tool_calls(owner)]
        if inside := _embedded_ids([message]):
            # A result inside a user turn answers the latest assistant turn, like the provider reads it.
            owner = next((m for m in reversed(out[:index]) if isinstance(m, AssistantMessage)), None)
            assert inside <= {c.id for c in tool_calls(owner)} if owner is not None else not inside
        if not tool_calls(message):
            continue
        inline = _embedded_ids(takewhile(lambda m: not isinstance(m, AssistantMessage), out[index + 1 :]))
        results = list(takewhile(lambda m: isinstance(m, ToolResultMessage), out[index + 1 :]))
        answers = [r.answers for r in results]
        # A call answered in the user turn needs no result message (a real one of its own is kept).
        assert [a for a in answers if a not in inline] == [c.id for c in tool_calls(message) if c.id not in inline]
        assert not [r for r in results if r.answers in inline and _synthetic(r)]


def _synthetic(result):
    return _stored_stand_in(result) or [b.text for b in blocks_of(result)] == ["aborted"]


def _stored_stand_in(result):
    """A synthetic result as the strategies store them: our text, or OpenClaw's flag in `details`."""
    details = result.raw.get("details") or {}
    texts = [b.text for b in blocks_of(result) if isinstance(b, TextBlock)]
    return result.is_error is True and (
        texts == [DEFAULT_TEXTS.missing_tool_result] or details.get("openclawSyntheticMissingToolResult") is True
    )


@pytest.mark.parametrize("policy", ALL_POLICIES, ids=lambda p: p.name)
def test_sanitising_never_changes_the_input(policy):
    raw = [U("hi"), A(tc("call|1"), sr="toolUse"), U("  ")]
    history = typed(*raw)
    sanitize(history, policy)
    assert plain(history) == raw and parse_message(raw[1]) == history[1]


@pytest.mark.parametrize("key", ["tool_call_id", "call_id"])
@pytest.mark.parametrize("policy", ALL_POLICIES, ids=lambda p: p.name)
def test_a_call_with_its_id_under_another_key_keeps_its_result(policy, key):
    call = {"type": "toolCall", key: "call_7", "name": "read", "arguments": {"path": "a"}}
    out = plain(sanitize(typed(U("q"), A(call, sr="toolUse"), R("call_7", "file text"), U("thanks")), policy))
    replayed_call = next(b for m in out if m["role"] == "assistant" for b in m["content"])
    results = [m for m in out if m["role"] == "toolResult"]
    assert replayed_call["id"] == replayed_call[key] == results[0]["toolCallId"]
    assert [r["content"] for r in results] == [[text("file text")]]


# ---------------------------------------------------------------------------------------------
# Provider-owned signed thinking replay

SIGNED_TARGETS = [
    ("amazon-bedrock", "bedrock-converse-stream", "anthropic.claude-sonnet-4-5-v1:0", "toolu_bdrk_01A"),
    ("minimax", "anthropic-messages", "MiniMax-M2", "call_function_x_1"),
    ("anthropic", "anthropic-messages", "claude-sonnet-4-5", "srvtoolu_01A"),
]


def _signed_turn(call_id, name="read"):
    return A(
        thinking("plan", signature="EqQBCkYIBxgC"),
        text("checking"),
        tc(call_id, name, args={"path": "a"}),
        sr="toolUse",
    )


@pytest.mark.parametrize("provider, api, model, call_id", SIGNED_TARGETS)
def test_a_signed_thinking_turn_is_replayed_exactly_as_stored(provider, api, model, call_id):
    policy = policies.resolve(provider, api, model)
    out = plain(sanitize(typed(U("q"), _signed_turn(call_id), R(call_id, "file"), U("thanks")), policy))
    assert out[1] == _signed_turn(call_id) and out[2] == R(call_id, "file")


@pytest.mark.parametrize("provider, api, model, call_id", SIGNED_TARGETS)
def test_other_calls_keep_strict_ids_that_never_take_a_signed_turns_id(provider, api, model, call_id):
    policy = policies.resolve(provider, api, model)
    plain_turn = A(tc(call_id), sr="toolUse")
    history = typed(U("q"), plain_turn, R(call_id, "one"), U("again"), _signed_turn(call_id), R(call_id, "two"))
    out = plain(sanitize(history, policy))
    first_id = out[1]["content"][0]["id"]
    assert first_id != call_id and first_id.isalnum() and out[2] == R(first_id, "one")
    assert out[4] == _signed_turn(call_id) and out[5] == R(call_id, "two")


def test_a_signed_turn_whose_call_must_change_loses_only_its_thinking():
    policy = policies.resolve(*SIGNED_TARGETS[0][:3])
    out = plain(sanitize(typed(U("q"), _signed_turn("toolu_bdrk_01A", " read "), R("toolu_bdrk_01A")), policy))
    assert out[1] == A(text("checking"), tc("toolubdrk01A", "read", args={"path": "a"}), sr="toolUse")


def test_of_two_signed_turns_sharing_an_id_only_the_first_is_kept_as_stored():
    policy = policies.resolve(*SIGNED_TARGETS[0][:3])
    history = typed(U("q"), _signed_turn("toolu_1"), R("toolu_1"), U("again"), _signed_turn("toolu_1"), R("toolu_1"))
    out = plain(sanitize(history, policy))
    assert out[1] == _signed_turn("toolu_1")
    # The kept turn's call does not count as an occurrence, so the second is a first one: seed `toolu_1`.
    assert out[4] == A(text("checking"), tc("toolu1", args={"path": "a"}), sr="toolUse") and out[5] == R("toolu1")


@pytest.mark.parametrize(
    "provider, api, model, on",
    [
        *((provider, api, model, True) for provider, api, model, _ in SIGNED_TARGETS),
        ("anthropic", "openai-completions", "claude-sonnet-4-5", False),
        ("anthropic", "anthropic-messages", "claude-3-7-sonnet-latest", False),
        ("google", "google-generative-ai", "gemini-2.5-pro", False),
        ("openai", "openai-responses", "gpt-5", False),
    ],
)
def test_signed_thinking_replay_is_on_for_signature_checking_apis_only(provider, api, model, on):
    assert policies.resolve(provider, api, model).signed_thinking_replay is on


@pytest.mark.parametrize("policy", ALL_POLICIES, ids=lambda p: p.name)
def test_the_real_result_after_a_stand_in_survives_every_policy(policy):
    # With id rewriting on, the second result for a call keeps the call's id: an orphan's fresh id
    # would make pairing drop the real result and keep the stand-in.
    stand_in = {**R("call_1", DEFAULT_TEXTS.missing_tool_result), "isError": True}
    out = plain(sanitize(typed(U("q"), A(tc("call_1"), sr="toolUse"), stand_in, U(" "), R("call_1", "real")), policy))
    assert [m["content"] for m in out if m["role"] == "toolResult"] == [[text("real")]]


@RANDOM
@given(history=transcripts().flatmap(misshapen), policy=st.sampled_from(ALL_POLICIES))
def test_a_value_of_any_json_type_anywhere_is_replayed_or_left_out_never_a_crash(history, policy):
    out = sanitize(typed(*history), policy)
    assert plain(sanitize(out, policy)) == plain(out)


# ---------------------------------------------------------------------------------------------
# No tool result outlives its call, inside a user turn either

ANTHROPIC_TARGETS = [
    ("anthropic", "anthropic-messages", "claude-sonnet-4-5"),
    ("amazon-bedrock", "bedrock-converse-stream", "claude-sonnet-4-5"),
    ("minimax", "anthropic-messages", "claude-sonnet-4-5"),
]


@pytest.mark.parametrize("provider, api, model", ANTHROPIC_TARGETS)
def test_a_signed_thinking_turn_answered_inside_the_user_turn_is_replayed_with_its_answer(provider, api, model):
    # The call is valid and answered, so the turn needs no change: its thinking, text and call stay,
    # and so does the result the user turn carries (a call and its result stay or go together).
    turn = A(
        thinking("plan", signature="c2lnbmF0dXJl"),
        text("let me look"),
        tc("toolu_01B", kind="toolUse", args={"path": "a"}),
        sr="toolUse",
    )
    history = [U("q"), turn, U([embedded_result("toolu_01B", "inline B")])]
    assert plain(sanitize(typed(*history), policies.resolve(provider, api, model))) == history


def _two_reads():
    turn = A(
        thinking("plan", signature="c2lnbmF0dXJl"),
        text("two reads"),
        tc("toolu_01B", args={"path": "b"}),
        tc("toolu_01C", args={"path": "c"}),
        sr="toolUse",
    )
    return [U("q"), turn, R("toolu_01C", "c text", name="exec"), U([embedded_result("toolu_01B", "b text")])]


@pytest.mark.parametrize("name", ["anthropic", "anthropic-compatible", "bedrock"])
def test_a_thinking_turn_that_loses_a_call_keeps_the_answered_one_and_its_inline_result(name):
    # The rows as such (thinking kept, not replayed as stored, e.g. Claude over another API): a result
    # message naming another tool does not vouch for its call in a thinking turn, so that call and the
    # thinking go; the call answered inside the user turn stays, with its answer.
    policy = policies.POLICY_TABLE[name]
    kept = "toolu_01B" if policy.keep_native_anthropic_ids else "toolu01B"
    assert plain(sanitize(typed(*_two_reads()), policy)) == [
        U("q"),
        A(text("two reads"), tc(kept, args={"path": "b"}), sr="toolUse"),
        U([embedded_result(kept, "b text")]),
    ]


@pytest.mark.parametrize("provider, api, model", ANTHROPIC_TARGETS)
def test_a_turn_replayed_as_stored_has_its_calls_answered_by_id(provider, api, model):
    # Its ids were kept because it is replayed as stored; taking its thinking away at the end would
    # leave them to be rewritten by a second pass.
    policy = policies.resolve(provider, api, model)
    once = sanitize(typed(*_two_reads()), policy)
    assert plain(once) == _two_reads() and sanitize(once, policy) == once


def test_a_result_inside_the_user_turn_goes_with_its_call_that_had_no_arguments():
    policy = policies.resolve("anthropic", "anthropic-messages", "claude-sonnet-4-5")
    call = {"type": "toolUse", "id": "toolu_01B", "name": "read"}
    history = typed(U("q"), A(text("checking"), call, sr="toolUse"), U([embedded_result("toolu_01B"), text("and?")]))
    assert plain(sanitize(history, policy)) == [U("q"), A(text("checking"), sr="toolUse"), U([text("and?")])]


@pytest.mark.parametrize("policy", ALL_POLICIES, ids=lambda p: p.name)
def test_no_policy_keeps_a_result_inside_the_user_turn_whose_call_is_gone(policy):
    call = {"type": "toolUse", "id": "toolu_01B", "name": "read"}
    history = typed(
        U("q"),
        A(text("checking"), call, sr="toolUse"),
        U([embedded_result("toolu_01B"), text("and?")]),
        A(text("more")),
        U([embedded_result("toolu_01B")]),
    )
    out = plain(sanitize(history, policy))
    assert not [m for m in out if m["role"] == "toolResult"] and not _embedded_ids(typed(*out))
    assert [m["content"] for m in out if m["role"] == "user"][-1] == [text("and?")]


@pytest.mark.parametrize("policy", ANTHROPIC_STYLE, ids=lambda p: p.name)
def test_a_relayed_turn_merged_after_the_users_own_keeps_its_marker_where_it_is(policy):
    relayed = {"kind": "inter_session", "sourceSessionKey": "agent:ops"}
    once = sanitize(typed(U("header"), U("second block", provenance=relayed)), policy)
    marker = f"{DEFAULT_TEXTS.inter_session_header} sourceSession=agent:ops isUser=false\n"
    assert plain(once) == [
        U([text("header"), text(marker + DEFAULT_TEXTS.inter_session_notice + "\nsecond block")], provenance=relayed)
    ]
    assert sanitize(once, policy) == once
