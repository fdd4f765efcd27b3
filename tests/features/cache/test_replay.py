"""`promptc cache simulate` (features/cache/replay.py): a trace replayed on a workspace copy, every
write with its cause, costs that add up, and the check that no volatile fact touched the stable
part."""

from __future__ import annotations

import json

import pytest

from promptc.features.cache.simulate import CHANGED, EXPIRED, EXPIRED_AND_CHANGED, FIRST_USE

from support.paths import EXAMPLES
from support.tiers import FILES, HEARTBEAT_FILES, REACH_TIERS

INPUTS = ("--config", EXAMPLES / "config.yaml", "--run", EXAMPLES / "run.yaml")
PRICES = {"anthropic": (0.1, {"5m": 1.25, "1h": 2.0}), "bedrock": (0.1, {"5m": 1.25, "1h": 2.0})}


def simulate(run_cli, trace, *extra):
    code, out, err = run_cli("cache", "simulate", "--trace", trace, "--format", "json", *extra)
    assert code == 0, err
    return json.loads(out)


def write_trace(tmp_path, events):
    path = tmp_path / "trace.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    import contextlib
    import io

    from promptc.commands import cli

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert (
            cli.main(
                ["cache", "simulate", "--trace", str(EXAMPLES / "trace.jsonl"), "--format", "json", *map(str, INPUTS)]
            )
            == 0
        )
    return json.loads(out.getvalue())


def test_the_example_trace_reports_every_write_with_its_cause(example):
    assert example["turns"] == 200
    assert example["volatile_fact_changed_stable"] == {"count": 0, "lines": []}
    assert set(example["providers"]) == {"anthropic", "bedrock", "openai"}
    for provider in example["providers"].values():
        assert provider["writes"]
        for write in provider["writes"]:
            assert write["cause"] in (EXPIRED, FIRST_USE, CHANGED, EXPIRED_AND_CHANGED)
            assert bool(write["changed"]) == (write["cause"] in (CHANGED, EXPIRED_AND_CHANGED))
            assert 1 <= write["line"] <= 200 and write["tokens"] > 0


def test_the_example_trace_shows_memory_edits_tool_changes_and_expiry(example):
    causes = {c["cause"] for c in example["providers"]["anthropic"]["causes"]}
    assert {"expired", "first use", "changed: MEMORY.md", "changed: section tooling"} <= causes
    assert any("USER.md" in cause for cause in causes) and any("SOUL.md" in cause for cause in causes)


@pytest.mark.parametrize("name", ["anthropic", "bedrock"])
def test_the_costs_add_up_from_the_reads_writes_and_uncached_tokens(example, name):
    provider = example["providers"][name]
    read_price, _ = PRICES[name]
    writes = sum(w["cost"] for w in provider["writes"])
    assert provider["cost"] == pytest.approx(provider["read"] * read_price + writes + provider["uncached"], abs=1)
    assert provider["total_tokens"] == provider["read"] + provider["written"] + provider["uncached"]
    assert provider["cached_share"] == pytest.approx(provider["read"] / provider["total_tokens"], abs=1e-5)
    assert sum(g["cost"] for g in provider["causes"]) == pytest.approx(writes, abs=1)


def test_one_memory_edit_without_gaps_is_exactly_one_write_caused_by_memory(run_cli, make_workspace, tmp_path):
    workspace = make_workspace(FILES)
    events = [{"at": 30 * i, "run": {"chat_type": "direct"}} for i in range(6)]
    events[3]["edits"] = [{"file": "MEMORY.md", "append": "- Sam moved to Porto."}]
    data = simulate(run_cli, write_trace(tmp_path, events), *INPUTS, "--workspace", workspace)
    for name, provider in data["providers"].items():
        by_memory = [w for w in provider["writes"] if "file:MEMORY.md" in w["changed"]]
        assert len(by_memory) == 1, name
        assert by_memory[0]["line"] == 4 and by_memory[0]["cause"] == CHANGED
        others = [w for w in provider["writes"] if w is not by_memory[0]]
        assert {w["cause"] for w in others} == {FIRST_USE} and {w["line"] for w in others} == {1}
    tiers = [w["tier"] for w in data["providers"]["anthropic"]["writes"]]
    assert tiers == [1, 2, 3, 3]  # the first turn writes every tier; the edit only the last
    assert "Porto" not in (workspace / "MEMORY.md").read_text(encoding="utf-8")  # the copy was edited


def test_a_gap_past_five_minutes_expires_the_five_minute_tiers_only(run_cli, make_workspace, tmp_path):
    workspace = make_workspace(FILES)
    events = [{"at": 0, "run": {"chat_type": "direct"}}, {"at": 900, "run": {"chat_type": "direct"}}]
    data = simulate(run_cli, write_trace(tmp_path, events), *INPUTS, "--workspace", workspace)
    second = [(w["tier"], w["cause"]) for w in data["providers"]["anthropic"]["writes"] if w["line"] == 2]
    assert second == [(2, EXPIRED), (3, EXPIRED)]  # tier 1 asked for an hour


def test_the_text_report_names_the_causes(run_cli, make_workspace, tmp_path):
    workspace = make_workspace(FILES)
    events = [{"at": 0}, {"at": 20, "edits": [{"file": "USER.md", "append": "- Likes tea."}]}]
    code, out, _ = run_cli(
        "cache", "simulate", "--trace", write_trace(tmp_path, events), *INPUTS, "--workspace", workspace
    )
    assert code == 0
    assert "stable part changed by a volatile fact: 0 of 2 turns" in out
    assert "x  changed: USER.md" in out and "anthropic: cost " in out
    from promptc.inputs.pricing import ANTHROPIC

    assert f"money at the prices of templates/pricing.yaml as of {ANTHROPIC.as_of} (USD" in out
    data = simulate(run_cli, write_trace(tmp_path, events), *INPUTS, "--workspace", workspace)
    anthropic = data["providers"]["anthropic"]
    assert data["prices"]["as_of"] == ANTHROPIC.as_of
    # Every turn is on Sonnet 4.5 (the base run): $3 per million base-input units.
    assert anthropic["money"] == pytest.approx(anthropic["cost"] * 3 / 1_000_000, rel=1e-4)
    assert f"(${anthropic['money']:,.4f}) of" in out


def test_a_bad_trace_is_a_located_error(run_cli, tmp_path):
    path = tmp_path / "trace.jsonl"
    path.write_text('{"at": 0}\n{"at": 5, "run": {"chanel": "x"}}\n', encoding="utf-8")
    code, out, err = run_cli("cache", "simulate", "--trace", path, *INPUTS)
    assert (code, out) == (2, "")
    assert (
        err.strip() == f"promptc: error: {path}:2:1: run facts: unknown run-fact key 'chanel' (did you mean 'channel'?)"
    )


def test_without_the_tokens_extra_the_counts_are_a_labelled_estimate(run_cli, make_workspace, tmp_path, monkeypatch):
    from promptc.emit import tokens

    monkeypatch.setattr(tokens, "count", lambda text, encoding=tokens.ENCODING_NAME: None)
    workspace = make_workspace(FILES)
    data = simulate(
        run_cli, write_trace(tmp_path, [{"at": 0, "run": {"chat_type": "direct"}}]), *INPUTS, "--workspace", workspace
    )
    assert data["token_method"].startswith("estimate: UTF-8 bytes / 4")
    _code, out, _ = run_cli("render", *INPUTS, "--workspace", workspace, "--chat-type", "direct", "--format", "json")
    prompt = json.loads(out)
    # bytes / 4 rounded up, per unit with its separator, summed; the volatile part on its own.
    expected = sum(-(-len((u_text + "\n\n").encode()) // 4) for u_text in _unit_texts(prompt))
    expected += -(-len(prompt["volatile"].encode()) // 4)
    assert data["providers"]["anthropic"]["total_tokens"] == expected


def _unit_texts(prompt):
    stable, position, texts = prompt["stable"], 0, []
    for tier in prompt["tiers"]:
        for unit in tier["units"]:
            texts.append(stable[position : position + unit["chars"]])
            position += unit["chars"] + 2
    return texts


def test_a_heartbeat_edit_with_the_reaching_tier_is_one_write_caused_by_heartbeat_md(run_cli, make_workspace, tmp_path):
    workspace = make_workspace(HEARTBEAT_FILES)
    events = [{"at": 30 * i, "run": {"chat_type": "direct"}} for i in range(5)]
    events[2]["edits"] = [{"file": "HEARTBEAT.md", "append": "- Also check the window."}]
    reach = simulate(run_cli, write_trace(tmp_path, events), *INPUTS, "--workspace", workspace, "--set", REACH_TIERS)
    plain = simulate(run_cli, write_trace(tmp_path, events), *INPUTS, "--workspace", workspace)
    writes = reach["providers"]["anthropic"]["writes"]
    assert [(w["line"], w["tier"], w["cause"], w["changed"]) for w in writes if w["line"] > 1] == [
        (3, 3, CHANGED, ["section:dynamic_context"])
    ]
    # The Dynamic Project Context is read from the cache on the turns that did not change it.
    assert reach["providers"]["anthropic"]["uncached"] < plain["providers"]["anthropic"]["uncached"]
    assert reach["providers"]["anthropic"]["read"] > plain["providers"]["anthropic"]["read"]


def test_a_session_kind_sent_uncached_writes_nothing_and_pays_the_base_price(run_cli, make_workspace, tmp_path):
    workspace = make_workspace(FILES)
    events = [
        {"at": 0, "run": {"chat_type": "direct"}},
        {"at": 30, "run": {"session": "heartbeat", "light_context": True}},
    ]
    trace = write_trace(tmp_path, events)
    skipped = simulate(
        run_cli, trace, *INPUTS, "--workspace", workspace, "--set", "prompt.cache.uncachedSessions=[heartbeat]"
    )
    cached = simulate(run_cli, trace, *INPUTS, "--workspace", workspace)
    for name in ("anthropic", "bedrock"):
        assert [w for w in skipped["providers"][name]["writes"] if w["line"] == 2] == []
        assert [w for w in cached["providers"][name]["writes"] if w["line"] == 2]
        first_turn_writes = sum(w["tokens"] for w in skipped["providers"][name]["writes"])
        # Every token sent is still counted: the heartbeat's stable part moves from written to uncached.
        assert skipped["providers"][name]["total_tokens"] == cached["providers"][name]["total_tokens"]
        assert skipped["providers"][name]["written"] == first_turn_writes < cached["providers"][name]["written"]


def _first_line_per_model():
    """Trace line of each model's first turn, read from the trace and the base run by hand."""
    first = {}
    lines = (EXAMPLES / "trace.jsonl").read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        model = json.loads(line).get("run", {}).get("model", "anthropic/claude-sonnet-4-5")
        first.setdefault(model, number)
    return first


@pytest.mark.parametrize("name", ["anthropic", "bedrock", "openai"])
def test_the_example_trace_writes_on_the_first_turn_of_each_model(example, name):
    first = _first_line_per_model()
    assert set(first) == {"anthropic/claude-sonnet-4-5", "anthropic/claude-opus-4-1", "openai/gpt-5.5"}
    written = {w["line"] for w in example["providers"][name]["writes"]}
    assert set(first.values()) <= written
    for line in first.values():
        if line > 1:  # another model had cached the same bytes already; this one has not
            assert {w["cause"] for w in example["providers"][name]["writes"] if w["line"] == line} == {FIRST_USE}


def test_a_model_switch_writes_though_the_bytes_are_the_same(run_cli, make_workspace, tmp_path):
    workspace = make_workspace(FILES)
    sonnet = {"chat_type": "direct", "model": "anthropic/claude-sonnet-4-5"}
    opus = {"chat_type": "direct", "model": "anthropic/claude-opus-4-1"}
    events = [{"at": 0, "run": sonnet}, {"at": 20, "run": opus}, {"at": 40, "run": sonnet}, {"at": 60, "run": opus}]
    data = simulate(run_cli, write_trace(tmp_path, events), *INPUTS, "--workspace", workspace)
    writes = data["providers"]["anthropic"]["writes"]
    assert {w["line"] for w in writes} == {1, 2}  # each model's first turn; later turns read their own
    assert {w["cause"] for w in writes} == {FIRST_USE}
