"""How each provider's prompt cache prices a request: the rule sets the simulator replays, read
from the dated price table `templates/pricing.yaml`.

A rule set's multiples are of the provider's base input-token price, so results compare across
providers and models: a cache read of 1,000 tokens at 0.1 costs what 100 uncached tokens do.
Each model's own row gives its minimum cacheable size and its prices in money.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from types import MappingProxyType
from typing import Any

from .._lib.resources import shipped_yaml

TTLS: tuple[str, ...] = ("5m", "1h")
"""The cache lifetimes a breakpoint can ask for, shortest first."""
RETENTIONS: tuple[str, ...] = ("in_memory", "24h")
"""OpenAI's `prompt_cache_retention` values."""
PER_MILLION = 1_000_000
"""The table's prices are per this many tokens."""


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """One model's row of the price table."""

    match: str
    """The regular expression that picks the row ('' for a provider's default row)."""
    min_tokens: int
    """The shortest prefix the provider caches for this model."""
    input: float
    """Money per million uncached input tokens."""
    write: Mapping[str, float]
    """Money per million tokens written to the cache, per TTL (`5m`, `1h`)."""
    read: float
    """Money per million tokens read from the cache."""
    output: float
    """Money per million output tokens."""

    def multiple(self, price: float) -> float:
        """`price` as a multiple of this model's uncached input price."""
        return price / self.input if self.input else 1.0


@dataclass(frozen=True, slots=True)
class Rules:
    """One provider's prompt-cache pricing and behaviour."""

    name: str
    """`anthropic`, `bedrock` or `openai`."""
    explicit: bool
    """True: only breakpoints create cache entries (Anthropic, Bedrock). False: every request's
    prefix is cached automatically (OpenAI)."""
    read: float
    """Price of a token read from the cache (the default model's, as a multiple)."""
    write: Mapping[str, float]
    """Price of a token written to the cache, per TTL (OpenAI: writes cost what uncached input does)."""
    ttl_seconds: Mapping[str, int]
    """How long an entry lives after it was last written or read, per TTL (or retention) asked for."""
    min_tokens: int
    """A prefix shorter than this is never cached (the default model's minimum)."""
    increment: int = 1
    """Automatic caching counts cached tokens in steps of this size past `min_tokens`."""
    notes: tuple[str, ...] = field(default=())
    """What the rule set assumes, for reports."""
    breakpoints: int = 4
    """How many cache breakpoints one request may carry (0: automatic caching, none sent)."""
    retention: str = "in_memory"
    """Automatic caching: the `prompt_cache_retention` the requests ask for."""
    models: tuple[ModelPrice, ...] = ()
    """The provider's model rows, first match wins."""
    default: ModelPrice | None = None
    """The row of a model no entry matches."""
    as_of: str = ""
    """The date of the price table."""
    currency: str = "USD"
    """The table's currency."""

    def price(self, model: str | None) -> ModelPrice:
        """The row for `model` (the default row when none matches)."""
        for row in self.models:
            if model and re.search(row.match, model, re.IGNORECASE):
                return row
        assert self.default is not None
        return self.default

    def lifetime(self, ttl: str) -> int:
        """Seconds an entry lives after its last use: a breakpoint's TTL, or for automatic caching
        the retention asked for."""
        return self.ttl_seconds[ttl if self.explicit else self.retention]


def _row(data: Mapping[str, Any]) -> ModelPrice:
    write = MappingProxyType({"5m": float(data["write_5m"]), "1h": float(data["write_1h"])})
    return ModelPrice(
        str(data.get("match", "")),
        int(data["min_tokens"]),
        float(data["input"]),
        write,
        float(data["read"]),
        float(data["output"]),
    )


def _rules(name: str, data: Mapping[str, Any], as_of: str, currency: str) -> Rules:
    behaviour = data["cache"]
    default = _row(data["default"])
    ttl_seconds = dict(behaviour["ttl_seconds"])
    explicit = bool(behaviour["explicit"])
    if not explicit:  # a breakpoint's TTL means nothing here: every entry lives as retention says
        ttl_seconds |= {ttl: ttl_seconds["in_memory"] for ttl in TTLS}
    write = {ttl: default.multiple(default.write[ttl]) for ttl in TTLS}
    return Rules(
        name=name,
        explicit=explicit,
        read=default.multiple(default.read),
        write=MappingProxyType(write),
        ttl_seconds=MappingProxyType(ttl_seconds),
        min_tokens=default.min_tokens,
        increment=int(behaviour.get("increment", 1)),
        notes=(_note(name, explicit, default, write),),
        breakpoints=int(behaviour["breakpoints"]),
        models=tuple(_row(row) for row in data["models"]),
        default=default,
        as_of=as_of,
        currency=currency,
    )


def _note(name: str, explicit: bool, default: ModelPrice, write: Mapping[str, float]) -> str:
    read = f"read {default.multiple(default.read):g}x"
    if explicit:
        return (
            f"write {write['5m']:g}x (5m) or {write['1h']:g}x (1h), {read}, lifetime refreshed on every hit, "
            f"minimum cacheable prefix per model (default {default.min_tokens:,} tokens)"
        )
    return (
        f"automatic prefix caching: no write premium, {read} (the default model's discount), "
        f"cached in 128-token steps past {default.min_tokens:,}, entries kept as the retention asks"
    )


@cache
def table() -> Mapping[str, Rules]:
    """Every provider's rule set from the shipped price table, by name, in report order."""
    data = shipped_yaml("pricing.yaml")
    as_of, currency = str(data["as_of"]), str(data["currency"])
    return MappingProxyType({name: _rules(name, row, as_of, currency) for name, row in data["providers"].items()})


def with_retention(rules: Rules, retention: str) -> Rules:
    """An automatic-caching rule set asking for `retention` (`in_memory` or `24h`)."""
    return replace(rules, retention=retention)


def identity(provider: str | None, model: str | None) -> str:
    """What a provider's cache is keyed on besides the prompt's bytes: its model, named with its
    provider (`anthropic/claude-sonnet-4-5`), or '' when neither is known."""
    model, provider = model or "", provider or ""
    if not provider or model.startswith(provider + "/"):
        return model
    return f"{provider}/{model}" if model else provider


def money(units: float, price: ModelPrice) -> float:
    """Base-input units (uncached-input tokens' worth) as money at `price`."""
    return units * price.input / PER_MILLION


def shown(amount: float, currency: str, places: int = 4) -> str:
    """`$1.2345` (US dollars), else `1.2345 EUR`: four decimals by default, as cache costs are small."""
    return f"${amount:,.{places}f}" if currency == "USD" else f"{amount:,.{places}f} {currency}"


RULE_SETS: Mapping[str, Rules] = table()
"""Every rule set by name, in report order."""
ANTHROPIC = RULE_SETS["anthropic"]
BEDROCK = RULE_SETS["bedrock"]
OPENAI = RULE_SETS["openai"]
