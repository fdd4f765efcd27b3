"""Read a matrix file and expand it into the run facts of every variant; name a variant.

The number of variants is the product of the axes' lengths, known before anything is expanded:
past `max_variants` (a matrix key, default `MAX_VARIANTS`) the matrix is refused before a single
variant is built.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
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
    ("models", "model"),
    ("channels", "channel"),
    ("chat_types", "chat_type"),
)
"""Matrix keys and the run fact each one sets, outermost loop first. The chat type is an axis
of its own because it can change the stable part: MEMORY.md stays out of group chats unless
`agents.defaults.memoryInGroups` is set."""
LIMIT_KEY = "max_variants"
"""The matrix key that raises (or lowers) the cap on the number of variants."""
MAX_VARIANTS = 10_000
"""Variants a matrix may expand to unless its `max_variants` key says otherwise; the count is
the product of the axes' lengths, known before any variant is built."""
ROW_KEYS = ("agent", "session", "mode", "provider", "model", "channel", "chat_type")
"""What identifies a variant in the manifest."""
ID_NAMES = {"chat_type": "chat"}
"""How a variant id names a row key (`chat=direct`)."""
SHOWN_CHARS = 60
"""A user's value quoted in a message is cut after this many characters."""


@dataclass(frozen=True, slots=True)
class Matrix:
    """A matrix file read and checked, not yet expanded."""

    path: Path
    """The matrix file."""
    axes: tuple[tuple[str, tuple[dict[str, Any], ...]], ...]
    """(matrix key, its entries as run facts) for each axis the file lists, in loop order."""

    @property
    def count(self) -> int:
        """How many variants the matrix expands to."""
        return math.prod(len(entries) for _, entries in self.axes)

    def describe(self) -> str:
        """`4 agents x 3 channels x 1 model` (`no axes` for an empty matrix)."""
        return _sizes([(key, len(entries)) for key, entries in self.axes]) or "no axes"


def read_matrix(path: Path) -> Matrix:
    """The matrix file's axes, each entry checked; refused when it would expand past its cap."""
    located = yamlsrc.load_file(path, BundleError)
    data = located.value if located.value is not None else {}
    if not isinstance(data, dict):
        raise BundleError("a matrix must be a mapping of axis lists", located.where(()))
    for key in data:
        if key not in dict(AXES) and key != LIMIT_KEY:
            expected = ", ".join([*dict(AXES), LIMIT_KEY])
            raise BundleError(f"unknown matrix key {quoted(key)} (expected {expected})", located.where((key,)))
    limit = _limit(data, located)
    lengths = [(key, data[key]) for key, _ in AXES if key in data]
    for key, entries in lengths:
        if not isinstance(entries, list) or not entries:
            raise BundleError(f"'{key}' must be a non-empty list", located.where((key,)))
    count = math.prod(len(entries) for _, entries in lengths)
    if count > limit:
        shown = _sizes([(key, len(entries)) for key, entries in lengths])
        raise BundleError(
            f"the matrix expands to {count:,} variants ({shown}), more than the limit of {limit:,}:"
            f" list fewer entries, or raise the limit with the matrix key {LIMIT_KEY}",
            located.where(()),
        )
    axes = tuple((key, _axis(data[key], fact, located, key)) for key, fact in AXES if key in data)
    return Matrix(path, axes)


def _sizes(axes: Sequence[tuple[str, int]]) -> str:
    return " x ".join(f"{size:,} {key if size != 1 else key.removesuffix('s')}" for key, size in axes)


def _limit(data: dict, located: yamlsrc.Located) -> int:
    value = data.get(LIMIT_KEY, MAX_VARIANTS)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise BundleError(
            f"{LIMIT_KEY} must be a whole number of at least 1, got {quoted(value)}", located.where((LIMIT_KEY,))
        )
    return value


def expand(matrix: Matrix, base: RunFacts) -> list[RunFacts]:
    """The run facts of every variant: the product of the axes applied over `base` (an absent
    axis keeps the base value); two identical variants are refused."""
    variants = [_apply(base, combo) for combo in itertools.product(*(entries for _, entries in matrix.axes))]
    _check_distinct(variants, Location(str(matrix.path)))
    return variants


def load_matrix(path: Path, base: RunFacts) -> list[RunFacts]:
    """The run facts of every variant of the matrix file at `path`, over `base`.

    Each axis is a list whose entries are a plain value (`telegram`) or a mapping of run facts
    that names the axis' own fact (`{provider: openai, model: openai/gpt-5.5}`).
    """
    return expand(read_matrix(path), base)


def _axis(entries: list, fact: str, located: yamlsrc.Located, key: str) -> tuple[dict[str, Any], ...]:
    return tuple(_entry(entry, fact, located, (key, index)) for index, entry in enumerate(entries))


def _entry(entry: Any, fact: str, located: yamlsrc.Located, where: tuple) -> dict[str, Any]:
    """One axis entry as converted run facts."""
    raw = entry if isinstance(entry, dict) else {fact: entry}
    if fact not in raw:
        raise BundleError(f"a mapping entry here must set '{fact}'", located.where(where))
    facts = {}
    for key, value in raw.items():
        if key not in runfacts.FIELD_NAMES:
            raise BundleError(f"unknown run-fact key {quoted(key)}", located.where(where + (key,)))
        try:
            facts[key] = runfacts.converter(key)(value)
        except ValueError as exc:
            raise BundleError(f"{key}: {_cut(str(exc))}", located.where(where)) from exc
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
    row's set values by name (each cut short); the model only when `with_model` (the matrix varies it)."""
    shown = [
        (name, value) for name, value in zip(ROW_KEYS, key) if value is not None and (with_model or name != "model")
    ]
    return " ".join(f"{ID_NAMES.get(name, name)}={_cut(str(value))}" for name, value in shown)


def quoted(value: Any) -> str:
    """A user's value as a message quotes it: its repr, cut after `SHOWN_CHARS` characters."""
    return _cut(repr(value))


def _cut(text: str) -> str:
    if len(text) <= SHOWN_CHARS:
        return text
    return f"{text[:SHOWN_CHARS]}... ({len(text):,} characters)"
