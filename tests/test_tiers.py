"""Cache tiers (tiers.py): the stable part cut into at most three tiers, their texts and keys,
which edits change which tier, TTLs, merging, and the `prompt.cache` config."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptc import tiers
from promptc.model.config import CacheConfig
from promptc.model.prompt import PromptUnit
from promptc.model.units import assigned_tier

from support.paths import EXAMPLES
from support.tiers import FILES, HEARTBEAT_FILES, HEARTBEATS_ON, REACH_TIERS


def compiled(run_cli, workspace, *extra):
    code, out, err = run_cli("render", "--workspace", workspace, "--format", "json", "--chat-type", "direct", *extra)
    assert code == 0, err
    return json.loads(out)


def keys(data):
    return [tier["key"] for tier in data["tiers"]]


def test_the_default_tiers_hold_sections_and_rare_files_then_soul_and_user_then_memory(run_cli, make_workspace):
    data = compiled(run_cli, make_workspace(FILES))
    names = [[unit["name"] for unit in tier["units"]] for tier in data["tiers"]]
    assert len(names) == 3
    assert names[0][0] == "section:identity" and names[0][-3:] == [
        "file:AGENTS.md",
        "file:TOOLS.md",
        "file:IDENTITY.md",
    ]
    assert names[1] == ["file:SOUL.md", "file:USER.md"]
    assert names[2] == ["file:MEMORY.md", "section:silent_replies"]  # a section after the files joins the last tier
    assert "".join(_tier_text(data["stable"], data["tiers"], i) for i in range(3)) == data["stable"] + "\n\n"


def _tier_text(stable, entries, index):
    start = sum(tier["chars"] for tier in entries[:index])
    return (stable + "\n\n")[start : start + entries[index]["chars"]]


def test_each_tier_has_its_own_hash_and_a_key_over_the_prefix_through_it(run_cli, make_workspace):
    data = compiled(run_cli, make_workspace(FILES))
    prefix = ""
    for index, tier in enumerate(data["tiers"]):
        text = _tier_text(data["stable"], data["tiers"], index)
        prefix += text
        assert tier["sha256"] == hashlib.sha256(text.encode()).hexdigest()
        assert tier["key"] == hashlib.sha256(prefix.encode()).hexdigest()
        assert tier["chars"] == len(text) and text.endswith("\n\n")


def test_appending_to_memory_changes_only_the_last_tier(run_cli, make_workspace):
    workspace = make_workspace(FILES)
    before = keys(compiled(run_cli, workspace))
    with open(workspace / "MEMORY.md", "a", encoding="utf-8") as handle:
        handle.write("- Sam moved to Porto.\n")
    after = keys(compiled(run_cli, workspace))
    assert after[:2] == before[:2] and after[2] != before[2]


def test_editing_user_md_changes_tier_two_and_after(run_cli, make_workspace):
    workspace = make_workspace(FILES)
    before = compiled(run_cli, workspace)
    (workspace / "USER.md").write_text("# User\n\nSam, who likes long answers.\n", encoding="utf-8")
    after = compiled(run_cli, workspace)
    assert keys(after)[0] == keys(before)[0]
    assert keys(after)[1] != keys(before)[1] and keys(after)[2] != keys(before)[2]
    assert after["tiers"][2]["sha256"] == before["tiers"][2]["sha256"]  # tier 3's own text is the same


def test_changing_the_channel_changes_no_tier(run_cli, make_workspace):
    workspace = make_workspace(FILES)
    telegram = compiled(run_cli, workspace, "--channel", "telegram")
    discord = compiled(run_cli, workspace, "--channel", "discord")
    assert telegram["volatile"] != discord["volatile"]
    assert telegram["tiers"] == discord["tiers"]


def test_a_group_chat_shares_the_first_two_tiers_with_the_direct_chat(run_cli, make_workspace):
    workspace = make_workspace(FILES)
    direct = compiled(run_cli, workspace)
    group = compiled(run_cli, workspace, "--chat-type", "group")  # MEMORY.md stays out of groups
    assert keys(group)[:2] == keys(direct)[:2]
    # The section after the files keeps a tier of its own, where MEMORY.md would be.
    assert [unit["name"] for unit in group["tiers"][2]["units"]] == ["section:silent_replies"]


def test_a_group_chat_shares_the_first_tier_also_when_memory_is_cut(run_cli, make_workspace):
    """MEMORY.md over budget puts the truncation notice in tier 1; a group chat, which leaves
    MEMORY.md out, shows the same notice so the two chats still share that tier."""
    workspace = make_workspace({**FILES, "MEMORY.md": "# Memory\n\n" + "- a long note worth keeping\n" * 400})
    direct = compiled(run_cli, workspace, "--set", "agents.defaults.bootstrapMaxChars=2000")
    group = compiled(run_cli, workspace, "--set", "agents.defaults.bootstrapMaxChars=2000", "--chat-type", "group")
    assert "## Bootstrap Context Notice" in direct["stable"] and "## Bootstrap Context Notice" in group["stable"]
    assert [f["name"] for f in group["files"] if f["status"] == "truncated"] == []  # nothing is cut in the group
    assert keys(group)[:2] == keys(direct)[:2]


def test_configured_tiers_move_files_and_sections_and_empty_tiers_vanish(run_cli, make_workspace):
    workspace = make_workspace(FILES)
    data = compiled(run_cli, workspace, "--set", "prompt.cache.tiers=[[sections, AGENTS.md, SOUL.md], [], [MEMORY.md]]")
    names = [[unit["name"] for unit in tier["units"]] for tier in data["tiers"]]
    # Unnamed files go where `sections` is, in load order; the empty tier leaves no trace.
    assert [n for n in names[0] if n.startswith("file:")] == [
        "file:AGENTS.md",
        "file:SOUL.md",
        "file:TOOLS.md",
        "file:IDENTITY.md",
        "file:USER.md",
    ]
    assert names[1] == ["file:MEMORY.md", "section:silent_replies"]
    assert [t["index"] for t in data["tiers"]] == [1, 2]
    assert [t["ttl"] for t in data["tiers"]] == ["1h", "5m"]


def test_a_section_named_in_a_later_tier_takes_the_sections_after_it_along(run_cli, make_workspace):
    data = compiled(run_cli, make_workspace(FILES), "--set", "prompt.cache.tiers=[[sections], [workspace]]")
    first, second = ([unit["name"] for unit in tier["units"]] for tier in data["tiers"])
    assert "section:identity" in first and "section:safety" in first
    assert second[0] == "section:workspace"  # the catalogue order is kept
    assert "file:AGENTS.md" in second and "section:documentation" in second


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("[[sections], [SOUL.md], [USER.md], [MEMORY.md]]", "at most 3 tiers"),
        ("[[sections, USERS.md]]", "unknown tier entry 'USERS.md'"),
        ("[[sections, soul.md]]", "did you mean 'SOUL.md'?"),
        ("[[sections, HEARTBEAT.md]]", "HEARTBEAT.md renders below the cache boundary"),
        ("[[sections, SOUL.md], [SOUL.md]]", "'SOUL.md' is in more than one tier"),
        ("[sections]", "expected a list of tiers"),
        ("[[sections], [MEMORY.md, MEMORY.md#head]]", "'MEMORY.md#head' must be in an earlier tier than MEMORY.md"),
        ("[[sections, MEMORY.md#head], [SOUL.md]]", "'MEMORY.md#head' must be in an earlier tier than MEMORY.md"),
        ("[[sections, HEARTBEAT.md#head], [SOUL.md]]", "unknown tier entry 'HEARTBEAT.md#head'"),
    ],
)
def test_a_bad_tier_list_is_a_located_config_error(run_cli, write_yaml, value, message):
    config = write_yaml("bad.yaml", f"prompt:\n  cache:\n    tiers: {value}\n")
    code, _, err = run_cli("render", "--config", config, "--workspace", EXAMPLES / "workspace")
    assert code == 2
    assert err.startswith(f"promptc: error: {config}:3:") and message in err
    assert len(err.strip().splitlines()) == 1


def test_a_section_id_no_stable_section_has_is_an_error_at_its_line(run_cli, write_yaml):
    config = write_yaml("bad.yaml", "prompt:\n  cache:\n    tiers:\n      - [sections]\n      - [skils]\n")
    code, _, err = run_cli("render", "--config", config, "--workspace", EXAMPLES / "workspace")
    assert code == 2
    assert (
        err.strip()
        == f"promptc: error: {config}:5:10: prompt.cache.tiers: no stable section 'skils' (did you mean 'skills'?)"
    )


def test_a_volatile_section_has_no_tier(run_cli, write_yaml):
    config = write_yaml("bad.yaml", "prompt:\n  cache:\n    tiers: [[sections], [runtime]]\n")
    code, _, err = run_cli("render", "--config", config, "--workspace", EXAMPLES / "workspace")
    assert code == 2 and "section 'runtime' is below the cache boundary" in err


def test_only_the_last_tier_may_reach_the_dynamic_context(run_cli, write_yaml):
    config = write_yaml(
        "bad.yaml", "prompt:\n  cache:\n    tiers:\n      - [sections, dynamic_context]\n      - [MEMORY.md]\n"
    )
    code, _, err = run_cli("render", "--config", config, "--workspace", EXAMPLES / "workspace")
    assert code == 2
    assert err.startswith(f"promptc: error: {config}:4:") and "only the last tier can reach it" in err


def test_heartbeat_md_in_a_tier_points_to_dynamic_context(run_cli, write_yaml):
    config = write_yaml("bad.yaml", "prompt:\n  cache:\n    tiers: [[sections, HEARTBEAT.md]]\n")
    code, _, err = run_cli("render", "--config", config, "--workspace", EXAMPLES / "workspace")
    assert code == 2 and "name its section, dynamic_context, in the last tier" in err


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("10m", "expected 5m, 1h"),
        ("[5m, 1h]", "cannot live longer than an earlier one"),
        ("[1h, 1h, 5m, 5m]", "at most 3"),
    ],
)
def test_a_bad_ttl_is_a_located_config_error(run_cli, write_yaml, value, message):
    config = write_yaml("bad.yaml", f"prompt:\n  cache:\n    ttl: {value}\n")
    code, _, err = run_cli("render", "--config", config, "--workspace", EXAMPLES / "workspace")
    assert code == 2 and err.startswith(f"promptc: error: {config}:3:") and message in err


def test_a_ttl_list_gives_each_tier_its_own_and_repeats_the_last():
    cache = CacheConfig(ttl=("1h", "5m"))
    assert [cache.ttl_at(i) for i in range(3)] == ["1h", "5m", "5m"]
    assert [CacheConfig().ttl_at(i) for i in range(3)] == ["1h", "5m", "5m"]
    assert [CacheConfig(ttl=("1h",)).ttl_at(i) for i in range(3)] == ["1h", "1h", "1h"]


@pytest.mark.parametrize(
    ("model", "tokens"),
    [
        ("anthropic/claude-sonnet-4-5", 1024),
        ("anthropic/claude-opus-4-5", 4096),
        ("claude-haiku-4-5", 4096),
        ("anthropic/claude-3-5-haiku-latest", 2048),
        (None, 1024),
    ],
)
def test_the_minimum_cacheable_prefix_follows_the_model(model, tokens):
    assert tiers.min_tokens(model) == tokens


def test_the_minimum_comes_from_the_price_table_of_the_models_provider():
    import yaml

    from promptc._lib.resources import templates_root

    table = yaml.safe_load((templates_root() / "pricing.yaml").read_text(encoding="utf-8"))
    assert table["as_of"] and table["currency"] == "USD"
    assert tiers.min_tokens("gpt-5", "openai") == table["providers"]["openai"]["default"]["min_tokens"] == 1024
    assert tiers.min_tokens("bedrock/anthropic.claude-3-5-haiku-20241022-v1:0") == 2048


SHORT_FIRST_TIER = "prompt.cache.tiers=[[identity, tooling, tool_call_style, execution_bias], [sections, AGENTS.md]]"


def test_a_first_tier_under_the_sonnet_minimum_is_merged_and_context_says_so(run_cli):
    inputs = ("--config", EXAMPLES / "config.yaml", "--run", EXAMPLES / "run.yaml", "--set", SHORT_FIRST_TIER)
    code, out, err = run_cli("render", *inputs, "--format", "json")
    assert code == 0, err
    laid = json.loads(out)["tiers"]
    first = laid[0]["chars"]  # ASCII text: one byte a character
    estimate = -(-first // 4)
    assert 600 < estimate < 1024  # about 700 tokens: under claude-sonnet-4-5's 1,024
    code, out, _ = run_cli("render", *inputs, "--format", "anthropic")
    blocks = json.loads(out)["system"]
    assert sum("cache_control" in block for block in blocks) == len(laid) - 1
    code, out, _ = run_cli("context", *inputs)
    assert code == 0
    assert (
        f"  cache tier 1 merged into tier 2: its prefix (about {estimate:,} tokens) is under the 1,024-token "
        "minimum of anthropic/claude-sonnet-4-5"
    ) in out.splitlines()
    code, out, _ = run_cli("context", *inputs, "--format", "json")
    assert json.loads(out)["cache_merges"] == [{"tier": 1, "into": 2, "tokens": estimate, "minimum": 1024}]
    # The default layout's tiers all reach the minimum: nothing merged, nothing said.
    code, out, _ = run_cli("context", "--config", EXAMPLES / "config.yaml", "--run", EXAMPLES / "run.yaml")
    assert "Cache tiers:" not in out


# --------------------------------------------------------------------------- properties

NAMES = st.sampled_from(
    ["section:a", "section:b", "file:AGENTS.md", "file:SOUL.md", "file:USER.md", "file:MEMORY.md", "section:z"]
)
UNITS = st.lists(st.tuples(NAMES, st.text(min_size=1, max_size=40)), max_size=7, unique_by=lambda pair: pair[0])
CONFIGS = st.lists(
    st.lists(st.sampled_from(["sections", "AGENTS.md", "SOUL.md", "USER.md", "MEMORY.md"]), max_size=3), max_size=3
)


@given(UNITS, CONFIGS)
def test_tiers_are_contiguous_cut_points_whose_texts_give_the_stable_part_back(pairs, config):
    units = [PromptUnit(name, text) for name, text in pairs]
    cache = CacheConfig(tiers=tuple(tuple(tier) for tier in config))
    laid = tiers.layout(units, cache)
    assert "".join(t.text for t in laid) == "".join(u.text + "\n\n" for u in units)
    assert [name for t in laid for name in t.units] == [u.name for u in units]
    assert len(laid) <= max(1, len(config)) and all(t.units for t in laid)
    # A unit's tier is the running maximum of the assigned ones (a section after a file counts
    # as assigned to the last tier): tiers cut where it grows.
    last = len(config) - 1
    assigned = [
        max(
            assigned_tier(u.name, cache),
            last if u.name.startswith("section:") and any(v.name.startswith("file:") for v in units[:i]) else 0,
        )
        for i, u in enumerate(units)
    ]
    running = [max(assigned[: i + 1]) for i in range(len(units))]
    cuts = [i for i in range(1, len(units)) if running[i] != running[i - 1]]
    ends = [sum(len(t.units) for t in laid[: j + 1]) for j in range(len(laid))]
    assert ends[:-1] == cuts
    prefix = ""
    for tier in laid:
        prefix += tier.text
        assert tier.key == hashlib.sha256(prefix.encode()).hexdigest()


@given(UNITS, st.integers(min_value=1, max_value=40))
def test_merging_keeps_the_text_and_only_drops_breakpoints_under_the_minimum(pairs, minimum):
    units = [PromptUnit(name, text) for name, text in pairs]
    laid = tiers.layout(units, CacheConfig())
    merged = tiers.merged(laid, minimum)
    assert "".join(t.text for t in merged) == "".join(t.text for t in laid)
    assert [t.key for t in merged[-1:]] == [t.key for t in laid[-1:]]  # the last breakpoint always stays
    assert [t.index for t in merged] == list(range(1, len(merged) + 1))
    prefix = ""
    for tier in merged[:-1]:
        prefix += tier.text
        assert tiers.estimate_tokens(prefix) >= minimum
    assert {t.key for t in merged} <= {t.key for t in laid}


# --------------------------------------------------------------------------- reaching further

LONG_MEMORY = "# Memory\n\n" + "".join(f"- note {i}: Sam said something worth keeping\n" for i in range(300))
HEAD_TIERS = (
    "prompt.cache.tiers=[[sections, AGENTS.md, TOOLS.md, IDENTITY.md], [SOUL.md, USER.md, MEMORY.md#head], [MEMORY.md]]"
)
SMALL_BUDGET = "agents.defaults.bootstrapMaxChars=3000"


def _unit_names(data):
    return [[unit["name"] for unit in tier["units"]] for tier in data["tiers"]]


def test_a_cut_files_head_sits_in_its_own_tier_and_the_rest_after_it(run_cli, make_workspace):
    workspace = make_workspace({**FILES, "MEMORY.md": LONG_MEMORY})
    plain = compiled(run_cli, workspace, "--set", SMALL_BUDGET)
    split = compiled(run_cli, workspace, "--set", SMALL_BUDGET, "--set", HEAD_TIERS)
    assert split["stable"] == plain["stable"]  # tiers never change the text
    names = _unit_names(split)
    assert names[1][-1] == "file:MEMORY.md#head" and names[2][0] == "file:MEMORY.md"
    texts = tiers.unit_texts(split["stable"], split["tiers"])
    whole = tiers.unit_texts(plain["stable"], plain["tiers"])["file:MEMORY.md"]
    assert texts["file:MEMORY.md#head"] + "\n" + texts["file:MEMORY.md"] == whole
    assert texts["file:MEMORY.md"].startswith("[... MEMORY.md cut: kept ")  # the rest begins at the marker line
    assert "- note 0:" in texts["file:MEMORY.md#head"] and "- note 299:" in texts["file:MEMORY.md"]
    assert "".join(_tier_text(split["stable"], split["tiers"], i) for i in range(3)) == split["stable"] + "\n\n"


def test_an_append_to_a_cut_file_leaves_the_tier_holding_its_head(run_cli, make_workspace):
    workspace = make_workspace({**FILES, "MEMORY.md": LONG_MEMORY})
    before = compiled(run_cli, workspace, "--set", SMALL_BUDGET, "--set", HEAD_TIERS)
    with open(workspace / "MEMORY.md", "a", encoding="utf-8") as handle:
        handle.write("- Sam moved to Porto.\n")
    after = compiled(run_cli, workspace, "--set", SMALL_BUDGET, "--set", HEAD_TIERS)
    assert keys(after)[:2] == keys(before)[:2] and keys(after)[2] != keys(before)[2]
    assert "Sam moved to Porto" in _tier_text(after["stable"], after["tiers"], 2)  # the kept tail moved on


def test_a_whole_file_named_with_a_head_stays_whole_in_the_later_tier(run_cli, make_workspace):
    data = compiled(run_cli, make_workspace(FILES), "--set", HEAD_TIERS)
    names = _unit_names(data)
    assert names[1] == ["file:SOUL.md", "file:USER.md"] and names[2][0] == "file:MEMORY.md"
    assert not any(name.endswith("#head") for tier in names for name in tier)


def _anthropic(run_cli, workspace, *extra):
    code, out, err = run_cli(
        "render", "--workspace", workspace, "--format", "anthropic", "--chat-type", "direct", *extra
    )
    assert code == 0, err
    return json.loads(out)["system"]


def _openai_text(run_cli, workspace, *extra):
    code, out, err = run_cli("render", "--workspace", workspace, "--format", "openai", "--chat-type", "direct", *extra)
    assert code == 0, err
    return json.loads(out)["messages"][0]["content"]


def test_the_last_tier_can_reach_past_the_dynamic_project_context(run_cli, make_workspace):
    workspace = make_workspace(HEARTBEAT_FILES)
    flags = ("--set", HEARTBEATS_ON, "--set", REACH_TIERS, "--channel", "telegram")
    data = compiled(run_cli, workspace, *flags)
    blocks = _anthropic(run_cli, workspace, *flags)
    last_cached = [b for b in blocks if "cache_control" in b][-1]
    dynamic = next(s for s in data["sections"] if s["id"] == "dynamic_context")
    assert data["volatile"].startswith("# Dynamic Project Context")
    assert last_cached["text"].endswith(data["volatile"][: dynamic["chars"]] + "\n\n")
    assert "Check the plant sensor" in last_cached["text"]
    assert blocks[-1] is not last_cached and "cache_control" not in blocks[-1]
    assert "## Runtime" in blocks[-1]["text"] and "Check the plant sensor" not in blocks[-1]["text"]
    assert "".join(b["text"] for b in blocks) == _openai_text(run_cli, workspace, *flags)
    assert _unit_names(data)[-1][-1] == "section:dynamic_context"


def test_what_the_reaching_tier_holds_changes_with_heartbeat_md_and_not_with_volatile_facts(run_cli, make_workspace):
    workspace = make_workspace(HEARTBEAT_FILES)
    flags = ("--set", HEARTBEATS_ON, "--set", REACH_TIERS)
    before = compiled(run_cli, workspace, *flags, "--channel", "telegram")
    other_channel = compiled(run_cli, workspace, *flags, "--channel", "discord")
    assert keys(other_channel) == keys(before)
    (workspace / "HEARTBEAT.md").write_text("# Heartbeat\n\n- Water the plant on Sundays.\n", encoding="utf-8")
    edited = compiled(run_cli, workspace, *flags, "--channel", "telegram")
    assert keys(edited)[:2] == keys(before)[:2] and keys(edited)[2] != keys(before)[2]
    assert edited["stable"] == before["stable"]


def test_without_a_heartbeat_file_the_last_tier_ends_at_the_boundary(run_cli, make_workspace):
    workspace = make_workspace(FILES)
    reach = compiled(run_cli, workspace, "--set", HEARTBEATS_ON, "--set", REACH_TIERS)
    assert _unit_names(reach)[-1][-1] == "section:silent_replies"
    blocks = _anthropic(run_cli, workspace, "--set", HEARTBEATS_ON, "--set", REACH_TIERS)
    assert [b for b in blocks if "cache_control" in b][-1]["text"].endswith("\n\n")
    assert blocks[-1]["text"] == reach["volatile"]


def test_a_session_kind_sent_uncached_gets_no_breakpoint(run_cli, make_workspace):
    workspace = make_workspace(HEARTBEAT_FILES)
    flags = ("--set", HEARTBEATS_ON, "--set", "prompt.cache.uncachedSessions=[heartbeat, cron]")
    heartbeat = _anthropic(run_cli, workspace, *flags, "--session", "heartbeat")
    main = _anthropic(run_cli, workspace, *flags)
    assert not any("cache_control" in b for b in heartbeat) and all(b["text"] for b in heartbeat)
    assert "".join(b["text"] for b in heartbeat) == _openai_text(run_cli, workspace, *flags, "--session", "heartbeat")
    assert sum("cache_control" in b for b in main) == 3
    code, out, _ = run_cli("render", "--workspace", workspace, "--format", "bedrock", *flags, "--session", "cron")
    assert code == 0 and not any("cachePoint" in entry for entry in json.loads(out)["system"])


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("[heartbeats]", "unknown session kind 'heartbeats' (did you mean 'heartbeat'?)"),
        ("[main, cron, heartbeat, cron]", "'cron' is listed twice"),
        ("heartbeat", "expected a list of strings"),
    ],
)
def test_a_bad_uncached_session_list_is_a_located_error(run_cli, write_yaml, value, message):
    config = write_yaml("bad.yaml", f"prompt:\n  cache:\n    uncachedSessions: {value}\n")
    code, _, err = run_cli("render", "--config", config, "--workspace", EXAMPLES / "workspace")
    assert code == 2 and err.startswith(f"promptc: error: {config}:3:") and message in err


def test_the_shipped_long_lived_layout_reaches_the_dynamic_context_with_an_hour_everywhere(run_cli):
    flags = (
        "--config",
        EXAMPLES / "config.yaml",
        "--config",
        EXAMPLES / "cache-long-lived.yaml",
        "--run",
        EXAMPLES / "run.yaml",
    )
    code, out, err = run_cli("render", *flags, "--format", "anthropic")
    assert code == 0, err
    blocks = json.loads(out)["system"]
    cached = [b for b in blocks if "cache_control" in b]
    assert [b["cache_control"]["ttl"] for b in cached] == ["1h", "1h", "1h"]
    assert "# Dynamic Project Context" in cached[-1]["text"] and "## Runtime" in blocks[-1]["text"]
    code, out, err = run_cli("render", *flags, "--session", "cron", "--format", "anthropic")
    assert code == 0 and not any("cache_control" in b for b in json.loads(out)["system"])
