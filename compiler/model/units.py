"""How the stable part's cache units and tiers are named, and where a tier puts a unit."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .config import CacheConfig

HEAD_SUFFIX = "#head"
"""A tier entry `NAME#head`: the kept head of NAME when the budget cuts it (append-only files)."""


def unit_separator(name: str) -> str:
    """What follows a cache unit in the prompt: a blank line, or the one line break between the
    head of a cut file and its cut marker."""
    return "\n" if name.endswith(HEAD_SUFFIX) else "\n\n"


JOIN = "\n\n"
"""What separates units in the stable part, and ends every tier's text."""
SECTIONS = "sections"
"""The tier entry that stands for every stable section not named elsewhere."""
SECTION_PREFIX, FILE_PREFIX = "section:", "file:"
DYNAMIC_SECTION = "dynamic_context"
"""The one volatile section a tier may name (the last tier only): its breakpoint then sits after
the Dynamic Project Context, the first thing below the boundary, which changes only with
HEARTBEAT.md."""
DYNAMIC_UNIT = SECTION_PREFIX + DYNAMIC_SECTION


def unit_name(kind: str, name: str) -> str:
    """`section:<id>` or `file:<NAME>`."""
    return (SECTION_PREFIX if kind == "section" else FILE_PREFIX) + name


def label(unit: str) -> str:
    """How a unit is named to a person: the file name, or `section <id>`."""
    if unit == DYNAMIC_UNIT:
        return "HEARTBEAT.md (Dynamic Project Context)"
    if unit.startswith(FILE_PREFIX):
        name = unit[len(FILE_PREFIX) :]
        return name[: -len(HEAD_SUFFIX)] + " (kept head)" if name.endswith(HEAD_SUFFIX) else name
    return "section " + unit[len(SECTION_PREFIX) :]


def assigned_tier(unit: str, cache: CacheConfig) -> int:
    """The 0-based tier `prompt.cache.tiers` puts a unit in (unnamed: where `sections` is)."""
    return tier_index(unit.split(":", 1)[1], cache.tiers)


def tier_index(name: str, tiers: Sequence[Sequence[str]]) -> int:
    """The 0-based tier of a file name or section id in a tier list (unnamed: where `sections` is)."""
    fallback = 0
    for index, tier in enumerate(tiers):
        if name in tier:
            return index
        if SECTIONS in tier:
            fallback = index
    return fallback


def reached(cache: CacheConfig) -> frozenset[str]:
    """The volatile sections the last tier reaches (`dynamic_context`, or none)."""
    return frozenset({DYNAMIC_SECTION}) if cache.tiers and DYNAMIC_SECTION in cache.tiers[-1] else frozenset()


def named_heads(cache: CacheConfig) -> frozenset[str]:
    """The files whose kept head a tier names apart (`MEMORY.md#head` -> `MEMORY.md`)."""
    return frozenset(name[: -len(HEAD_SUFFIX)] for tier in cache.tiers for name in tier if name.endswith(HEAD_SUFFIX))


def order_files(files: Sequence[Any], cache: CacheConfig) -> list[Any]:
    """The project context's files (dicts with a `name`) by tier, then in load order."""
    return sorted(files, key=lambda f: assigned_tier(unit_name("file", f["name"]), cache))
