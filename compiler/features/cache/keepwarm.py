"""Keep-warm pings on a trace: after each turn whose prompt asks for them
(`prompt.cache.keepWarm`), the requests the runtime sends while that model and prompt variant are
idle, each the cached part of the turn re-sent with a one-word message and a one-token reply.

A ping comes every `every` seconds after the turn until the next turn on the same model and
variant, or until the window closes; pings after a trace's last turn on a model are sent too
(the runtime cannot know none follows).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from ...model.config import KeepWarm
from .simulate import Turn

PING_TOKENS = 8
"""What a ping sends besides the cached part: the one-word user message and its framing."""
SUGGESTED: dict[str, KeepWarm] = {"5m": KeepWarm(4 * 60, 60 * 60), "1h": KeepWarm(55 * 60, 120 * 60)}
"""Per breakpoint lifetime, the pings worth pricing first: just under the lifetime, so each finds
the entry alive, for up to an hour (5m) or two (1h) idle. The retention comparison prices both;
the hour's is the one examples/cache-long-lived.yaml asks for and a seed of `cache optimize`."""


def with_pings(turns: Sequence[Turn], schedules: Sequence[KeepWarm | None]) -> tuple[Turn, ...]:
    """`turns` with the pings each one's schedule (None: none) sends, in time order; a ping at
    the same moment as a turn goes after it."""
    nexts = _next_on_same_cache(turns)
    timeline = [(turn.at, False, index, turn) for index, turn in enumerate(turns)]
    for index, (turn, schedule) in enumerate(zip(turns, schedules)):
        if schedule is None or not turn.tier_ends:
            continue
        cached = turn.units[: turn.tier_ends[-1]]
        ping = dataclasses.replace(turn, units=cached, volatile_tokens=PING_TOKENS, sequence=b"", ping=True)
        timeline += [
            (at, True, index, dataclasses.replace(ping, at=at)) for at in schedule.times(turn.at, nexts[index])
        ]
    timeline.sort(key=lambda entry: entry[:3])
    return tuple(entry[3] for entry in timeline)


def _next_on_same_cache(turns: Sequence[Turn]) -> list[float]:
    """For each turn, when the next turn on its model and variant comes (infinity: none does)."""
    nexts = [math.inf] * len(turns)
    seen: dict[tuple[str, str], float] = {}
    for index in range(len(turns) - 1, -1, -1):
        key = (turns[index].model, turns[index].variant)
        nexts[index] = seen.get(key, math.inf)
        seen[key] = turns[index].at
    return nexts
