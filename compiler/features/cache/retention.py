"""How long to keep a cache: the same trace priced with every breakpoint at 5 minutes, at an hour,
with a keep-warm ping, and with OpenAI's in-memory and 24-hour retention.

A keep-warm ping re-sends the last request's prompt every few minutes while the agent is idle,
for at most a while after its last turn, so a 5-minute entry never runs out in that window; each
ping is a request of its own, priced like any turn (its cached prefix read, nothing volatile
sent; the one output token it asks for is left out).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from ...inputs.pricing import RULE_SETS, Rules, with_retention
from .replay import Replay
from .simulate import Result, Turn, simulate

KEEP_WARM_MINUTES = 4
"""Default ping interval: under the 5-minute lifetime, so each ping finds the entry alive."""
KEEP_WARM_WINDOW_MINUTES = 60
"""Pings stop this long after the last real turn (an agent idle longer is let go cold)."""


@dataclass(frozen=True, slots=True)
class Option:
    """One way of keeping the cache, priced on the trace."""

    name: str
    """What it is, as the report says it."""
    provider: str
    """The rule set it is priced under."""
    result: Result
    """The whole trace (pings included) under it."""
    pings: int = 0
    """Keep-warm requests added."""
    ping_money: float = 0.0
    """What the pings cost, in money (part of the result's)."""
    ping_tokens: int = 0
    """Prompt tokens the pings sent."""

    @property
    def cost_ratio(self) -> float:
        """The cost against sending the trace's own turns uncached (pings are not turns of it)."""
        real = self.result.total_tokens - self.ping_tokens
        return self.result.cost / real if real else 0.0


def compare(
    replay: Replay, every: int = KEEP_WARM_MINUTES, window: int = KEEP_WARM_WINDOW_MINUTES
) -> tuple[Option, ...]:
    """Every option on the same trace, explicit caches first."""
    anthropic, openai = RULE_SETS["anthropic"], RULE_SETS["openai"]
    turns = replay.turns(anthropic)
    options = [
        Option("every breakpoint 5m", anthropic.name, simulate(_with_ttl(turns, "5m"), anthropic)),
        Option("every breakpoint 1h", anthropic.name, simulate(_with_ttl(turns, "1h"), anthropic)),
        _keep_warm(_with_ttl(turns, "5m"), anthropic, every, window),
    ]
    automatic = replay.turns(openai)
    for retention in ("in_memory", "24h"):
        rules = with_retention(openai, retention)
        options.append(Option(f"retention {retention}", openai.name, simulate(automatic, rules)))
    return tuple(options)


def _with_ttl(turns: Sequence[Turn], ttl: str) -> tuple[Turn, ...]:
    return tuple(dataclasses.replace(t, ttls=tuple(ttl for _ in t.ttls)) for t in turns)


def _keep_warm(turns: Sequence[Turn], rules: Rules, every: int, window: int) -> Option:
    """The trace with a ping every `every` minutes in each idle gap, up to `window` minutes after a turn."""
    timeline, pinged = pings(turns, every * 60, window * 60)
    result = simulate(timeline, rules)
    sent = [cost for cost, is_ping in zip(result.turns, pinged) if is_ping]
    ping_tokens = sum(cost.read + cost.written + cost.uncached for cost in sent)
    name = f"5m, keep-warm ping every {every} min (up to {window} min idle)"
    return Option(name, rules.name, result, len(sent), sum(cost.money for cost in sent), ping_tokens)


def pings(turns: Sequence[Turn], every: float, window: float) -> tuple[tuple[Turn, ...], tuple[bool, ...]]:
    """The turns with pings between them (copies of the turn before, nothing volatile), and which are pings."""
    timeline: list[Turn] = []
    flags: list[bool] = []
    for index, turn in enumerate(turns):
        timeline.append(turn)
        flags.append(False)
        following = turns[index + 1].at if index + 1 < len(turns) else turn.at
        at = turn.at + every
        while at < following and at <= turn.at + window:
            timeline.append(dataclasses.replace(turn, at=at, volatile_tokens=0))
            flags.append(True)
            at += every
    return tuple(timeline), tuple(flags)
