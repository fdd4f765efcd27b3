"""Cut the stable part into cache tiers, each ending in one provider breakpoint."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ._lib.errors import ConfigError, Location, did_you_mean
from .model.config import CacheConfig
from .model.prompt import CacheTier, PromptUnit
from .model.units import (
    DYNAMIC_SECTION,
    DYNAMIC_UNIT,
    FILE_PREFIX,
    HEAD_SUFFIX,
    JOIN,
    SECTION_PREFIX,
    SECTIONS,
    assigned_tier,
    unit_separator,
)

BREAKPOINT_PROVIDER = "anthropic"
"""Whose minimums a model with no known provider prefix is measured by (breakpoints are an
Anthropic and Bedrock feature; both publish the same minimums for Claude models)."""


@dataclass(frozen=True, slots=True)
class Merge:
    """A configured tier whose prefix is too short for its model's cache: its breakpoint is not
    sent, and the next tier's breakpoint covers it."""

    tier: int
    """The configured tier's 1-based index."""
    into: int
    """The configured index of the tier whose breakpoint covers it."""
    tokens: int
    """The prefix through it, in estimated tokens (what the decision used)."""
    minimum: int
    """The model's shortest cacheable prefix."""


def check_sections(cache: CacheConfig, sides: dict[str, str]) -> None:
    """Every section id a tier names must be a stable section of the catalogue (`sides`: id ->
    side); the error points at the config line that names it."""
    stable = sorted(sid for sid, side in sides.items() if side == "stable")
    for position, tier in enumerate(cache.tiers):
        for name in tier:
            if name == SECTIONS or name.endswith((".md", HEAD_SUFFIX)):
                continue
            where = cache.locations.get(name)
            location = where if isinstance(where, Location) else None
            if name == DYNAMIC_SECTION and position == len(cache.tiers) - 1:
                continue
            if name == DYNAMIC_SECTION:
                raise ConfigError(
                    f"prompt.cache.tiers: {name!r} is below the cache boundary, so only the last tier can reach it",
                    location,
                )
            if sides.get(name) == "volatile":
                raise ConfigError(
                    f"prompt.cache.tiers: section {name!r} is below the cache boundary, so it has no tier", location
                )
            if name not in sides:
                hint = did_you_mean(name, stable)
                raise ConfigError(f"prompt.cache.tiers: no stable section {name!r}{hint}", location)


def layout(units: Sequence[PromptUnit], cache: CacheConfig) -> tuple[CacheTier, ...]:
    """The stable part's tiers: each unit in max(its tier, the previous unit's tier), and a
    section after the project-context files in the last configured tier (so a variant without
    MEMORY.md still ends its file tiers where the others do); empty tiers vanish; every tier's
    text ends with the separator."""
    groups: list[tuple[int, list[PromptUnit]]] = []
    for unit, current in zip(units, positions([u.name for u in units], cache)):
        if not groups or groups[-1][0] != current:
            groups.append((current, []))
        groups[-1][1].append(unit)
    running = hashlib.sha256()
    tiers = []
    for index, (position, members) in enumerate(groups, start=1):
        text = "".join(u.text + u.separator for u in members)
        running.update(text.encode("utf-8"))
        tiers.append(
            CacheTier(index, tuple(u.name for u in members), text, cache.ttl_at(position), running.hexdigest())
        )
    return tuple(tiers)


def positions(names: Sequence[str], cache: CacheConfig) -> list[int]:
    """Each unit's configured tier (0-based), in order: max(its tier, the previous unit's), a
    section after the project-context files in the last configured tier."""
    found, current, after_files = [], 0, False
    for name in names:
        after_files = after_files or name.startswith(FILE_PREFIX)
        last = len(cache.tiers) - 1 if after_files and name.startswith(SECTION_PREFIX) else 0
        current = max(current, assigned_tier(name, cache), last)
        found.append(current)
    return found


def entries(tiers: Sequence[CacheTier], units: Sequence[PromptUnit]) -> list[dict[str, Any]]:
    """The tiers as data (JSON output, bundle manifests, `cache diff`): per tier its index,
    units (name, chars, sha256), chars, TTL, the SHA-256 of its text and its prefix key."""
    by_name = {u.name: u for u in units}
    return [
        {
            "index": t.index,
            "units": [{"name": n, "chars": len(by_name[n].text), "sha256": by_name[n].sha256} for n in t.units],
            "chars": len(t.text),
            "ttl": t.ttl,
            "sha256": t.sha256,
            "key": t.key,
        }
        for t in tiers
    ]


def unit_texts(stable: str, tiers: Sequence[Any]) -> dict[str, str]:
    """Each stable unit's text cut back out of a stable text by the `entries` of its tiers (a
    volatile unit a tier reaches is not in it)."""
    texts, position = {}, 0
    for tier in tiers:
        for unit in tier["units"]:
            if unit["name"] != DYNAMIC_UNIT:
                texts[unit["name"]] = stable[position : position + unit["chars"]]
            position += unit["chars"] + len(unit_separator(unit["name"]))
    return texts


def uncovered(volatile: str, units: Sequence[PromptUnit]) -> str:
    """The volatile part after what the last tier covers (the Dynamic Project Context and the
    separator after it, when the tier reaches it): what goes after the last breakpoint."""
    return volatile[sum(len(u.text) + len(JOIN) for u in units if u.name == DYNAMIC_UNIT) :]


def estimate_tokens(text: str) -> int:
    """A deterministic token estimate for the merge decision: UTF-8 bytes / 4, rounded up (a
    payload never depends on the optional tokenizer)."""
    return math.ceil(len(text.encode("utf-8")) / 4)


def min_tokens(model: str | None, provider: str | None = None) -> int:
    """The shortest prefix the model's provider caches, from the price table (`provider`: by
    default the model id's `provider/` prefix)."""
    from .inputs import pricing  # here: a render that builds no payload never reads the table

    rule_sets = pricing.table()
    named = provider or (model or "").partition("/")[0].lower()
    return rule_sets.get(named, rule_sets[BREAKPOINT_PROVIDER]).price(model).min_tokens


def merges(tiers: Sequence[CacheTier], minimum: int) -> tuple[Merge, ...]:
    """Which tiers `merged` joins to a later one, and why (the same rule, said for a report)."""
    found: list[Merge] = []
    pending: list[tuple[int, int]] = []
    prefix = ""
    for position, tier in enumerate(tiers):
        prefix += tier.text
        tokens = estimate_tokens(prefix)
        if tokens < minimum and position < len(tiers) - 1:
            pending.append((tier.index, tokens))
            continue
        found += [Merge(index, tier.index, count, minimum) for index, count in pending]
        pending = []
    return tuple(found)


def describe_merge(merge: Merge, model: str | None) -> str:
    """`cache tier 1 merged into tier 2: its prefix (about 700 tokens) is under the 1,024-token minimum of MODEL`."""
    return (
        f"cache tier {merge.tier} merged into tier {merge.into}: its prefix (about {merge.tokens:,} tokens) is "
        f"under the {merge.minimum:,}-token minimum of {model or 'the default model'}"
    )


def merged(tiers: Sequence[CacheTier], minimum: int) -> tuple[CacheTier, ...]:
    """Tiers whose prefix is shorter than `minimum` tokens joined to the next one (a breakpoint
    there would cache nothing); the last tier always keeps its breakpoint."""
    kept: list[CacheTier] = []
    carried: CacheTier | None = None
    prefix = ""
    for position, tier in enumerate(tiers):
        prefix += tier.text
        if carried is not None:
            tier = CacheTier(tier.index, carried.units + tier.units, carried.text + tier.text, tier.ttl, tier.key)
        if estimate_tokens(prefix) < minimum and position < len(tiers) - 1:
            carried = tier
            continue
        kept.append(CacheTier(len(kept) + 1, tier.units, tier.text, tier.ttl, tier.key))
        carried = None
    return tuple(kept)
