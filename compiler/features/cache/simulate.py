"""Replay a sequence of compiled turns against a provider's cache rules: what each turn reads
from the cache, writes to it and sends uncached, what that costs, and why every write happened.

The input is already compiled: each turn is its stable part as an ordered list of units
(sections and workspace files, each with a digest and a token count) cut into tiers, plus the
size of its volatile part. A turn may be a keep-warm ping (keepwarm.py): it is priced like any
request, with its one output token, and accounted apart from the trace's turns. This module does
no I/O and no compiling.

A cache is per model: an entry is keyed by the turn's model (with its provider) as well as by the
prompt's bytes, so the first turn on each model writes, whatever another model cached. Each turn
is priced at its own model's row of the price table: its minimum cacheable size, its multiples of
the input price, and money.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ...inputs.pricing import ModelPrice, Rules, money

BYTES_PER_TOKEN = 4
"""A `Turn.sequence` holds four bytes a token."""
EXPIRED = "expired"
"""The tier's bytes were cached before, unchanged, but the entry had run out."""
FIRST_USE = "first use"
"""Nothing of this variant was seen before (or never reached the minimum size)."""
CHANGED = "changed"
"""Units in this tier (or before it) differ from the variant's previous turn."""
EXPIRED_AND_CHANGED = "expired and changed"
"""Changed, and the previous version would have run out by now anyway."""


@dataclass(frozen=True, slots=True)
class Unit:
    """One section or workspace file of the stable part."""

    name: str
    """`section:<id>` or `file:<NAME>`."""
    digest: str
    """SHA-256 of the unit's text."""
    tokens: int
    """Its size in tokens."""


@dataclass(frozen=True, slots=True)
class Turn:
    """One compiled request, as the cache sees it."""

    at: float
    """Seconds since the start of the trace."""
    variant: str
    """Which prompt variant this is (agent, session kind, mode, ...): changes are looked for
    against the same variant's previous turn."""
    units: tuple[Unit, ...]
    """The stable part, in order."""
    tier_ends: tuple[int, ...]
    """For each breakpoint, the index just past its tier's last unit (none: a payload sent with
    no breakpoint, every unit uncached)."""
    ttls: tuple[str, ...]
    """Each tier's requested lifetime (`5m` or `1h`)."""
    volatile_tokens: int
    """The part below the boundary: never cached."""
    model: str = ""
    """The cache identity: the model with its provider (`anthropic/claude-sonnet-4-5`); '' when
    unknown (priced at the provider's default row)."""
    sequence: bytes = b""
    """For automatic caching, the whole request as it matches a cached one: four bytes a token
    (the token ids, or the UTF-8 text when tokens are estimated as four bytes each). A match runs
    as far as these agree, past unit boundaries and the cache boundary. Empty: matched at unit
    boundaries only."""
    ping: bool = False
    """A keep-warm ping (the cached part of an earlier turn re-sent), not a turn of the trace."""


@dataclass(frozen=True, slots=True)
class Write:
    """Tokens a turn sent that were not served from the cache, and why."""

    turn: int
    """Index of the turn in the trace."""
    tier: int
    """1-based tier whose breakpoint the tokens were written at (automatic caching: the tier
    where the miss began)."""
    tokens: int
    """How many tokens."""
    cost: float
    """What they cost, in base-input units."""
    cause: str
    """EXPIRED, FIRST_USE, CHANGED or EXPIRED_AND_CHANGED."""
    changed: tuple[str, ...] = ()
    """For a change: the units that differ from the variant's previous turn, in prompt order."""
    money: float = 0.0
    """What they cost, in the price table's currency."""


@dataclass(frozen=True, slots=True)
class TurnCost:
    """One turn's accounting."""

    read: int
    """Tokens read from the cache."""
    written: int
    """Stable tokens written to the cache (automatic caching: stable tokens not matched)."""
    uncached: int
    """Tokens sent at the base price: the volatile part, and stable tokens under the minimum."""
    cost: float
    """Total, in base-input units."""
    writes: tuple[Write, ...]
    """Why anything was written."""
    money: float = 0.0
    """Total, in the price table's currency at the turn's model's prices."""
    uncached_money: float = 0.0
    """What the turn would cost in money with no cache."""


@dataclass(frozen=True, slots=True)
class Result:
    """A whole trace under one rule set."""

    rules: Rules
    """The provider rules used."""
    turns: tuple[TurnCost, ...]
    """Per-turn accounting, in trace order."""
    pings: tuple[TurnCost, ...] = ()
    """Each keep-warm ping's accounting, in time order (part of every total but the ones without a cache)."""

    @property
    def read(self) -> int:
        return sum(t.read for t in self._sent)

    @property
    def written(self) -> int:
        return sum(t.written for t in self._sent)

    @property
    def uncached(self) -> int:
        return sum(t.uncached for t in self._sent)

    @property
    def cost(self) -> float:
        return sum(t.cost for t in self._sent)

    @property
    def money(self) -> float:
        """Total, in the price table's currency."""
        return sum(t.money for t in self._sent)

    @property
    def ping_money(self) -> float:
        """What the keep-warm pings cost, in money (part of `money`)."""
        return sum(t.money for t in self.pings)

    @property
    def money_without_cache(self) -> float:
        """What the trace's turns cost in money with no cache at all (and so no pings)."""
        return sum(t.uncached_money for t in self.turns)

    @property
    def total_tokens(self) -> int:
        """Every prompt token the trace's turns sent: what they cost with no cache at all."""
        return sum(t.read + t.written + t.uncached for t in self.turns)

    @property
    def cached_share(self) -> float:
        """Share of the turns' prompt tokens served from the cache."""
        total = self.total_tokens
        return sum(t.read for t in self.turns) / total if total else 0.0

    @property
    def writes(self) -> tuple[Write, ...]:
        return tuple(w for t in self._sent for w in t.writes)

    @property
    def _sent(self) -> tuple[TurnCost, ...]:
        return self.turns + self.pings


def simulate(turns: Sequence[Turn], rules: Rules) -> Result:
    """Replay `turns` in order against `rules`; a ping is accounted apart from the trace's turns,
    and a write it makes is put down to the turn before it."""
    state = _State(rules)
    costs: tuple[list[TurnCost], list[TurnCost]] = ([], [])
    index = -1
    for turn in turns:
        index += not turn.ping
        costs[turn.ping].append(state.step(max(index, 0), turn))
    return Result(rules, tuple(costs[False]), tuple(costs[True]))


def prefix_keys(units: Iterable[Unit], model: str = "") -> list[str]:
    """The cache key of every unit-boundary prefix on `model`'s cache: key[i] covers the first
    i+1 units."""
    keys, running = [], hashlib.sha256(model.encode() + b"\0")
    for unit in units:
        running.update(unit.name.encode() + b"\0" + unit.digest.encode() + b"\0")
        keys.append(running.copy().hexdigest())
    return keys


class _State:
    """The cache's entries (model and prefix key -> expiry time) and each variant's last turn on
    each model."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.expiry: dict[str, float] = {}
        self.last: dict[tuple[str, str], tuple[Turn, list[str]]] = {}
        self.sequences: dict[str, dict[str, tuple[bytes, float]]] = {}
        self.prices: dict[str, ModelPrice] = {}

    def step(self, index: int, turn: Turn) -> TurnCost:
        keys = list(_prefix_keys(turn.units, turn.model))
        cumulative = _cumulative(turn.units)
        if turn.model not in self.prices:
            self.prices[turn.model] = self.rules.price(turn.model)
        price = self.prices[turn.model]
        step = self._explicit if self.rules.explicit else self._automatic
        cost = step(index, turn, keys, cumulative, price)
        if turn.ping:  # the one output token a ping's reply is
            cost = dataclasses.replace(cost, cost=cost.cost + price.multiple(price.output))
        self.last[(turn.variant, turn.model)] = (turn, keys)
        total = cost.read + cost.written + cost.uncached
        return dataclasses.replace(cost, money=money(cost.cost, price), uncached_money=money(total, price))

    # ----------------------------------------------------------------- breakpoints (Anthropic, Bedrock)

    def _explicit(self, index: int, turn: Turn, keys: list[str], cumulative: list[int], price: ModelPrice) -> TurnCost:
        ends = [end for end in turn.tier_ends if end > 0]
        hit = self._longest_hit(turn, [(end, keys[end - 1]) for end in ends], cumulative, price.min_tokens)
        read = cumulative[hit]
        for tier, end in enumerate(ends):
            if end <= hit and keys[end - 1] in self.expiry:
                self.expiry[keys[end - 1]] = turn.at + self._lifetime(turn, tier)
        writes, written, pending, cost = [], 0, 0, read * price.multiple(price.read)
        for tier, end in enumerate(ends):
            if end <= hit:
                continue
            start = max(hit, ends[tier - 1] if tier else 0)
            pending += cumulative[end] - cumulative[start]
            if cumulative[end] < price.min_tokens:
                continue  # too short to cache: stays pending, sent uncached unless a later tier takes it
            multiple = price.multiple(price.write[turn.ttls[tier]])
            cause, changed = self._cause(turn, keys, end, tier)
            units = pending * multiple
            writes.append(Write(index, tier + 1, pending, units, cause, changed, money(units, price)))
            written, cost, pending = written + pending, cost + pending * multiple, 0
            self.expiry[keys[end - 1]] = turn.at + self._lifetime(turn, tier)
        after = cumulative[-1] - cumulative[ends[-1] if ends else 0]  # units past the last breakpoint
        uncached = pending + after + turn.volatile_tokens
        return TurnCost(read, written, uncached, cost + uncached, tuple(writes))

    def _longest_hit(self, turn: Turn, candidates: list[tuple[int, str]], cumulative: list[int], minimum: int) -> int:
        """Units covered by the longest live cache entry at a breakpoint (0 when none)."""
        best = 0
        for end, key in candidates:
            live = self.expiry.get(key, -1.0) >= turn.at and cumulative[end] >= minimum
            if live:
                best = end
        return best

    def _lifetime(self, turn: Turn, tier: int) -> int:
        return self.rules.lifetime(turn.ttls[tier])

    # ----------------------------------------------------------------- automatic prefix caching (OpenAI)

    def _automatic(self, index: int, turn: Turn, keys: list[str], cumulative: list[int], price: ModelPrice) -> TurnCost:
        live = max((i + 1 for i, key in enumerate(keys) if self.expiry.get(key, -1.0) >= turn.at), default=0)
        total = cumulative[-1] + turn.volatile_tokens
        matched = min(self._sequence_match(turn), total) if turn.sequence else cumulative[live]
        read = _counted(matched, price.min_tokens, self.rules.increment)
        missed = max(0, cumulative[-1] - matched)  # stable tokens the cache did not serve
        writes: tuple[Write, ...] = ()
        if missed:
            tier = next(t for t, end in enumerate(turn.tier_ends) if cumulative[end] > matched)
            cause, changed = self._cause(turn, keys, turn.tier_ends[tier], tier)
            writes = (Write(index, tier + 1, missed, float(missed), cause, changed, money(missed, price)),)
        for key in keys:  # every prefix of this request is cached now
            self.expiry[key] = turn.at + self.rules.lifetime("")
        # The matched prefix past its last whole increment is sent at the base price.
        uncached = total - read - missed
        return TurnCost(read, missed, uncached, read * price.multiple(price.read) + missed + uncached, writes)

    def _sequence_match(self, turn: Turn) -> int:
        """Tokens of the longest prefix `turn` shares with a live cached request on its model; the
        request is cached afterwards, and the entry it matched lives on from now."""
        store = self.sequences.setdefault(turn.model, {})
        for digest in [d for d, (_, expiry) in store.items() if expiry < turn.at]:
            del store[digest]
        best, best_digest = 0, ""
        for digest, (sequence, _) in store.items():
            shared = _common_prefix(sequence, turn.sequence)
            if shared > best:
                best, best_digest = shared, digest
        until = turn.at + self.rules.lifetime("")
        if best_digest:
            store[best_digest] = (store[best_digest][0], until)
        store[hashlib.sha256(turn.sequence).hexdigest()] = (turn.sequence, until)
        return best // BYTES_PER_TOKEN

    # ----------------------------------------------------------------- why a write happened

    def _cause(self, turn: Turn, keys: list[str], end: int, tier: int) -> tuple[str, tuple[str, ...]]:
        if keys[end - 1] in self.expiry:
            return EXPIRED, ()
        previous = self.last.get((turn.variant, turn.model))
        if previous is None:
            return FIRST_USE, ()
        before, before_keys = previous
        before_end = before.tier_ends[min(tier, len(before.tier_ends) - 1)]
        changed = _changed_units(before.units[:before_end], turn.units[:end])
        if not changed:
            return FIRST_USE, ()
        stale = before_end > 0 and self.expiry.get(before_keys[before_end - 1], -1.0) < turn.at
        return (EXPIRED_AND_CHANGED if stale else CHANGED), changed


@functools.lru_cache(maxsize=8192)
def _prefix_keys(units: tuple[Unit, ...], model: str) -> tuple[str, ...]:
    """`prefix_keys`, remembered: a trace repeats the same units turn after turn."""
    return tuple(prefix_keys(units, model))


def _common_prefix(a: bytes, b: bytes) -> int:
    """How many leading bytes `a` and `b` share."""
    size = min(len(a), len(b))
    if a[:size] == b[:size]:
        return size
    differ = int.from_bytes(a[:size], "big") ^ int.from_bytes(b[:size], "big")
    return size - (differ.bit_length() + 7) // 8


def _cumulative(units: Sequence[Unit]) -> list[int]:
    """cumulative[i] = tokens of the first i units."""
    totals = [0]
    for unit in units:
        totals.append(totals[-1] + unit.tokens)
    return totals


def _counted(prefix_tokens: int, minimum: int, increment: int) -> int:
    """Tokens an automatic cache serves for a matched prefix: nothing below the minimum, then
    whole increments."""
    if prefix_tokens < minimum:
        return 0
    return minimum + (prefix_tokens - minimum) // increment * increment


def _changed_units(before: Sequence[Unit], after: Sequence[Unit]) -> tuple[str, ...]:
    """Units of `after` that are new or differ from `before`, then units of `before` now gone."""
    old = {u.name: u.digest for u in before}
    new = {u.name for u in after}
    edited = [u.name for u in after if old.get(u.name) != u.digest]
    gone = [u.name for u in before if u.name not in new]
    return tuple(dict.fromkeys(edited + gone))
