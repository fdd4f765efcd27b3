"""How long to keep a cache: the same trace priced with every breakpoint at 5 minutes, at an hour,
with keep-warm pings on either, and with OpenAI's in-memory and 24-hour retention.

A keep-warm ping re-sends the cached part of a model's last prompt while that model is idle, for
at most a while after its last turn, so the entry is read (and renewed) instead of running out;
each ping is a request of its own, priced like any turn (keepwarm.py). The prompt's own
`prompt.cache.keepWarm` is left out here: these are the alternatives to it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from ...inputs.pricing import RULE_SETS, Rules, with_retention
from ...model.config import KeepWarm, seconds
from .keepwarm import SUGGESTED, with_pings
from .replay import Replay
from .simulate import Result, Turn, simulate


@dataclass(frozen=True, slots=True)
class Option:
    """One way of keeping the cache, priced on the trace."""

    name: str
    """What it is, as the report says it."""
    provider: str
    """The rule set it is priced under."""
    result: Result
    """The whole trace (pings included) under it."""

    @property
    def pings(self) -> int:
        """Keep-warm requests added."""
        return len(self.result.pings)

    @property
    def cost_ratio(self) -> float:
        """The cost against sending the trace's own turns uncached (pings are not turns of it)."""
        real = self.result.total_tokens
        return self.result.cost / real if real else 0.0


def compare(replay: Replay, every: int | None = None) -> tuple[Option, ...]:
    """Every option on the same trace, explicit caches first; `every` (minutes) replaces the
    ping interval of the lifetime it can keep alive."""
    anthropic, openai = RULE_SETS["anthropic"], RULE_SETS["openai"]
    turns = replay.turns(anthropic, pings=False)
    options = [
        Option("every breakpoint 5m", anthropic.name, simulate(_with_ttl(turns, "5m"), anthropic)),
        Option("every breakpoint 1h", anthropic.name, simulate(_with_ttl(turns, "1h"), anthropic)),
    ]
    kept = None if every is None else "5m" if every * 60 < seconds("5m") else "1h"
    for ttl, schedule in SUGGESTED.items():
        if ttl == kept and every is not None:
            schedule = dataclasses.replace(schedule, every=every * 60)
        options.append(_keep_warm(_with_ttl(turns, ttl), anthropic, schedule, ttl))
    automatic = replay.turns(openai)
    for retention in ("in_memory", "24h"):
        rules = with_retention(openai, retention)
        options.append(Option(f"retention {retention}", openai.name, simulate(automatic, rules)))
    return tuple(options)


def _with_ttl(turns: Sequence[Turn], ttl: str) -> tuple[Turn, ...]:
    return tuple(dataclasses.replace(t, ttls=tuple(ttl for _ in t.ttls)) for t in turns)


def _keep_warm(turns: Sequence[Turn], rules: Rules, schedule: KeepWarm, ttl: str) -> Option:
    """The trace with `schedule`'s pings after every turn that carries breakpoints."""
    result = simulate(with_pings(turns, [schedule] * len(turns)), rules)
    name = f"{ttl}, keep-warm ping every {schedule.every // 60} min (up to {schedule.window // 60} min idle)"
    return Option(name, rules.name, result)
