"""The provider-family table and the rules that pick a row."""

from __future__ import annotations

import pytest

from promptc.transcript import policy as p


@pytest.mark.parametrize(
    "provider, api, model, family",
    [
        ("openai", "openai-responses", "gpt-5", "openai-responses"),
        ("openai-codex", "openai-codex-responses", "gpt-5-codex", "openai-responses"),
        ("openai", "openai-completions", "gpt-4o", "openai"),
        ("xai", "openai-completions", "grok-4", "openai-compatible"),
        ("google", "google-generative-ai", "gemini-2.5-pro", "google"),
        ("google-vertex", "", "gemini-2.5-pro", "google"),
        (" Anthropic ", "anthropic-messages", "claude-sonnet-4-5", "anthropic"),
        ("minimax", "anthropic-messages", "MiniMax-M2", "anthropic-compatible"),
        ("amazon-bedrock", "bedrock-converse-stream", "anthropic.claude-sonnet-4", "bedrock"),
        ("mistral", "mistral-conversations", "mistral-large", "mistral"),
        ("openrouter", "openai-completions", "mistralai/devstral", "mistral"),
        ("ollama", "openai-completions", "codestral:22b", "mistral"),
        ("openrouter", "openai-completions", "google/gemini-2.5-flash", "openrouter-gemini"),
        ("openrouter", "openai-completions", "anthropic/claude-sonnet-4", "default"),
        ("someone", "some-api", "some-model", "default"),
    ],
)
def test_each_request_lands_in_its_family(provider, api, model, family):
    assert p.resolve(provider, api, model).name == family


def test_every_family_row_is_reachable_by_a_rule():
    assert {name for name, _, _ in p.FAMILY_RULES} == set(p.POLICY_TABLE)


@pytest.mark.parametrize(
    "family, ids, on, off",
    [
        ("openai-responses", None, {p.RESPONSES_CALL_IDS}, {p.TOOL_CALL_IDS, p.ANTHROPIC_TURNS, p.GEMINI_TURNS}),
        ("openai", "strict", {p.TOOL_CALL_IDS}, {p.ANTHROPIC_TURNS, p.GEMINI_TURNS, p.THOUGHT_SIGNATURES}),
        (
            "openai-compatible",
            "strict",
            {p.HISTORICAL_THINKING, p.GEMINI_TURNS, p.BOOTSTRAP_USER_TURN, p.ANTHROPIC_TURNS},
            {p.UNSIGNED_THINKING},
        ),
        ("google", "strict", {p.THOUGHT_SIGNATURES, p.GEMINI_TURNS, p.BOOTSTRAP_USER_TURN}, {p.ANTHROPIC_TURNS}),
        ("anthropic", "strict", {p.UNSIGNED_THINKING, p.ANTHROPIC_TURNS}, {p.GEMINI_TURNS, p.THOUGHT_SIGNATURES}),
        ("bedrock", "strict", {p.UNSIGNED_THINKING, p.ANTHROPIC_TURNS}, {p.GEMINI_TURNS}),
        ("mistral", "strict9", {p.TOOL_CALL_IDS}, {p.ANTHROPIC_TURNS, p.GEMINI_TURNS}),
        ("openrouter-gemini", None, {p.THOUGHT_SIGNATURES}, {p.TOOL_CALL_IDS, p.GEMINI_TURNS}),
        ("default", None, set(), {p.TOOL_CALL_IDS, p.ANTHROPIC_TURNS, p.GEMINI_TURNS, p.THOUGHT_SIGNATURES}),
    ],
)
def test_rows_match_the_provider_matrix(family, ids, on, off):
    row = p.POLICY_TABLE[family]
    assert row.ids == ids
    assert (on | p.EVERY_POLICY) <= set(row.transforms) and not off & set(row.transforms)


def test_only_native_anthropic_keeps_toolu_ids_and_only_responses_answers_aborted():
    assert [n for n, row in p.POLICY_TABLE.items() if row.keep_native_anthropic_ids] == ["anthropic"]
    assert [n for n, row in p.POLICY_TABLE.items() if row.responses_api] == ["openai-responses"]


def test_transforms_are_listed_in_pipeline_order():
    for row in p.POLICY_TABLE.values():
        assert list(row.transforms) == sorted(row.transforms, key=p.TRANSFORM_ORDER.index)


@pytest.mark.parametrize(
    "model, before_4",
    [
        ("claude-3-7-sonnet-latest", True),
        ("claude-3-5-haiku", True),
        ("claude-instant-1", True),
        ("claude", True),
        ("claude-sonnet-4-5", False),
        ("claude-opus-4-1", False),
        ("claude-4-opus", False),
        ("claude-5", False),
        ("anthropic.claude-haiku-4-5-v1:0", False),
        ("gpt-5", False),
    ],
)
def test_claude_generations(model, before_4):
    assert p.claude_before_4(model) is before_4


def test_explain_gives_the_reason_then_one_line_per_transform():
    lines = p.explain(p.resolve("mistral", "x", "y"))
    assert lines[0] == "policy mistral: the provider is mistral or the model id names a Mistral model"
    assert len(lines) == 1 + len(p.TRANSFORM_ORDER)
    assert lines[1 + p.TRANSFORM_ORDER.index(p.TOOL_CALL_IDS)].startswith("+ tool_call_ids: ")
    assert "(strict9)" in lines[1 + p.TRANSFORM_ORDER.index(p.TOOL_CALL_IDS)]
    assert lines[1 + p.TRANSFORM_ORDER.index(p.GEMINI_TURNS)].startswith("- gemini_turns: ")
