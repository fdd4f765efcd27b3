"""`promptc bundle`: compile every variant of a matrix into `manifest.json` (hashes, sizes and cache
tiers per variant), `stable/<sha256>.md` (each distinct stable part once) and `recipes/` (what each
variant's volatile part is rendered from); check a stored bundle; build one in shards and merge
them; serve turns from one (`Bundle`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...model.request import Request
from ...model.runfacts import RunFacts
from . import shard as shards
from .build import build, token_method
from .check import verify
from .matrix import (
    AXES,
    LIMIT_KEY,
    MAX_VARIANTS,
    ROW_KEYS,
    Matrix,
    expand,
    load_matrix,
    read_matrix,
    row_key,
    variant_id,
)
from .model import FORMAT_VERSION, Built, BundleError
from .reader import Bundle, Variant
from .schema import manifest_schema
from .shard import Shard
from .store import MANIFEST, MARKER, RECIPES_DIR, STABLE_DIR, stored_hashes, write

__all__ = [
    "AXES",
    "FORMAT_VERSION",
    "LIMIT_KEY",
    "MANIFEST",
    "MARKER",
    "MAX_VARIANTS",
    "RECIPES_DIR",
    "ROW_KEYS",
    "STABLE_DIR",
    "Built",
    "Bundle",
    "BundleError",
    "Matrix",
    "Outcome",
    "Plan",
    "Shard",
    "Variant",
    "build",
    "expand",
    "load_matrix",
    "manifest_schema",
    "merge",
    "plan",
    "read_matrix",
    "row_key",
    "run",
    "stored_hashes",
    "token_method",
    "variant_id",
    "verify",
    "write",
]


@dataclass(frozen=True, slots=True)
class Plan:
    """What one `promptc bundle` run will build, known before anything is compiled."""

    matrix: Matrix
    """The matrix file, read and checked."""
    variants: tuple[RunFacts, ...]
    """Every variant of the matrix, in matrix order."""
    shard: Shard | None = None
    """The slice this run builds, or None for all of them."""

    @property
    def selected(self) -> tuple[RunFacts, ...]:
        """The variants this run builds: the shard's slice, or all."""
        return self.variants if self.shard is None else tuple(shards.piece(self.variants, self.shard))


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one `promptc bundle` run built, and what it found in or removed from `--out`."""

    variants: int
    """How many variants it built."""
    distinct: int
    """How many distinct stable parts they share."""
    problems: tuple[str, ...] = ()
    """A check's report lines: what differs from the stored bundle; empty when it is current."""
    removed: int = 0
    """A write's count of stale stable files it removed."""


def plan(matrix: Path, request: Request, shard: Shard | None = None) -> Plan:
    """The variants `matrix` expands to over `request`'s run facts (refused past its cap)."""
    read = read_matrix(matrix)
    return Plan(read, tuple(expand(read, request.run)), shard)


def run(planned: Plan, request: Request, out: Path, *, jobs: int = 1, check: bool = False) -> Outcome:
    """Build the planned variants, then write the bundle (or the shard) to `out`, or with `check`
    compare it with the one stored there (writing nothing)."""
    built = build(planned.selected, request, jobs)
    if planned.shard is not None:
        entry = shards.entry(planned.variants, planned.shard)
        built = Built(
            {**_without_rows(built), "shard": entry, "variants": built.manifest["variants"]},
            built.stable,
            built.recipes,
        )
    count = len(planned.selected)
    if check:
        return Outcome(count, len(built.stable), problems=tuple(verify(built, out)))
    return Outcome(count, len(built.stable), removed=write(built, out))


def merge(directories: list[Path], out: Path) -> Outcome:
    """Combine the shard directories into the bundle one build writes, at `out`."""
    built = shards.merge(directories)
    return Outcome(len(built.manifest["variants"]), len(built.stable), removed=write(built, out))


def _without_rows(built: Built) -> dict:
    return {key: value for key, value in built.manifest.items() if key != "variants"}
