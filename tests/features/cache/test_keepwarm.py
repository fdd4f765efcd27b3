"""Keep-warm pings (features/cache/keepwarm.py, `prompt.cache.keepWarm`) and the retention
comparison (features/cache/retention.py): when pings are sent, on which cache, and what they
cost, worked out by hand from the price table's rows (claude-opus-4-1: input $15, 1h write $30,
read $1.50, output $75 per million; claude-sonnet-4-5: $3, $6, $0.30, $15)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptc.features.cache.keepwarm import PING_TOKENS, with_pings
from promptc.features.cache.simulate import Turn, Unit, simulate
from promptc.inputs.pricing import ANTHROPIC
from promptc.model.config import KeepWarm

from support.paths import EXAMPLES

UNITS = (Unit("section:all", "v1", 2000),)
OPUS, SONNET = "anthropic/claude-opus-4-1", "anthropic/claude-sonnet-4-5"
HOURLY = KeepWarm(55 * 60, 120 * 60)


def turn(at: float, model: str = OPUS, variant: str = "main", ttl: str = "1h", ends: tuple[int, ...] = (1,)) -> Turn:
    return Turn(at, variant, UNITS, ends, (ttl,) * len(ends), 100, model)


def test_pings_come_every_interval_until_the_next_turn_or_the_window():
    warm = KeepWarm(240, 3600)
    assert warm.times(0, 600) == (240, 480)  # a ten-minute gap: two pings, none at the turn itself
    assert warm.times(600, math.inf) == tuple(600 + 240 * k for k in range(1, 16))  # 15 x 4 min = the hour
    assert warm.times(0, 240) == ()  # the next turn comes when the ping would


@given(
    every=st.integers(1, 7200),
    window=st.integers(1, 86400),
    after=st.integers(0, 10**6),
    gap=st.one_of(st.integers(0, 10**5), st.just(math.inf)),
)
def test_the_pings_due_are_every_interval_inside_both_the_gap_and_the_window(every, window, after, gap):
    times = KeepWarm(every, window).times(after, after + gap)
    assert list(times) == [after + every * n for n in range(1, len(times) + 1)]
    assert all(at < after + gap and at - after <= window for at in times)
    following = after + every * (len(times) + 1)  # the next one would fall outside the gap or the window
    assert following >= after + gap or following - after > window


def test_each_model_and_variant_is_kept_warm_from_its_own_last_turn():
    turns = [turn(0, SONNET), turn(100, OPUS), turn(4000, SONNET), turn(4100, OPUS, variant="group")]
    timeline = with_pings(turns, [HOURLY] * len(turns))
    got = [(t.at, t.model, t.variant, t.ping) for t in timeline]
    assert got == [
        (0, SONNET, "main", False),
        (100, OPUS, "main", False),
        (3300, SONNET, "main", True),  # 55 min after sonnet's turn; its next turn comes at 4000
        (3400, OPUS, "main", True),  # opus/main never comes back: pings for the whole 2 h window
        (4000, SONNET, "main", False),
        (4100, OPUS, "group", False),
        (6700, OPUS, "main", True),
        (7300, SONNET, "main", True),
        (7400, OPUS, "group", True),
        (10600, SONNET, "main", True),
        (10700, OPUS, "group", True),
    ]


def test_a_ping_sends_the_cached_part_only_and_a_turn_without_breakpoints_gets_none():
    cached = Turn(0, "main", (*UNITS, Unit("section:after", "v1", 50)), (1,), ("1h",), 100, OPUS)
    uncached = Turn(10, "cron", UNITS, (), (), 100, SONNET)
    timeline = with_pings([cached, uncached], [HOURLY, HOURLY])
    pings = [t for t in timeline if t.ping]
    assert [t.at for t in pings] == [3300, 6600]
    assert all(t.units == UNITS and t.volatile_tokens == PING_TOKENS for t in pings)


def test_a_ping_turns_a_sparse_models_rewrite_into_reads():
    cold = simulate([turn(0), turn(4000)], ANTHROPIC)
    # Twice: 2,000 tokens written at an hour's 2x, the volatile 100 at 1x.
    assert cold.cost == pytest.approx(2 * (2000 * 2 + 100))
    warm = simulate(with_pings([turn(0), turn(4000)], [HOURLY, None]), ANTHROPIC)
    # The write; one ping at 3300 s reading 2,000 at 0.1x, its 8-token message at 1x and its
    # one-token reply at the output price (5x input); the turn at 4000 s reads.
    ping = 2000 * 0.1 + PING_TOKENS + 5
    assert warm.cost == pytest.approx((2000 * 2 + 100) + ping + (2000 * 0.1 + 100))
    assert len(warm.turns) == 2 and len(warm.pings) == 1
    assert warm.ping_money == pytest.approx(ping * 15 / 1e6)
    assert warm.money == pytest.approx(warm.cost * 15 / 1e6)
    # The no-cache baseline is the trace's own turns: a ping is not one.
    assert warm.total_tokens == cold.total_tokens == 2 * 2100
    assert warm.money_without_cache == pytest.approx(2 * 2100 * 15 / 1e6)


def test_a_ping_on_one_model_does_not_keep_another_models_entry():
    # Sonnet is pinged; opus's turn 66 minutes later still finds its own entry gone.
    turns = [turn(0, OPUS), turn(10, SONNET), turn(4000, OPUS)]
    timeline = with_pings(turns, [None, HOURLY, None])
    result = simulate(timeline, ANTHROPIC)
    assert [w.cause for w in result.writes] == ["first use", "first use", "expired"]
    assert [w.turn for w in result.writes] == [0, 1, 2]  # pings do not shift the trace's turn numbers


def test_cache_simulate_counts_the_configs_pings(run_cli, write_yaml, tmp_path):
    layer = write_yaml("warm.yaml", "prompt:\n  cache:\n    keepWarm:\n      every: 4m\n      window: 1h\n")
    inputs = ("--config", EXAMPLES / "config.yaml", "--config", layer, "--run", EXAMPLES / "run.yaml")
    trace = ("cache", "simulate", "--trace", EXAMPLES / "trace.jsonl", *inputs, "--format", "json")
    code, out, err = run_cli(*trace)
    assert code == 0, err
    anthropic = json.loads(out)["providers"]["anthropic"]
    assert anthropic["pings"] > 0 and 0 < anthropic["ping_money"] < anthropic["money"]
    assert json.loads(out)["providers"]["openai"]["pings"] == 0  # OpenAI caches without breakpoints
    code, plain, _ = run_cli(*trace[:-2], "--html", tmp_path / "page.html")
    assert f"keep-warm pings (prompt.cache.keepWarm): {anthropic['pings']}, in the figures above: " in plain
    assert 0 < anthropic["ping_read"] < anthropic["read"]
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert f'<b data-total="anthropic-pings">{anthropic["pings"]}</b>' in page


def test_cache_simulate_prints_the_retention_comparison(run_cli):
    inputs = ("--config", EXAMPLES / "config.yaml", "--run", EXAMPLES / "run.yaml")
    trace = ("cache", "simulate", "--trace", EXAMPLES / "trace.jsonl", *inputs)
    code, out, err = run_cli(*trace, "--format", "json", "--keep-warm", "3")
    assert code == 0, err
    options = {o["name"]: o for o in json.loads(out)["retention"]}
    assert list(options) == [
        "every breakpoint 5m",
        "every breakpoint 1h",
        "5m, keep-warm ping every 3 min (up to 60 min idle)",
        "1h, keep-warm ping every 55 min (up to 120 min idle)",
        "retention in_memory",
        "retention 24h",
    ]
    for name in (
        "5m, keep-warm ping every 3 min (up to 60 min idle)",
        "1h, keep-warm ping every 55 min (up to 120 min idle)",
    ):
        warm = options[name]
        assert warm["pings"] > 0 and 0 < warm["ping_money"] < warm["money"]
    # An hour-long lifetime cannot cost more than five minutes on this trace's pace, nor a day of
    # OpenAI retention more than minutes of it; pings that save rewrites make an hour cheaper still.
    assert options["every breakpoint 1h"]["cost"] < options["every breakpoint 5m"]["cost"]
    assert (
        options["1h, keep-warm ping every 55 min (up to 120 min idle)"]["money"]
        < options["every breakpoint 1h"]["money"]
    )
    assert options["retention 24h"]["cost"] < options["retention in_memory"]["cost"]
    code, out, _ = run_cli(*trace, "--format", "json", "--keep-warm", "50")
    names = [o["name"] for o in json.loads(out)["retention"]]
    assert "1h, keep-warm ping every 50 min (up to 120 min idle)" in names
    assert "5m, keep-warm ping every 4 min (up to 60 min idle)" in names
    code, _, err = run_cli(*trace, "--keep-warm", "0")
    assert code == 2 and "--keep-warm: expected whole minutes from 1 to 59" in err
