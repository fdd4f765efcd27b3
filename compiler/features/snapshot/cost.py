"""Tokens and prices for snapshot checks and review reports: token counts as `promptc context`
gives them, and what serving a scenario costs per 1,000 turns under its provider's cache rules.

Costs are in base input tokens (what one uncached input token costs), which hold for any model
of a provider; the review report turns them into money at the scenario's model's input price.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ... import tiers as cache_tiers
from ...emit import tokens
from ...inputs.pricing import ANTHROPIC, RULE_SETS, Rules

TURNS = 1000
"""The number of turns a review report prices."""


def count(text: str, model: str | None) -> int:
    """Tokens of `text` as `promptc context` counts them for `model` (UTF-8 bytes / 4 without the
    `tokens` extra)."""
    return tokens.count_for(text, model)


def method(model: str | None) -> str:
    """How `count` counts for `model`, in a few words."""
    chosen = tokens.method(model)
    if tokens.count("", chosen.encoding) is None:
        return "estimated as UTF-8 bytes / 4"
    return chosen.encoding if chosen.exact else f"{chosen.encoding}, an estimate for this model"


def rules_for(model: str | None) -> tuple[Rules, bool]:
    """The prices a scenario is costed at: its provider's cache rules, and whether they are only
    assumed (a provider with no rule set of its own is priced as Anthropic)."""
    provider = (model or "").partition("/")[0].lower()
    if provider in tokens.OPENAI_PROVIDERS:
        return RULE_SETS["openai"], False
    if provider in RULE_SETS:
        return RULE_SETS[provider], False
    return ANTHROPIC, True


@dataclass(frozen=True, slots=True)
class Side:
    """One version of a scenario's prompt, as the cost model sees it."""

    stable: int
    """Tokens above the cache boundary."""
    volatile: int
    """Tokens below it (always sent uncached)."""
    cached: bool
    """Whether the stable part is served from the cache (breakpoints sent, long enough)."""


def cacheable(stable_tokens: int, model: str | None, breakpoints: bool) -> bool:
    """Whether the provider caches a stable part of this size: breakpoints are sent (automatic
    caching needs none) and it reaches the model's shortest cacheable prefix."""
    rules, _ = rules_for(model)
    if rules.explicit:
        return breakpoints and stable_tokens >= cache_tiers.min_tokens(model)
    return stable_tokens >= rules.min_tokens


def per_turns(side: Side, rules: Rules) -> float:
    """What TURNS warm turns cost: the stable part read from the cache (or sent uncached), the
    volatile part sent uncached."""
    stable_price = rules.read if side.cached else 1.0
    return TURNS * (side.stable * stable_price + side.volatile)


def rewrite(invalidated: Sequence[tuple[int, str]], rules: Rules, cached: bool) -> float:
    """What the first turn after a change pays to write the invalidated tiers again instead of
    reading them: (tokens, ttl) per tier."""
    if not cached:
        return 0.0
    return sum(count * (rules.write[ttl] - rules.read) for count, ttl in invalidated)
