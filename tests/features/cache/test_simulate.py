"""The cache simulator's accounting (features/cache/simulate.py), on small traces whose costs are
worked out by hand in each test from the published rules: Anthropic writes 1.25x (5m) or 2x (1h),
reads 0.1x, keeps an entry 5 minutes (or an hour) after its last use, and caches nothing under
1,024 tokens."""

from __future__ import annotations

import pytest

from promptc.features.cache.simulate import CHANGED, EXPIRED, EXPIRED_AND_CHANGED, FIRST_USE, Turn, Unit, simulate
from promptc.inputs.pricing import ANTHROPIC, OPENAI


def unit(name: str, tokens: int, version: str = "v1") -> Unit:
    return Unit(name, f"{name}@{version}", tokens)


def turn(
    at: float,
    units: list[Unit],
    ends: list[int],
    ttls: list[str] | None = None,
    volatile: int = 100,
    variant: str = "main",
) -> Turn:
    return Turn(at, variant, tuple(units), tuple(ends), tuple(ttls or ["5m"] * len(ends)), volatile)


ONE_TIER = [unit("section:all", 2000)]


def test_a_hit_costs_a_tenth_and_refreshes_the_lifetime():
    result = simulate([turn(0, ONE_TIER, [1]), turn(60, ONE_TIER, [1]), turn(350, ONE_TIER, [1])], ANTHROPIC)
    first, hit, refreshed = result.turns
    assert (first.written, first.cost) == (2000, 2000 * 1.25 + 100)
    assert (hit.read, hit.cost) == (2000, 2000 * 0.1 + 100)
    # 350 s is past the first write's 300 s, but the hit at 60 s kept the entry until 360 s.
    assert (refreshed.read, refreshed.written) == (2000, 0)


def test_an_entry_unused_for_five_minutes_is_written_again_and_the_write_says_expired():
    result = simulate([turn(0, ONE_TIER, [1]), turn(301, ONE_TIER, [1])], ANTHROPIC)
    again = result.turns[1]
    assert (again.read, again.written) == (0, 2000)
    assert [(w.tier, w.tokens, w.cause) for w in again.writes] == [(1, 2000, EXPIRED)]


def test_a_change_in_the_last_tier_reads_the_others_and_names_the_file():
    before = [unit("section:all", 1500), unit("file:USER.md", 300), unit("file:MEMORY.md", 500)]
    after = before[:2] + [unit("file:MEMORY.md", 520, "v2")]
    result = simulate([turn(0, before, [1, 2, 3]), turn(30, after, [1, 2, 3])], ANTHROPIC)
    first, second = result.turns
    assert [w.tokens for w in first.writes] == [1500, 300, 500]
    assert [w.cause for w in first.writes] == [FIRST_USE] * 3
    assert (second.read, second.written) == (1800, 520)
    assert second.cost == pytest.approx(1800 * 0.1 + 520 * 1.25 + 100)
    assert [(w.tier, w.cause, w.changed) for w in second.writes] == [(3, CHANGED, ("file:MEMORY.md",))]


def test_a_change_after_the_entry_ran_out_is_expired_and_changed():
    before = [unit("section:all", 1500), unit("file:MEMORY.md", 500)]
    after = [before[0], unit("file:MEMORY.md", 500, "v2")]
    result = simulate([turn(0, before, [1, 2]), turn(1000, after, [1, 2])], ANTHROPIC)
    causes = [(w.tier, w.cause) for w in result.turns[1].writes]
    assert causes == [(1, EXPIRED), (2, EXPIRED_AND_CHANGED)]


def test_a_one_hour_first_tier_survives_a_gap_that_expires_the_five_minute_tier():
    units = [unit("section:all", 1500), unit("file:MEMORY.md", 500)]
    result = simulate([turn(0, units, [1, 2], ["1h", "5m"]), turn(1000, units, [1, 2], ["1h", "5m"])], ANTHROPIC)
    first, later = result.turns
    assert first.cost == pytest.approx(1500 * 2.0 + 500 * 1.25 + 100)
    assert (later.read, later.written) == (1500, 500)
    assert later.cost == pytest.approx(1500 * 0.1 + 500 * 1.25 + 100)
    assert [w.cause for w in later.writes] == [EXPIRED]


def test_a_prefix_under_the_minimum_is_not_cached_until_a_later_tier_covers_it():
    units = [unit("section:small", 500), unit("file:AGENTS.md", 800)]
    first = simulate([turn(0, units, [1, 2])], ANTHROPIC).turns[0]
    assert [(w.tier, w.tokens) for w in first.writes] == [(2, 1300)]
    alone = simulate([turn(0, units[:1], [1])], ANTHROPIC).turns[0]
    assert (alone.written, alone.uncached) == (0, 600)


def test_variants_are_compared_with_their_own_previous_turn():
    main = [unit("section:full", 2000)]
    cron = [unit("section:minimal", 1200)]
    trace = [
        turn(0, main, [1]),
        turn(10, cron, [1], variant="cron"),
        turn(20, main, [1]),
        turn(30, cron, [1], variant="cron"),
    ]
    result = simulate(trace, ANTHROPIC)
    assert [w.cause for w in result.writes] == [FIRST_USE, FIRST_USE]
    assert [t.read for t in result.turns] == [0, 0, 2000, 1200]


def test_automatic_caching_serves_whole_increments_past_the_minimum_with_no_write_premium():
    units = [unit("section:all", 1100), unit("file:MEMORY.md", 200)]
    result = simulate([turn(0, units, [2], volatile=50), turn(10, units, [2], volatile=50)], OPENAI)
    first, second = result.turns
    assert (first.read, first.written, first.cost) == (0, 1300, 1300 + 50)
    # 1,300 matched tokens: 1,024 plus two whole steps of 128 are served; 20 go at the base price.
    assert (second.read, second.written, second.uncached) == (1280, 0, 70)
    assert second.cost == pytest.approx(1280 * 0.1 + 70)
    assert second.writes == ()


def test_automatic_caching_matches_the_unchanged_units_before_an_edit():
    before = [unit("section:all", 1100), unit("file:MEMORY.md", 300)]
    after = [before[0], unit("file:MEMORY.md", 300, "v2")]
    second = simulate([turn(0, before, [1, 2]), turn(10, after, [1, 2])], OPENAI).turns[1]
    assert (second.read, second.written) == (1024, 300)
    assert [(w.tier, w.cause, w.changed) for w in second.writes] == [(2, CHANGED, ("file:MEMORY.md",))]


def test_totals_and_cached_share_add_up():
    result = simulate([turn(0, ONE_TIER, [1]), turn(10, ONE_TIER, [1])], ANTHROPIC)
    assert result.total_tokens == 2 * 2100
    assert result.cached_share == pytest.approx(2000 / 4200)
    assert result.cost == pytest.approx(2000 * 1.25 + 100 + 2000 * 0.1 + 100)


# --------------------------------------------------------------------------- per model: identity, minimum, money


def test_a_cache_is_per_model_so_the_first_turn_on_each_model_writes():
    opus = "anthropic/claude-opus-4-1"
    trace = [
        turn(0, ONE_TIER, [1]),
        Turn(20, "main", tuple(ONE_TIER), (1,), ("5m",), 100, opus),
        turn(40, ONE_TIER, [1]),
        Turn(60, "main", tuple(ONE_TIER), (1,), ("5m",), 100, opus),
    ]
    result = simulate(trace, ANTHROPIC)
    assert [t.written for t in result.turns] == [2000, 2000, 0, 0]
    assert [w.cause for w in result.writes] == [FIRST_USE, FIRST_USE]


def test_money_is_the_units_at_the_turns_model_input_price():
    # Opus 4.1: $15 per million input tokens; Sonnet 4.5 (and an unknown model): $3.
    one = simulate([Turn(0, "main", tuple(ONE_TIER), (1,), ("5m",), 100, "anthropic/claude-opus-4-1")], ANTHROPIC)
    assert one.cost == pytest.approx(2000 * 1.25 + 100)
    assert one.money == pytest.approx((2000 * 1.25 + 100) * 15 / 1_000_000)
    assert one.money_without_cache == pytest.approx(2100 * 15 / 1_000_000)
    plain = simulate([turn(0, ONE_TIER, [1])], ANTHROPIC)
    assert plain.money == pytest.approx((2000 * 1.25 + 100) * 3 / 1_000_000)
    assert plain.writes[0].money == pytest.approx(2000 * 1.25 * 3 / 1_000_000)


def test_a_model_with_a_larger_minimum_caches_nothing_under_it():
    # Haiku 4.5 caches nothing under 4,096 tokens: 2,000 are sent at the base price.
    haiku = Turn(0, "main", tuple(ONE_TIER), (1,), ("5m",), 100, "anthropic/claude-haiku-4-5")
    first = simulate([haiku], ANTHROPIC).turns[0]
    assert (first.written, first.uncached, first.cost) == (0, 2100, 2100)


# --------------------------------------------------------------------------- automatic caching, token by token


def tokens_of(*runs):
    """A request's sequence: each (token value, count) run, four bytes a token."""
    return b"".join(value.to_bytes(4, "little") * count for value, count in runs)


def test_automatic_caching_matches_token_by_token_past_a_changed_unit_start():
    before = [unit("section:all", 1100), unit("file:MEMORY.md", 300)]
    after = [before[0], unit("file:MEMORY.md", 300, "v2")]
    first = Turn(0, "main", tuple(before), (1, 2), ("5m", "5m"), 50, "", tokens_of((1, 1400), (9, 50)))
    # The edit changes MEMORY.md from its 101st token on: 1,200 tokens agree.
    second = Turn(10, "main", tuple(after), (1, 2), ("5m", "5m"), 50, "", tokens_of((1, 1200), (2, 200), (9, 50)))
    cost = simulate([first, second], OPENAI).turns[1]
    # 1,200 matched: 1,024 plus one whole step of 128 served; 200 stable tokens missed; the rest uncached.
    assert (cost.read, cost.written, cost.uncached) == (1152, 200, 98)
    assert cost.cost == pytest.approx(1152 * 0.1 + 200 + 98)
    assert [(w.tier, w.cause) for w in cost.writes] == [(2, CHANGED)]


def test_automatic_caching_continues_into_the_volatile_part_as_far_as_it_agrees():
    units = [unit("section:all", 1100), unit("file:MEMORY.md", 300)]
    first = Turn(0, "main", tuple(units), (2,), ("5m",), 50, "", tokens_of((1, 1400), (9, 50)))
    second = Turn(10, "main", tuple(units), (2,), ("5m",), 50, "", tokens_of((1, 1400), (9, 30), (8, 20)))
    cost = simulate([first, second], OPENAI).turns[1]
    # 1,430 tokens agree: 1,024 plus three whole steps of 128 = 1,408 served.
    assert (cost.read, cost.written, cost.uncached) == (1408, 0, 42)


def test_extended_retention_keeps_an_openai_entry_for_a_day():
    from promptc.inputs.pricing import with_retention

    units = [unit("section:all", 2000)]
    sequence = tokens_of((1, 2000), (9, 100))
    turns = [Turn(at, "main", tuple(units), (1,), ("5m",), 100, "", sequence) for at in (0, 3600, 3600 * 20)]
    in_memory = simulate(turns, OPENAI)
    extended = simulate(turns, with_retention(OPENAI, "24h"))
    assert [t.read for t in in_memory.turns] == [0, 0, 0]
    assert [t.read for t in extended.turns] == [0, 2048, 2048]  # 2,100 agree: 1,024 + 8 x 128
