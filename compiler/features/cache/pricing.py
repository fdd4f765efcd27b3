"""How each provider's prompt cache prices a request: the rule sets the simulator replays.

Prices are multiples of the provider's base input-token price, so results compare across
providers and models: a cache read of 1,000 tokens at 0.1 costs what 100 uncached tokens do.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

TTLS: tuple[str, ...] = ("5m", "1h")
"""The cache lifetimes a breakpoint can ask for, shortest first."""


@dataclass(frozen=True, slots=True)
class Rules:
    """One provider's prompt-cache pricing and behaviour."""

    name: str
    """`anthropic`, `bedrock` or `openai`."""
    explicit: bool
    """True: only breakpoints create cache entries (Anthropic, Bedrock). False: every request's
    prefix is cached automatically (OpenAI)."""
    read: float
    """Price of a token read from the cache."""
    write: Mapping[str, float]
    """Price of a token written to the cache, per TTL (OpenAI: writes cost what uncached input does)."""
    ttl_seconds: Mapping[str, int]
    """How long an entry lives after it was last written or read, per TTL asked for."""
    min_tokens: int
    """A prefix shorter than this is never cached."""
    increment: int = 1
    """Automatic caching counts cached tokens in steps of this size past `min_tokens`."""
    notes: tuple[str, ...] = field(default=())
    """What the rule set assumes, for reports."""


ANTHROPIC = Rules(
    name="anthropic",
    explicit=True,
    read=0.1,
    write=MappingProxyType({"5m": 1.25, "1h": 2.0}),
    ttl_seconds=MappingProxyType({"5m": 300, "1h": 3600}),
    min_tokens=1024,
    notes=("write 1.25x (5m) or 2x (1h), read 0.1x, lifetime refreshed on every hit, 1,024-token minimum",),
)
BEDROCK = replace(
    ANTHROPIC, name="bedrock", notes=("Claude models on Bedrock: priced like Anthropic; a cachePoint per tier",)
)
OPENAI = Rules(
    name="openai",
    explicit=False,
    read=0.1,
    write=MappingProxyType({"5m": 1.0, "1h": 1.0}),
    ttl_seconds=MappingProxyType({"5m": 300, "1h": 300}),
    min_tokens=1024,
    increment=128,
    notes=(
        "automatic prefix caching: no write premium, read 0.1x (the gpt-5 family's discount), "
        "cached in 128-token steps past 1,024, entries kept 5 minutes after last use",
    ),
)

RULE_SETS: Mapping[str, Rules] = MappingProxyType({r.name: r for r in (ANTHROPIC, BEDROCK, OPENAI)})
"""Every rule set by name, in report order."""
