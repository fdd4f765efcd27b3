"""Provider contributions (inputs/contributions.py): stable prefix, dynamic suffix, slot overrides
and the gpt5 overlay."""

from __future__ import annotations

import pytest

from promptc import Request, RunFacts, compile_prompt
from promptc.inputs.contributions import Contribution, gpt5_applies, merge

OVERRIDE = """
stable_prefix: "## Provider Prefix\\nP-text"
dynamic_suffix: "## Provider Suffix\\nD-text"
section_overrides:
  tool_call_style: "## Tool Call Style\\nX"
"""


def test_contribution_replaces_tool_call_style_and_places_prefix_and_suffix(make_workspace, write_yaml):
    request = Request(
        run=RunFacts(session="heartbeat", mode="full", reactions="minimal", channel="telegram"),
        workspace=make_workspace({}),
        contribution_paths=(write_yaml("c.yaml", OVERRIDE),),
    )
    prompt = compile_prompt(request)
    ids = [s.id for s in prompt.sections]
    assert "## Tool Call Style\nX" in prompt.stable
    assert "Routine, low-risk tool calls" not in prompt.text
    assert "approvals" not in ids
    # A provider's stable text ends the stable part, so a model switch re-writes only its last tier.
    assert prompt.stable.endswith("P-text") and "section:provider_prefix" in prompt.tiers[-1].units
    assert "D-text" in prompt.volatile
    assert prompt.volatile.index("## Reactions") < prompt.volatile.index("D-text")
    assert (
        prompt.volatile.index("D-text") < prompt.volatile.index("## Heartbeats") < prompt.volatile.index("## Runtime")
    )


def test_without_override_the_approvals_guidance_is_present(make_workspace):
    prompt = compile_prompt(Request(workspace=make_workspace({})))
    assert "approvals" in [s.id for s in prompt.sections]


def test_execution_bias_override_shows_in_minimal_mode(make_workspace, write_yaml):
    contrib = write_yaml("c.yaml", 'section_overrides:\n  execution_bias: "## Execution Bias\\nGo."\n')
    base = Request(run=RunFacts(mode="minimal"), workspace=make_workspace({}))
    assert "execution_bias" not in [s.id for s in compile_prompt(base).sections]
    overridden = compile_prompt(
        Request(run=RunFacts(mode="minimal"), workspace=base.workspace, contribution_paths=(contrib,))
    )
    assert "## Execution Bias\nGo." in overridden.stable


def test_merge_deduplicates_and_joins_texts_in_order():
    a = Contribution(stable_prefix="P")
    b = Contribution(stable_prefix="P", dynamic_suffix="D")
    assert (merge([a, b]).stable_prefix, merge([a, b]).dynamic_suffix) == ("P", "D")
    assert merge([Contribution(stable_prefix="P"), Contribution(stable_prefix="Q")]).stable_prefix == "P\n\nQ"


def test_merge_overrides_later_wins_per_key():
    a = Contribution(section_overrides={"tool_call_style": "A", "execution_bias": "E"})
    b = Contribution(section_overrides={"tool_call_style": "B"})
    assert dict(merge([a, b]).section_overrides) == {"execution_bias": "E", "tool_call_style": "B"}


@pytest.mark.parametrize(
    "provider, model, applies",
    [
        (None, "openai/gpt-5.5", True),
        ("openai", "gpt-5", True),
        ("codex", "gpt-5-codex", True),
        (None, "openai/GPT-5.1", True),
        (None, "anthropic/claude-sonnet-4-5", False),
        (None, "openai/gpt-4o", False),
        (None, "openai/gpt-50", False),
        ("openrouter", "openrouter/openai/gpt-5", False),
    ],
)
def test_gpt5_overlay_matching(provider, model, applies):
    assert gpt5_applies(RunFacts(provider=provider, model=model)) is applies


def test_gpt5_overlay_adds_a_stable_contract_and_interaction_style(make_workspace):
    ws = make_workspace({})
    gpt = compile_prompt(Request(run=RunFacts(model="openai/gpt-5.5"), workspace=ws))
    claude = compile_prompt(Request(run=RunFacts(model="anthropic/claude-sonnet-4-5"), workspace=ws))
    assert "<behaviour_contract>" in gpt.stable and "<behaviour_contract>" not in claude.text
    assert "## Interaction Style" in gpt.stable and "## Interaction Style" not in claude.text
    assert (
        gpt.stable.index("## Safety")
        < gpt.stable.index("## Interaction Style")
        < gpt.stable.index("<behaviour_contract>")
    )


def test_a_model_switch_rewrites_only_the_last_cache_tier(make_workspace):
    ws = make_workspace({"AGENTS.md": "Rules.\n", "SOUL.md": "Calm.\n", "USER.md": "Ana.\n", "MEMORY.md": "- a note\n"})
    gpt = compile_prompt(Request(run=RunFacts(model="openai/gpt-5.5"), workspace=ws))
    claude = compile_prompt(Request(run=RunFacts(model="anthropic/claude-sonnet-4-5"), workspace=ws))
    assert len(gpt.tiers) == len(claude.tiers) == 3
    assert gpt.tiers[-1].units[-2:] == ("section:interaction_style", "section:provider_prefix")
    assert [t.key for t in gpt.tiers[:2]] == [t.key for t in claude.tiers[:2]]
    assert gpt.tiers[2].key != claude.tiers[2].key


def test_gpt5_personality_off_keeps_the_contract_but_not_the_style(make_workspace):
    request = Request(
        run=RunFacts(model="openai/gpt-5.5"),
        workspace=make_workspace({}),
        overrides=("agents.defaults.promptOverlays.gpt5.personality=off",),
    )
    prompt = compile_prompt(request)
    assert "<behaviour_contract>" in prompt.stable and "## Interaction Style" not in prompt.stable


def test_unknown_slot_in_a_contribution_file_is_an_error(run_cli, make_workspace, write_yaml):
    contrib = write_yaml("c.yaml", "section_overrides:\n  tone: x\n")
    code, out, err = run_cli("render", "--workspace", make_workspace({}), "--contributions", contrib)
    assert code == 2 and out == ""
    assert err.startswith(f"promptc: error: {contrib}:2:3: unknown slot 'tone'")


def plugin_contribution(cfg, run):
    """A provider plugin as an installed package would register it."""
    return {"stable_prefix": f"## Plugin\nFrom a plugin for {cfg.agent_id}."}


def test_entry_point_plugins_contribute(monkeypatch, make_workspace):
    from importlib import metadata

    from promptc.inputs import contributions as providers

    entry = metadata.EntryPoint("demo", f"{__name__}:plugin_contribution", providers.ENTRY_POINT_GROUP)
    monkeypatch.setattr(metadata, "entry_points", lambda group: [entry] if group == providers.ENTRY_POINT_GROUP else [])
    providers.installed_plugins.cache_clear()
    try:
        prompt = compile_prompt(Request(workspace=make_workspace({})))
    finally:
        providers.installed_plugins.cache_clear()
    assert "From a plugin for main." in prompt.stable
    assert prompt.stable.index("## Safety") < prompt.stable.index("## Plugin") and prompt.stable.endswith(
        "From a plugin for main."
    )


def test_a_contribution_file_that_is_not_a_mapping_is_an_error(run_cli, make_workspace, write_yaml):
    code, _, err = run_cli("render", "--workspace", make_workspace({}), "--contributions", write_yaml("c.yaml", "[]\n"))
    assert code == 2 and "a contribution must be a mapping" in err
