"""Read a matrix file and expand it into the run facts of every variant; name a variant."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..._lib.errors import Location
from ...inputs import runfacts, yamlsrc
from ...model.runfacts import RunFacts
from .model import BundleError

AXES: tuple[tuple[str, str], ...] = (
    ("agents", "agent"),
    ("sessions", "session"),
    ("modes", "mode"),
    ("providers", "provider"),
    ("channels", "channel"),
    ("chat_types", "chat_type"),
)
"""Matrix keys and the run fact each one sets, outermost loop first. The chat type is an axis
of its own because it can change the stable part: MEMORY.md stays out of group chats unless
`agents.defaults.memoryInGroups` is set."""
ROW_KEYS = ("agent", "session", "mode", "provider", "model", "channel", "chat_type")
"""What identifies a variant in the manifest."""
ID_NAMES = {"chat_type": "chat"}
"""How a variant id names a row key (`chat=direct`)."""


def load_matrix(path: Path, base: RunFacts) -> list[RunFacts]:
    """The run facts of every variant: the product of the matrix axes applied over `base`.

    Each axis is a list whose entries are a plain value (`telegram`) or a mapping of run facts
    that names the axis' own fact (`{provider: openai, model: openai/gpt-5.5}`). An absent
    axis keeps the base value.
    """
    located = yamlsrc.load_file(path, BundleError)
    data = located.value if located.value is not None else {}
    if not isinstance(data, dict):
        raise BundleError("a matrix must be a mapping of axis lists", located.where(()))
    for key in data:
        if key not in dict(AXES):
            raise BundleError(f"unknown matrix key '{key}' (expected {', '.join(dict(AXES))})", located.where((key,)))
    axes = [_axis(data, key, fact, located) for key, fact in AXES]
    variants = [_apply(base, combo) for combo in itertools.product(*axes)]
    _check_distinct(variants, Location(str(path)))
    return variants


def _axis(data: dict, key: str, fact: str, located: yamlsrc.Located) -> list[dict[str, Any]]:
    if key not in data:
        return [{}]
    entries = data[key]
    if not isinstance(entries, list) or not entries:
        raise BundleError(f"'{key}' must be a non-empty list", located.where((key,)))
    return [_entry(entry, fact, located, (key, index)) for index, entry in enumerate(entries)]


def _entry(entry: Any, fact: str, located: yamlsrc.Located, where: tuple) -> dict[str, Any]:
    """One axis entry as converted run facts."""
    raw = entry if isinstance(entry, dict) else {fact: entry}
    if fact not in raw:
        raise BundleError(f"a mapping entry here must set '{fact}'", located.where(where))
    facts = {}
    for key, value in raw.items():
        if key not in runfacts.FIELD_NAMES:
            raise BundleError(f"unknown run-fact key '{key}'", located.where(where + (key,)))
        try:
            facts[key] = runfacts.converter(key)(value)
        except ValueError as exc:
            raise BundleError(f"{key}: {exc}", located.where(where)) from exc
    return facts


def _apply(base: RunFacts, combo: Sequence[dict[str, Any]]) -> RunFacts:
    facts: dict[str, Any] = {}
    for entry in combo:
        facts.update(entry)
    return dataclasses.replace(base, **facts)


def _check_distinct(variants: Sequence[RunFacts], where: Location) -> None:
    seen: set[tuple] = set()
    for run in variants:
        key = row_key(run)
        if key in seen:
            raise BundleError(f"two variants are identical ({variant_id(key)}); make the matrix entries differ", where)
        seen.add(key)


def row_key(run: RunFacts) -> tuple[str | None, ...]:
    """The values that identify a variant in the manifest (the mode is the effective one)."""
    values = {**{key: getattr(run, key) for key in ROW_KEYS if key != "mode"}, "mode": run.effective_mode}
    return tuple(values[key] for key in ROW_KEYS)


def variant_id(key: Sequence[Any], with_model: bool = True) -> str:
    """`agent=main session=main mode=full provider=anthropic channel=telegram chat=direct`: the
    row's set values by name; the model only when `with_model` (the matrix varies it)."""
    shown = [
        (name, value) for name, value in zip(ROW_KEYS, key) if value is not None and (with_model or name != "model")
    ]
    return " ".join(f"{ID_NAMES.get(name, name)}={value}" for name, value in shown)
