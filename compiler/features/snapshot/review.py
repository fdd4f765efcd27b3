"""The review report of a change, as data: per scenario that changed, which sections and files
changed, word-level diffs of its outputs, tokens before and after per part and cache tier, the
tiers the change invalidates and what it costs per 1,000 turns.

"Before" is the committed snapshot (its files; context.json tells its sections apart), "after"
the prompt the templates now make.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...inputs import pricing
from ...inputs.pricing import ModelPrice
from ...model.prompt import Prompt
from ...model.units import DYNAMIC_UNIT, JOIN, unit_separator
from ..cache import diff as cache_diff
from . import cost, ondisk, worddiff
from .drift import Check, Compiled, Failure
from .outputs import OUTPUT_NAMES
from .verdicts import parts

PART_FILES = {"stable": "stable.md", "volatile": "volatile.md", "developer": "developer.md", "turn": "turn.md"}
"""Each part of a prompt and the output file that holds it."""


@dataclass(frozen=True, slots=True)
class Count:
    """Tokens of one part or tier, before and after (None: not there, or not known)."""

    name: str
    """`stable part`, `cache tier 1 (1h)`."""
    before: int | None
    after: int | None


@dataclass(frozen=True, slots=True)
class Cost:
    """What serving the scenario costs per cost.TURNS turns, in base input tokens (and, through
    `money`, in the price table's currency)."""

    rules: str
    """The cache rule set it is priced by."""
    assumed: bool
    """The provider has no rule set of its own: priced as Anthropic."""
    cached: bool
    """Whether the stable part is cached after the change."""
    before: float | None
    """Before the change (None: the scenario is new)."""
    after: float
    """After it, including the one rewrite of the invalidated tiers."""
    rewrite: float
    """The part of `after` that writes the invalidated tiers again, once."""
    price: ModelPrice
    """The scenario's model's row of the price table, which turns units into money."""
    currency: str
    """The price table's currency."""
    as_of: str
    """The price table's date."""

    def money(self, units: float | None) -> float | None:
        """`units` (base input tokens) in the price table's currency at the model's input price."""
        return None if units is None else pricing.money(units, self.price)


@dataclass(frozen=True, slots=True)
class FileChange:
    """One output file that differs."""

    name: str
    """`stable.md`, ..."""
    state: str
    """`changed`, `new` (missing on disk) or `removed` (stale on disk)."""
    hunks: tuple[worddiff.Hunk, ...] = ()
    """The word-level diff of a changed file."""


@dataclass(frozen=True, slots=True)
class ScenarioReview:
    """One scenario that changed, or whose expectations fail."""

    name: str
    sections: tuple[str, ...]
    """`safety (edited)`, `heartbeats (added)`, ..."""
    files: tuple[str, ...]
    """`USER.md (edited, 128 -> 150 characters)`, `MEMORY.md (ok -> filtered)`, ..."""
    counts: tuple[Count, ...]
    """Per part, then per cache tier."""
    invalidated: tuple[int, ...]
    """The cache tiers a cache holding the committed prompt misses (all, for a new scenario)."""
    tiers: tuple[str, ...]
    """One line per invalidated cache tier, saying by what."""
    cost: Cost
    changes: tuple[FileChange, ...]
    failures: tuple[Failure, ...]
    method: str
    """How tokens were counted."""


@dataclass(frozen=True, slots=True)
class Review:
    """The whole report."""

    scenarios: tuple[ScenarioReview, ...]
    """The scenarios that changed or fail an expectation."""
    unchanged: tuple[str, ...]
    """The others, by name."""
    stale: tuple[str, ...]
    """Stale outputs outside any scenario (a directory that lost its scenario.yaml)."""
    expectations: int
    """How many expectations were checked."""
    failures: int
    """How many failed."""


def build(root: Path, result: Check) -> Review:
    """The review of what `result` found in the snapshots at `root`."""
    drift = result.drift
    names = {c.scenario.name for c in result.compiled}
    touched = {rel.rpartition("/")[0] for rel in (*drift.outdated, *drift.stale)}
    reviews, unchanged = [], []
    for one in result.compiled:
        failures = tuple(f for f in result.failures if f.scenario == one.scenario.name)
        if one.scenario.name in touched or failures:
            reviews.append(_scenario(root, one, result, failures))
        else:
            unchanged.append(one.scenario.name)
    stale = tuple(rel for rel in drift.stale if rel.rpartition("/")[0] not in names)
    return Review(tuple(reviews), tuple(unchanged), stale, result.expectations, len(result.failures))


def _scenario(root: Path, one: Compiled, result: Check, failures: tuple[Failure, ...]) -> ScenarioReview:
    name, prompt = one.scenario.name, one.prompt
    before = _committed(root, name, one.outputs, result)
    after = dict(one.outputs)
    old_stable = _part(before.get("stable.md"))
    invalidated = _invalidated(old_stable, prompt)
    changes = tuple(_file_change(n, before.get(n), after.get(n)) for n in OUTPUT_NAMES if before.get(n) != after.get(n))
    return ScenarioReview(
        name,
        _sections(before, prompt),
        _files(before, after, prompt),
        _parts(before, prompt) + _tiers(old_stable, prompt),
        invalidated,
        result.drift.tiers.get(f"{name}/stable.md", ()),
        _cost(before, prompt, old_stable, invalidated),
        changes,
        failures,
        cost.method(prompt.model),
    )


def _committed(root: Path, name: str, outputs: Mapping[str, str], result: Check) -> dict[str, str]:
    """The scenario's files as committed: drifted ones as read, missing ones absent, stale ones
    read from disk, the rest equal to the generated ones."""
    drift = result.drift
    drifted = {rel.rpartition("/")[2]: old for rel, old, _ in drift.drifted if rel.rpartition("/")[0] == name}
    missing = {rel.rpartition("/")[2] for rel in drift.missing if rel.rpartition("/")[0] == name}
    files = {n: drifted.get(n, text) for n, text in outputs.items() if n not in missing}
    for rel in drift.stale:
        if rel.rpartition("/")[0] == name:
            files[rel.rpartition("/")[2]] = ondisk.read_committed(root, rel).decode("utf-8", errors="replace")
    return files


def _part(text: str | None) -> str | None:
    """A part's text from its output file (which ends with a line break when not empty)."""
    return None if text is None else text.removesuffix("\n")


def _file_change(name: str, before: str | None, after: str | None) -> FileChange:
    if before is None:
        return FileChange(name, "new")
    if after is None:
        return FileChange(name, "removed")
    return FileChange(name, "changed", worddiff.hunks(before, after))


def _listed(files: Mapping[str, str], key: str, fields: Mapping[str, type]) -> list[dict[str, Any]]:
    """The entries of one list of a context.json that have the fields (and types) asked for."""
    try:
        data = json.loads(files.get("context.json") or "")
    except ValueError:
        return []
    entries = data.get(key) if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return []
    return [e for e in entries if isinstance(e, dict) and all(isinstance(e.get(f), t) for f, t in fields.items())]


SECTION_FIELDS = {"id": str, "side": str, "chars": int}
FILE_FIELDS = {"name": str, "status": str, "injected_chars": int}


def _section_texts(files: Mapping[str, str]) -> dict[str, str] | None:
    """Each section's text, cut out of stable.md and volatile.md by context.json's sizes (None when
    they do not add up)."""
    found: dict[str, str] = {}
    listed = _listed(files, "sections", SECTION_FIELDS)
    for side in ("stable", "volatile"):
        text, position, pieces = _part(files.get(PART_FILES[side])) or "", 0, []
        for entry in (s for s in listed if s["side"] == side):
            pieces.append((entry["id"], text[position : position + entry["chars"]]))
            position += entry["chars"] + len(JOIN)
        if JOIN.join(piece for _, piece in pieces) != text:
            return None
        found.update(pieces)
    return found


def _sections(before: Mapping[str, str], prompt: Prompt) -> tuple[str, ...]:
    old, new = _section_texts(before), {s.id: s.text for s in prompt.sections}
    if old is None:
        return ("not known: the committed context.json does not match stable.md and volatile.md",)
    found = [f"{sid} (added)" if sid not in old else f"{sid} (edited)" for sid in new if old.get(sid) != new[sid]]
    return tuple(found + [f"{sid} (removed)" for sid in old if sid not in new])


def _files(before: Mapping[str, str], after: Mapping[str, str], prompt: Prompt) -> tuple[str, ...]:
    old = {f["name"]: f for f in _listed(before, "files", FILE_FIELDS)}
    new = {f["name"]: f for f in _listed(after, "files", FILE_FIELDS)}
    old_texts = "\n".join(before.get(name, "") for name in PART_FILES.values())
    new_texts = "\n".join(after.get(name, "") for name in PART_FILES.values())
    edited = {f.name for f in prompt.files if f.text and f.text in new_texts and f.text not in old_texts}
    found = []
    for name, entry in new.items():
        was = old.get(name)
        if was is None:
            found.append(f"{name} (added, {entry['status']})")
        elif was["status"] != entry["status"]:
            found.append(f"{name} ({was['status']} -> {entry['status']})")
        elif name in edited or was["injected_chars"] != entry["injected_chars"]:
            found.append(f"{name} (edited, {was['injected_chars']:,} -> {entry['injected_chars']:,} characters)")
    return tuple(found + [f"{name} (removed)" for name in old if name not in new])


def _parts(before: Mapping[str, str], prompt: Prompt) -> tuple[Count, ...]:
    counted = []
    for part, text in parts(prompt).items():
        old = _part(before.get(PART_FILES[part]))
        mine = None if old is None else cost.count(old, prompt.model)
        counted.append(Count(f"{part} part", mine, cost.count(text, prompt.model)))
    return tuple(counted)


def _tiers(old_stable: str | None, prompt: Prompt) -> tuple[Count, ...]:
    olds = before_tiers(old_stable, prompt) if old_stable is not None else [None] * len(prompt.tiers)
    return tuple(
        Count(
            f"cache tier {tier.index} ({tier.ttl})",
            None if old is None else cost.count(old, prompt.model),
            cost.count(tier.text, prompt.model),
        )
        for tier, old in zip(prompt.tiers, olds)
    )


def before_tiers(old_stable: str, prompt: Prompt) -> list[str | None]:
    """The older stable text cut where the newer prompt's tiers are cut: a tier ends where its
    prefix is unchanged, or where the next tier's first unit (found unchanged) starts. A tier
    whose ends cannot be found, or that reaches below the boundary, is None."""
    old = old_stable + JOIN if old_stable else ""
    texts = {u.name: u.text for u in prompt.units}
    bounds: list[int | None] = [0]
    prefix = ""
    for position, tier in enumerate(prompt.tiers[:-1]):
        prefix += tier.text
        if old.startswith(prefix):
            bounds.append(len(prefix))
            continue
        needle = unit_separator(tier.units[-1]) + texts[prompt.tiers[position + 1].units[0]]
        at = old.find(needle, bounds[-1] or 0)
        bounds.append(at + len(unit_separator(tier.units[-1])) if at >= 0 else None)
    bounds.append(len(old))
    found: list[str | None] = []
    for tier, start, end in zip(prompt.tiers, bounds, bounds[1:]):
        known = start is not None and end is not None and DYNAMIC_UNIT not in tier.units
        found.append(old[start:end] if known else None)
    return found


def _cost(before: Mapping[str, str], prompt: Prompt, old_stable: str | None, invalidated: Sequence[int]) -> Cost:
    rules, assumed = cost.rules_for(prompt.model)
    stable, volatile = cost.count(prompt.stable, prompt.model), cost.count(prompt.volatile, prompt.model)
    after = cost.Side(stable, volatile, cost.cacheable(stable, prompt.model, prompt.breakpoints))
    priced_before = None
    if old_stable is not None:
        old_volatile = _part(before.get("volatile.md"))
        count_before = cost.count(old_stable, prompt.model)
        volatile_before = volatile if old_volatile is None else cost.count(old_volatile, prompt.model)
        cached = cost.cacheable(count_before, prompt.model, prompt.breakpoints)
        priced_before = cost.per_turns(cost.Side(count_before, volatile_before, cached), rules)
    written = [(cost.count(t.text, prompt.model), t.ttl) for t in prompt.tiers if t.index in invalidated]
    rewrite = cost.rewrite(written, rules, after.cached)
    priced_after = cost.per_turns(after, rules) + rewrite
    price = rules.price(prompt.model)
    return Cost(
        rules.name, assumed, after.cached, priced_before, priced_after, rewrite, price, rules.currency, rules.as_of
    )


def _invalidated(old_stable: str | None, prompt: Prompt) -> tuple[int, ...]:
    """The tiers a cache holding the older prompt misses: every tier of a new scenario."""
    if old_stable is None:
        return tuple(t.index for t in prompt.tiers)
    return tuple(c.index for c in cache_diff.compare_text(old_stable, prompt) if c.changed)
