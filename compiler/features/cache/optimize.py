"""`promptc cache optimize`: the cache layout that costs least on a session trace.

The trace is compiled once with the last tier reaching the Dynamic Project Context (so every unit
the prompt can cache is measured); each layout promptc can express is then priced from those
units without compiling again: which tier each workspace file goes in (at most the provider's
breakpoints, at most three tiers), how many leading tiers ask for an hour, whether the last tier
reaches the Dynamic Project Context, which session kinds go without a breakpoint, and which
keep-warm pings (if any) the runtime sends while a model is idle, priced like turns. Files are
ordered by tier as the compiler orders them, and a tier too short for its model's cache is
merged into the next, as the payload does.

The search is a coordinate descent from fixed seeds (the current layout, the one the README
recommends for long-lived agents, a single tier), one dimension at a time in a fixed order, so
the same trace gives the same answer. The best layout found, the current one and OpenClaw's
default (one 5-minute breakpoint at the boundary) are then each replayed through the compiler,
and the figures printed are those replays'.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ... import tiers as cache_tiers
from ...inputs.pricing import Rules
from ...model.config import MAX_CACHE_TIERS, CacheConfig, KeepWarm, duration
from ...model.request import Request
from ...model.units import DYNAMIC_SECTION, DYNAMIC_UNIT, FILE_PREFIX, HEAD_SUFFIX, SECTIONS
from ...model.workspace import BOOTSTRAP_FILE_NAMES
from ...warm.sources import KeptSources
from .keepwarm import SUGGESTED, with_pings
from .replay import Compiled, Replay, replay
from .simulate import Result, Turn, simulate
from .trace import Event

DEFAULT_BUDGET = 400
"""Layouts priced at most (each costs one pass of the simulator over the trace)."""
TURNS = 1000
"""Costs are shown per this many turns."""
HOUR, MINUTES = "1h", "5m"
KEEP_WARM_CHOICES = tuple(
    KeepWarm(every * 60, window * 60) for every, window in ((4, 30), (4, 60), (55, 60), (55, 120), (55, 180))
)
"""The keep-warm pings the search tries (interval, window in minutes): just under a 5-minute or an
hour's lifetime, for a short or a longer idle spell."""
LOAD_ORDER = (*BOOTSTRAP_FILE_NAMES, "memory.md")
"""The order the workspace files are read in (within a tier, the prompt keeps it)."""


@dataclass(frozen=True, slots=True)
class Layout:
    """One cache layout promptc can express."""

    files: tuple[tuple[str, int], ...]
    """Each workspace file of the trace with its tier (0-based; the sections are in tier 0)."""
    hours: int
    """How many leading tiers ask for an hour (the rest five minutes)."""
    reach: bool
    """Whether the last tier reaches the Dynamic Project Context."""
    uncached: tuple[str, ...]
    """Session kinds sent with no breakpoint."""
    heads: tuple[str, ...] = ()
    """Files whose kept head (when the budget cuts them) sits one tier before the file."""
    keep_warm: KeepWarm | None = None
    """The keep-warm pings sent while a model is idle (None: none)."""

    @property
    def tier_names(self) -> tuple[tuple[str, ...], ...]:
        """`prompt.cache.tiers`: the used tiers in order, empty ones dropped."""
        used = sorted({0, *(tier for _, tier in self.files)})
        tiers: list[list[str]] = [[SECTIONS] if index == 0 else [] for index in used]
        for name, tier in self.files:
            tiers[used.index(tier)].append(name)
        for name, tier in self.files:
            if name in self.heads and used.index(tier) > 0:
                tiers[used.index(tier) - 1].append(name + HEAD_SUFFIX)
        if self.reach:
            tiers[-1].append(DYNAMIC_SECTION)
        return tuple(tuple(tier) for tier in tiers)

    @property
    def ttl(self) -> tuple[str, ...]:
        count = len(self.tier_names)
        return tuple(HOUR if index < self.hours else MINUTES for index in range(count))

    @property
    def cache(self) -> CacheConfig:
        return CacheConfig(
            tiers=self.tier_names, ttl=self.ttl, uncached_sessions=self.uncached, keep_warm=self.keep_warm
        )

    @property
    def valid(self) -> bool:
        """Whether the config would accept it: a ping comes before the shortest lifetime runs out."""
        return self.cache.pings_in_time

    def overrides(self) -> tuple[str, ...]:
        """The layout as `--set` overrides."""
        return (
            f"prompt.cache.tiers={_flow(self.tier_names)}",
            f"prompt.cache.ttl={_flow(self.ttl)}",
            f"prompt.cache.uncachedSessions={_flow(self.uncached)}",
            NO_KEEP_WARM if self.keep_warm is None else f"prompt.cache.keepWarm={_keep_warm_flow(self.keep_warm)}",
        )

    def snippet(self) -> list[str]:
        """The layout as a config layer's lines."""
        lines = ["prompt:", "  cache:", "    tiers:"]
        lines += [f"      - {_flow(tier)}" for tier in self.tier_names]
        lines += [f"    ttl: {_flow(self.ttl)}", f"    uncachedSessions: {_flow(self.uncached)}"]
        if self.keep_warm is not None:
            lines += ["    keepWarm:", f"      every: {duration(self.keep_warm.every)}"]
            lines += [f"      window: {duration(self.keep_warm.window)}"]
        return lines


def _keep_warm_flow(warm: KeepWarm) -> str:
    return f"{{every: {duration(warm.every)}, window: {duration(warm.window)}}}"


NO_KEEP_WARM = "prompt.cache.keepWarm={every: null, window: null}"
"""The override that turns keep-warm pings off (a 5-minute layout cannot keep an hour's pings)."""
OPENCLAW_OVERRIDES = ("prompt.cache.tiers=[]", "prompt.cache.ttl=5m", "prompt.cache.uncachedSessions=[]", NO_KEEP_WARM)
"""OpenClaw's default layout in promptc's terms: one breakpoint at the boundary, five minutes."""


def _flow(items: Sequence[Any]) -> str:
    return "[" + ", ".join(_flow(i) if isinstance(i, tuple) else str(i) for i in items) + "]"


@dataclass(frozen=True, slots=True)
class Priced:
    """A layout's cost on the trace, from a replay through the compiler."""

    label: str
    """Which layout (`best`, `current`, `OpenClaw's default`)."""
    result: Result
    """The trace under the provider's rules."""

    def per_turns(self, turns: int) -> tuple[float, float]:
        """(units, money) per TURNS turns."""
        scale = TURNS / turns if turns else 0.0
        return self.result.cost * scale, self.result.money * scale


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the search found."""

    best: Layout
    """The cheapest layout found."""
    priced: tuple[Priced, ...]
    """The best, current and OpenClaw's default layouts, each replayed."""
    tried: int
    """How many layouts were priced in the search."""
    turns: int
    """Turns in the trace."""
    rules: Rules
    """The provider rules used."""


def optimize(request: Request, events: Sequence[Event], trace: Path, rules: Rules, budget: int) -> Outcome:
    """The cheapest layout on the trace under `rules`, searching at most `budget` layouts."""
    cache = KeptSources(request.fixed()).config(request.run.agent).cache
    probe = replay(_probing(request, cache), events, trace, check_leaks=False)
    model = _Model(probe, rules)
    seeds = _seeds(model, cache)
    found, tried = descend(seeds, lambda layout: model.money(layout), _neighbours(model), budget)
    # A kept head only matters when the budget cuts its file, which the probe does not measure:
    # the layout is replayed with and without one for MEMORY.md, and the cheaper kept.
    headed = dataclasses.replace(found, heads=("MEMORY.md",))
    tried_out = [(layout, _replayed(request, layout.overrides(), events, trace, rules)) for layout in (found, headed)]
    best, best_result = min(tried_out, key=lambda pair: pair[1].money)
    priced = [
        Priced("best found", best_result),
        Priced("current", _replayed(request, (), events, trace, rules)),
        Priced(
            "OpenClaw's default (one 5m breakpoint at the boundary)",
            _replayed(request, OPENCLAW_OVERRIDES, events, trace, rules),
        ),
    ]
    if priced[1].result.money < priced[0].result.money:  # the estimate misjudged: keep what is
        best = _current_layout(model, cache)
        priced[0] = Priced("best found", priced[1].result)
    return Outcome(best, tuple(priced), tried, len(events), rules)


def descend(
    seeds: Sequence[Layout],
    cost: Callable[[Layout], float],
    neighbours: Callable[[Layout], Iterator[Layout]],
    budget: int,
) -> tuple[Layout, int]:
    """Coordinate descent: from the cheapest seed, take any cheaper neighbour, until none is or
    `budget` layouts were priced; ties keep the earlier layout."""
    prices: dict[Layout, float] = {}

    def price(layout: Layout) -> float:
        if layout not in prices:
            if len(prices) >= budget:
                return float("inf")
            prices[layout] = cost(layout)
        return prices[layout]

    best = min(seeds, key=price)
    improved = True
    while improved and len(prices) < budget:
        improved = False
        for candidate in neighbours(best):
            if price(candidate) < price(best):
                best, improved = candidate, True
    return best, len(prices)


def _probing(request: Request, cache: CacheConfig) -> Request:
    """The request with its last tier reaching the Dynamic Project Context and no kept heads
    named, so every cacheable unit is measured whole."""
    tiers = [[name for name in tier if not name.endswith(HEAD_SUFFIX)] for tier in cache.tiers] or [[SECTIONS]]
    if DYNAMIC_SECTION not in tiers[-1]:
        tiers[-1].append(DYNAMIC_SECTION)
    return dataclasses.replace(
        request, overrides=(*request.overrides, f"prompt.cache.tiers={_flow(tuple(map(tuple, tiers)))}")
    )


def _replayed(
    request: Request, overrides: tuple[str, ...], events: Sequence[Event], trace: Path, rules: Rules
) -> Result:
    laid = dataclasses.replace(request, overrides=(*request.overrides, *overrides))
    return simulate(replay(laid, events, trace, check_leaks=False).turns(rules), rules)


# --------------------------------------------------------------------------- the search space


def _seeds(model: _Model, cache: CacheConfig) -> list[Layout]:
    """The current layout, the README's for long-lived agents, and one tier for everything."""
    stable = {"AGENTS.md", "TOOLS.md", "IDENTITY.md", "BOOTSTRAP.md"}
    personal = {"SOUL.md", "USER.md"}
    long_lived = tuple((name, 0 if name in stable else 1 if name in personal else 2) for name in model.files)
    quiet = tuple(kind for kind in ("heartbeat", "cron") if kind in model.sessions)
    return [
        _current_layout(model, cache),
        Layout(long_lived, 3, True, quiet, keep_warm=SUGGESTED["1h"]),
        Layout(tuple((name, 0) for name in model.files), 1, False, ()),
    ]


def _current_layout(model: _Model, cache: CacheConfig) -> Layout:
    count = max(1, len(cache.tiers))
    files = tuple((name, min(cache_tiers.positions([FILE_PREFIX + name], cache)[0], count - 1)) for name in model.files)
    ttls = [cache.ttl_at(index) for index in range(count)]
    hours = sum(1 for ttl in itertools.takewhile(lambda t: t == HOUR, ttls))
    reach = bool(cache.tiers) and DYNAMIC_SECTION in cache.tiers[-1]
    uncached = tuple(k for k in cache.uncached_sessions if k in model.sessions)
    return Layout(files, hours, reach, uncached, keep_warm=cache.keep_warm)


def _neighbours(model: _Model) -> Callable[[Layout], Iterator[Layout]]:
    tiers = min(MAX_CACHE_TIERS, model.rules.breakpoints or MAX_CACHE_TIERS)

    def around(layout: Layout) -> Iterator[Layout]:
        yield from (candidate for candidate in _changed(layout) if candidate.valid)

    def _changed(layout: Layout) -> Iterator[Layout]:
        for position, (name, tier) in enumerate(layout.files):
            for other in range(tiers):
                if other != tier:
                    files = (*layout.files[:position], (name, other), *layout.files[position + 1 :])
                    yield dataclasses.replace(layout, files=files)
        for hours in range(tiers + 1):
            if hours != layout.hours:
                yield dataclasses.replace(layout, hours=hours)
        yield dataclasses.replace(layout, reach=not layout.reach)
        for kind in model.sessions:
            toggled = set(layout.uncached) ^ {kind}
            yield dataclasses.replace(layout, uncached=tuple(k for k in model.sessions if k in toggled))
        for warm in (None, *KEEP_WARM_CHOICES):
            if warm != layout.keep_warm:
                yield dataclasses.replace(layout, keep_warm=warm)

    return around


# --------------------------------------------------------------------------- pricing a layout without compiling


class _Model:
    """The probe replay's units, laid out again for any layout and priced."""

    def __init__(self, probe: Replay, rules: Rules) -> None:
        self.events = probe.events
        self.rules = rules
        names = {u.name for c in probe.events for u in c.units}
        self.files = tuple(dict.fromkeys(f for f in LOAD_ORDER if FILE_PREFIX + f in names))
        """The workspace files some turn of the trace caches, in load order."""
        kinds = {c.session for c in probe.events}
        self.sessions = tuple(kind for kind in ("heartbeat", "cron", "subagent") if kind in kinds)
        """The session kinds besides main that the trace has."""
        self.minimums = {c.model: cache_tiers.min_tokens(c.model) for c in probe.events}

    def money(self, layout: Layout) -> float:
        cache = layout.cache
        turns = [self.turn(c, layout, cache) for c in self.events]
        return simulate(with_pings(turns, [layout.keep_warm] * len(turns)), self.rules).money

    def turn(self, compiled: Compiled, layout: Layout, cache: CacheConfig) -> Turn:
        units, sizes, volatile = list(compiled.units), list(compiled.unit_bytes), compiled.volatile_tokens
        if units and units[-1].name == DYNAMIC_UNIT and not layout.reach:
            volatile += units.pop().tokens
            sizes.pop()
        order = _file_order([u.name for u in units], cache)
        units, sizes = [units[i] for i in order], [sizes[i] for i in order]
        if compiled.session in layout.uncached:
            return Turn(compiled.event.at, compiled.variant, tuple(units), (), (), volatile, compiled.model)
        ends, ttls = _breakpoints([u.name for u in units], sizes, cache, self.minimums[compiled.model])
        return Turn(compiled.event.at, compiled.variant, tuple(units), ends, ttls, volatile, compiled.model)


def _file_order(names: list[str], cache: CacheConfig) -> list[int]:
    """Unit indices with the project-context files sorted by tier, then load order, as the compiler orders them."""
    files = [i for i, name in enumerate(names) if name.startswith(FILE_PREFIX)]
    if not files:
        return list(range(len(names)))
    rank = {name: index for index, name in enumerate(LOAD_ORDER)}
    start, stop = files[0], files[-1] + 1
    block = sorted(
        range(start, stop),
        key=lambda i: (
            cache_tiers.positions([names[i]], cache)[0],
            rank.get(names[i][len(FILE_PREFIX) :], len(rank)),
            i,
        ),
    )
    return [*range(start), *block, *range(stop, len(names))]


def _breakpoints(
    names: list[str], sizes: list[int], cache: CacheConfig, minimum: int
) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Where the payload's breakpoints fall for these units, and their TTLs: a tier ends where the
    tier position grows; one whose prefix is under `minimum` estimated tokens gives its place to
    the next (the last always keeps its breakpoint)."""
    positions = cache_tiers.positions(names, cache)
    cuts = [i for i in range(1, len(names)) if positions[i] != positions[i - 1]] + ([len(names)] if names else [])
    ends, ttls, total = [], [], 0
    for index, end in enumerate(cuts):
        prefix = sum(sizes[:end])
        total = -(-prefix // 4)
        if total < minimum and index < len(cuts) - 1:
            continue
        ends.append(end)
        ttls.append(cache.ttl_at(positions[end - 1]))
    return tuple(ends), tuple(ttls)
