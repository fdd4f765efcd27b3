"""Tool-call id sanitising (transcript/ids.py) and the OpenAI Responses `|fc_` downgrade."""

from __future__ import annotations

import pytest

from promptc.transcript import policy as policies
from promptc.transcript.ids import downgrade_responses_call_ids, rewrite_tool_call_ids, strict9_id, strict_id
from promptc.transcript.sanitize import sanitize

from support.transcript_strategies import A, R, U, embedded_result, plain, tc, text, thinking, typed


def _ids(messages):
    """Call ids then result ids, in transcript order."""
    out = []
    for m in plain(messages):
        out += [b["id"] for b in m.get("content", []) if isinstance(b, dict) and "id" in b]
        out += [m["toolCallId"]] if "toolCallId" in m else []
    return out


def test_strict_keeps_call_and_result_paired():
    out = rewrite_tool_call_ids(typed(A(tc("call|item:123")), R("call|item:123")), "strict")
    assert _ids(out) == ["callitem123", "callitem123"]


def test_strict_drops_underscores():
    assert strict_id("whatsapp_login_1768799841527_1") == "whatsapplogin17687998415271"


def test_strict_collision_in_one_turn_gets_a_hash_suffix():
    history = typed(A(tc("call_a|b"), tc("call_a:b")), R("call_a|b", "first"), R("call_a:b", "second"))
    out = plain(rewrite_tool_call_ids(history, "strict"))
    assert [b["id"] for b in out[0]["content"]] == ["callab", "callab164e5cbf"]
    pairs = [(m["toolCallId"], m["content"][0]["text"]) for m in out[1:]]
    assert pairs == [("callab", "first"), ("callab164e5cbf", "second")]


def test_strict_caps_ids_at_40_characters():
    raw = "call_" + "x" * 434
    out = rewrite_tool_call_ids(typed(A(tc(raw)), R(raw)), "strict")
    assert _ids(out) == ["call" + "x" * 36] * 2


def test_strict_without_alphanumerics():
    assert _ids(rewrite_tool_call_ids(typed(A(tc("|||"))), "strict")) == ["sanitizedtoolid"]


def test_strict9_takes_nine_then_hashes_on_collision():
    out = rewrite_tool_call_ids(typed(A(tc("call_abc|item:123")), A(tc("call_abc|item:456"))), "strict9")
    assert _ids(out) == ["callabcit", "15b81aaaa"]


def test_strict9_short_id_is_hashed():
    assert strict9_id("call_1") == "78d66c1f7"


def test_strict9_without_alphanumerics_and_of_abc():
    assert strict9_id("---") == "44d8b78be"
    assert strict9_id("abc") == "ba7816bf8"


def test_repeated_raw_id_across_turns_gets_a_second_id():
    history = typed(A(tc("call_1")), R("call_1"), U("again"), A(tc("call_1")), R("call_1"))
    assert _ids(rewrite_tool_call_ids(history, "strict")) == ["call1", "call1", "call12", "call12"]


def test_orphan_result_gets_a_fresh_id():
    assert _ids(rewrite_tool_call_ids(typed(R("call_x")), "strict")) == ["callxtoolresult1"]


def test_native_anthropic_ids_kept_only_when_asked():
    history = typed(A(tc("toolu_01ABC")), R("toolu_01ABC"))
    assert _ids(rewrite_tool_call_ids(history, "strict", keep_native_anthropic_ids=True)) == ["toolu_01ABC"] * 2
    assert _ids(rewrite_tool_call_ids(history, "strict")) == ["toolu01ABC"] * 2


def test_a_result_without_an_id_is_left_for_pairing_to_adopt():
    result = R(None)
    assert plain(rewrite_tool_call_ids(typed(A(tc("call_1")), result), "strict"))[1] == result


def test_legacy_tool_use_id_is_rewritten_in_place():
    legacy = {"role": "toolResult", "toolUseId": "call_1", "toolName": "read", "content": []}
    out = plain(rewrite_tool_call_ids(typed(A(tc("call_1")), legacy), "strict"))
    assert out[1] == {**legacy, "toolUseId": "call1"}


def test_responses_downgrade_renames_only_the_results_right_after_the_turn():
    history = typed(A(tc("call_a|fc_1"), sr="toolUse"), R("call_a|fc_1"), U("later"), R("call_a|fc_1", "stray"))
    assert _ids(downgrade_responses_call_ids(history)) == ["call_a", "call_a", "call_a|fc_1"]


def test_responses_downgrade_keeps_pairs_after_a_reasoning_item():
    reasoning = thinking(signature='{"id":"rs_9","type":"reasoning.encrypted"}')
    history = typed(A(reasoning, tc("call_a|fc_1"), sr="toolUse"), R("call_a|fc_1"))
    assert plain(downgrade_responses_call_ids(history)) == plain(history)


def test_responses_downgrade_ignores_a_signature_that_is_not_a_reasoning_item():
    signed = thinking(signature='{"id":"msg_9","type":"reasoning"}')
    history = typed(A(signed, tc("call_a|fc_1"), sr="toolUse"), R("call_a|fc_1"))
    assert _ids(downgrade_responses_call_ids(history)) == ["call_a", "call_a"]


def test_embedded_results_are_renamed_with_their_calls():
    history = typed(
        A(tc("call_1", kind="toolUse"), tc("call_2", kind="toolUse")),
        U([embedded_result("call_1"), text("and"), embedded_result("call_2", tool_use_id="call_2")]),
    )
    out = plain(rewrite_tool_call_ids(history, "strict"))
    assert [b["id"] for b in out[0]["content"]] == ["call1", "call2"]
    assert out[1]["content"] == [
        embedded_result("call1"),
        text("and"),
        embedded_result("call2", tool_use_id="call2"),
    ]


def test_an_openai_tool_row_is_renamed_with_its_call():
    history = typed(A(tc("call_1")), {"role": "tool", "tool_call_id": "call_1", "content": "42"})
    assert plain(rewrite_tool_call_ids(history, "strict9"))[1] == {
        "role": "tool",
        "tool_call_id": "78d66c1f7",
        "content": "42",
    }


def test_responses_downgrade_renames_embedded_results_in_the_next_user_turn():
    history = typed(A(tc("call_a|fc_1"), sr="toolUse"), U([embedded_result("call_a|fc_1")]))
    assert plain(downgrade_responses_call_ids(history))[1] == U([embedded_result("call_a")])


def test_an_orphan_result_keeps_the_fresh_id_on_a_second_pass():
    once = rewrite_tool_call_ids(typed(A(tc("call_1")), U([embedded_result("call_x")])), "strict")
    assert plain(once)[1] == U([embedded_result("callxtoolresult1")])
    assert rewrite_tool_call_ids(once, "strict") == once


def test_an_embedded_result_after_a_later_assistant_turn_answers_nothing():
    # Pairing reads it the same way: only the rows before the next assistant turn answer a call.
    history = typed(A(tc("call_1")), A(text("meanwhile")), U([embedded_result("call_1")]))
    once = rewrite_tool_call_ids(history, "strict")
    assert _ids(once) == ["call1"] and plain(once)[2] == U([embedded_result("call1toolresult1")])
    assert rewrite_tool_call_ids(once, "strict") == once


def test_an_orphan_native_anthropic_id_is_kept_when_native_ids_are():
    history = typed(U([embedded_result("toolu_01A")]))
    assert rewrite_tool_call_ids(history, "strict", keep_native_anthropic_ids=True) == history
    assert plain(rewrite_tool_call_ids(history, "strict"))[0] == U([embedded_result("toolu01Atoolresult1")])


KIMI_ID = "functions.read:0"


def test_kimi_native_ids_are_kept_when_asked_and_a_repeat_gets_a_strict_id():
    history = typed(A(tc(KIMI_ID)), R(KIMI_ID), U("again"), A(tc(KIMI_ID)), R(KIMI_ID))
    kept = _ids(rewrite_tool_call_ids(history, "strict", keep_native_kimi_ids=True))
    assert kept == [KIMI_ID, KIMI_ID, "functionsread02", "functionsread02"]
    assert _ids(rewrite_tool_call_ids(history, "strict")) == ["functionsread0"] * 2 + ["functionsread02"] * 2


def _kimi_replay(policy):
    return _ids(sanitize(typed(U("q"), A(tc(KIMI_ID), sr="toolUse"), R(KIMI_ID), U("thanks")), policy))


@pytest.mark.parametrize(
    "provider, model",
    [
        ("moonshot", "kimi-k2-0905-preview"),
        ("together", "moonshotai/Kimi-K2-Instruct"),
        ("groq", "kimi-k2"),
    ],
)
def test_kimi_ids_survive_replay_to_a_kimi_model(provider, model):
    assert _kimi_replay(policies.resolve(provider, "openai-completions", model)) == [KIMI_ID, KIMI_ID]


@pytest.mark.parametrize(
    "provider, api, model, ids",
    [
        ("xai", "openai-completions", "grok-4", ["functionsread0"] * 2),
        ("google", "google-generative-ai", "gemini-2.5-pro", ["functionsread0"] * 2),
        ("mistral", "mistral-conversations", "mistral-large", ["functions"] * 2),
    ],
)
def test_other_models_get_provider_safe_ids_for_kimi_calls(provider, api, model, ids):
    policy = policies.resolve(provider, api, model)
    assert not policy.keep_native_kimi_ids and _kimi_replay(policy) == ids


def test_a_mangled_kimi_id_is_not_native():
    history = typed(A(tc("functions read:0")), R("functions read:0"))
    assert _ids(rewrite_tool_call_ids(history, "strict", keep_native_kimi_ids=True)) == ["functionsread0"] * 2
