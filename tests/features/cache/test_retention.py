"""The retention comparison (features/cache/retention.py): keep-warm pings placed in idle gaps and
priced like turns, costs worked out by hand from Anthropic's rules (write 1.25x, read 0.1x, an
entry kept 5 minutes after its last use)."""

from __future__ import annotations

import json

import pytest

from promptc.features.cache.retention import pings
from promptc.features.cache.simulate import Turn, Unit, simulate
from promptc.inputs.pricing import ANTHROPIC

from support.paths import EXAMPLES

UNITS = (Unit("section:all", "v1", 2000),)


def turn(at: float) -> Turn:
    return Turn(at, "main", UNITS, (1,), ("5m",), 100)


def test_pings_fill_an_idle_gap_every_interval_and_stop_after_the_window():
    timeline, flags = pings([turn(0), turn(600), turn(600 + 7200)], 240, 3600)
    ping_times = [t.at for t, is_ping in zip(timeline, flags) if is_ping]
    assert ping_times[:2] == [240, 480]  # the ten-minute gap
    assert ping_times[2:] == [600 + 240 * k for k in range(1, 16)]  # up to an hour after the turn at 600
    assert all(t.volatile_tokens == 0 for t, is_ping in zip(timeline, flags) if is_ping)


def test_a_keep_warm_ping_turns_an_expired_write_into_reads():
    cold = simulate([turn(0), turn(600)], ANTHROPIC)
    assert cold.cost == pytest.approx(2 * (2000 * 1.25 + 100))
    timeline, _ = pings([turn(0), turn(600)], 240, 3600)
    warm = simulate(timeline, ANTHROPIC)
    # write + volatile, two pings that read, then a turn that reads.
    assert warm.cost == pytest.approx((2000 * 1.25 + 100) + 2000 * 0.1 * 2 + (2000 * 0.1 + 100))


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
        "retention in_memory",
        "retention 24h",
    ]
    warm = options["5m, keep-warm ping every 3 min (up to 60 min idle)"]
    assert warm["pings"] > 0 and 0 < warm["ping_money"] < warm["money"]
    # An hour-long lifetime cannot cost more than five minutes on this trace's pace, nor a day of
    # OpenAI retention more than minutes of it.
    assert options["every breakpoint 1h"]["cost"] < options["every breakpoint 5m"]["cost"]
    assert options["retention 24h"]["cost"] < options["retention in_memory"]["cost"]
    code, _, err = run_cli(*trace, "--keep-warm", "0")
    assert code == 2 and "--keep-warm: expected whole minutes from 1 to 59" in err
