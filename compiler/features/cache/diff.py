"""Which cache tiers two compiles do not share, and which section or file is behind each.

A provider matches a tier by the whole prefix through it, so a tier is invalidated when it or
any tier before it changed; its causes are the units that changed at or before it. A provider's
cache is per model: when the model (or the provider) differs, every tier is rewritten whatever
the bytes, and the switch is the cause. The words
(`cache tier 2 invalidated by USER.md`) are made here only: `cache diff`, `render --watch`,
`snapshot check` and `bundle --check` all use `describe` / `summary`.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ... import tiers as cache_tiers
from ...model.prompt import Prompt
from ...model.units import JOIN
from ...model.units import label as unit_label

DIFF_LINES = 40
"""A change's unified diff is cut after this many lines."""

Entries = Sequence[Mapping[str, Any]]
"""Tiers as data: `tiers.entries(...)`, or a bundle manifest row's `tiers`."""


@dataclass(frozen=True, slots=True)
class TierChange:
    """One tier of the newer compile, compared with the older one."""

    index: int
    """1-based tier index (in the newer compile)."""
    changed: bool
    """Whether a cache holding the older prompt misses at this tier."""
    causes: tuple[str, ...]
    """Units that changed in this tier or before it, in prompt order (removed ones last)."""
    own: bool
    """Whether a cause lies in this tier itself (else it only follows an earlier tier)."""
    switch: str = ""
    """`model` or `provider` when a switch of it rewrites the tier (whatever its bytes)."""


@dataclass(frozen=True, slots=True)
class Identity:
    """What a cache is keyed on besides the bytes: the provider and the model, when known."""

    provider: str | None
    """The provider id."""
    model: str | None
    """The model id."""


def switch(before: Identity, after: Identity) -> tuple[str, str] | None:
    """(`provider` or `model`, the line saying so) when the two sides use different caches;
    None when they share one. No provider documents a cache shared between models."""
    if before.provider != after.provider:
        return (
            "provider",
            f"provider changed: {before.provider or '-'} -> {after.provider or '-'}: every tier rewritten",
        )
    if before.model != after.model:
        return "model", f"model changed: {before.model or '-'} -> {after.model or '-'}: every tier rewritten"
    return None


def rewritten(after: Entries, what: str) -> tuple[TierChange, ...]:
    """Every tier of `after`, rewritten by a switch of `what` (`model` or `provider`)."""
    return tuple(TierChange(tier["index"], True, (), True, what) for tier in after)


def compare(before: Entries, after: Entries) -> tuple[TierChange, ...]:
    """Tier by tier, from both sides' tier entries (one provider and model)."""
    old = {u["name"]: u["sha256"] for t in before for u in t["units"]}
    old_tier = {u["name"]: t["index"] for t in before for u in t["units"]}
    new = {u["name"] for t in after for u in t["units"]}
    edited = {u["name"] for t in after for u in t["units"] if old.get(u["name"]) != u["sha256"]}
    removed = [name for name in old if name not in new]
    keys = {t["key"] for t in before}
    changes: list[TierChange] = []
    causes: list[str] = []
    for position, tier in enumerate(after):
        last = position == len(after) - 1
        own = [u["name"] for u in tier["units"] if u["name"] in edited]
        own += [
            name for name in removed if old_tier[name] == tier["index"] or (last and old_tier[name] > tier["index"])
        ]
        causes += own
        changed = tier["key"] not in keys
        changes.append(TierChange(tier["index"], changed, tuple(causes) if changed else (), changed and bool(own)))
    return tuple(changes)


def compare_prompts(before: Prompt, after: Prompt) -> tuple[TierChange, ...]:
    """Tier by tier, between two compiles."""
    return compare(cache_tiers.entries(before.tiers, before.units), cache_tiers.entries(after.tiers, after.units))


def compare_text(before_stable: str, after: Prompt) -> tuple[TierChange, ...]:
    """Tier by tier, when only the older stable text is known (a committed snapshot): a tier is
    unchanged when the older text starts with the newer prefix through it, and a unit is
    unchanged when its whole text stands as a unit somewhere in the older text."""
    join = JOIN
    padded, old = join + before_stable + join, before_stable + join
    entries = cache_tiers.entries(after.tiers, after.units)
    texts = {u.name: u.text for u in after.units}
    prefix, kept_keys, units = "", [], []
    for tier, entry in zip(after.tiers, entries):
        prefix += tier.text
        if old.startswith(prefix):
            kept_keys.append({"index": 0, "key": tier.key, "units": []})
        units += [
            {**u, "sha256": u["sha256"] if join + texts[u["name"]] + join in padded else ""} for u in entry["units"]
        ]
    before = [*kept_keys, {"index": 0, "key": "", "units": units}]
    return compare(before, entries)


def describe(change: TierChange) -> str:
    """`cache tier 2 unchanged`, `cache tier 2 invalidated by USER.md`, or, for a tier that
    only follows an earlier change, `cache tier 3 invalidated by USER.md (in an earlier tier)`."""
    if not change.changed:
        return f"cache tier {change.index} unchanged"
    if change.switch:
        return f"cache tier {change.index} invalidated by the {change.switch} change"
    if not change.causes:
        return f"cache tier {change.index} invalidated by a change of order"
    names = ", ".join(unit_label(u) for u in change.causes)
    return f"cache tier {change.index} invalidated by {names}" + ("" if change.own else " (in an earlier tier)")


def summary(changes: Sequence[TierChange]) -> str:
    """One line: every invalidated tier, or that none was."""
    changed = [describe(c) for c in changes if c.changed]
    return "; ".join(changed) if changed else "no cache tier invalidated"


def unit_diff(name: str, before: str | None, after: str | None, limit: int = DIFF_LINES) -> list[str]:
    """A short unified diff of one unit's text (absent on one side: all added or removed)."""
    label = unit_label(name)
    old = (before or "").splitlines(keepends=True)
    new = (after or "").splitlines(keepends=True)
    lines = [line.rstrip("\n") for line in difflib.unified_diff(old, new, f"{label} (before)", f"{label} (after)", n=2)]
    return lines if len(lines) <= limit else lines[:limit] + [f"... ({len(lines) - limit} more diff lines)"]
