"""`promptc bundle`: compile every variant of a matrix into `manifest.json` (hashes and sizes per
variant) plus `stable/<sha256>.md`, each distinct stable part stored once; or check a stored one."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...model.request import Request
from .build import build, token_method
from .check import verify
from .matrix import AXES, ROW_KEYS, load_matrix, row_key, variant_id
from .model import FORMAT, Built, BundleError, StableParts
from .store import MANIFEST, MARKER, STABLE_DIR, stored_hashes, write

__all__ = [
    "AXES",
    "FORMAT",
    "MANIFEST",
    "MARKER",
    "ROW_KEYS",
    "STABLE_DIR",
    "Built",
    "BundleError",
    "Outcome",
    "StableParts",
    "build",
    "load_matrix",
    "row_key",
    "run",
    "stored_hashes",
    "token_method",
    "variant_id",
    "verify",
    "write",
]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one `promptc bundle` run built, and what it found in or removed from `--out`."""

    variants: int
    """How many variants the matrix expands to."""
    distinct: int
    """How many distinct stable parts they share."""
    problems: tuple[str, ...] = ()
    """A check's report lines: what differs from the stored bundle; empty when it is current."""
    removed: int = 0
    """A write's count of stale stable files it removed."""


def run(matrix: Path, request: Request, out: Path, *, jobs: int = 1, check: bool = False) -> Outcome:
    """Build every variant of `matrix` over `request`'s run facts, then write the bundle to `out`,
    or with `check` compare it with the one stored there (writing nothing)."""
    variants = load_matrix(matrix, request.run)
    built = build(variants, request, jobs)
    if check:
        return Outcome(len(variants), len(built.stable), problems=tuple(verify(built, out)))
    return Outcome(len(variants), len(built.stable), removed=write(built, out))
