"""Building one bundle across machines: `bundle --shard I/N` builds the I-th of N contiguous slices
of the matrix into a directory of its own, and `bundle merge` combines the N shard directories into
the bundle a single build writes, byte for byte. Nothing here schedules machines: a CI matrix job
or a Kubernetes indexed Job runs one shard on each.

A shard's manifest carries a `shard` entry (its index and count, the matrix's size and a digest of
its variants), so a merge refuses shards of different matrices, a missing shard and a shard given
twice.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..._lib import fsutil
from ..._lib.errors import Location
from ...model.runfacts import RunFacts
from . import build
from .matrix import quoted, row_key
from .model import FORMAT_VERSION, Built, BundleError
from .reader import verified_text
from .store import MANIFEST, MARKER, MAX_FILE_BYTES, RECIPE_NAME, RECIPES_DIR, STABLE_DIR, has_marker

_SHARD = re.compile(r"([0-9]{1,9})/([0-9]{1,9})")


@dataclass(frozen=True, slots=True)
class Shard:
    """The I-th of N slices of a matrix."""

    index: int
    """1-based."""
    count: int
    """How many slices the matrix is cut into."""

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse(text: str) -> Shard:
    """`I/N` with 1 <= I <= N; ValueError saying what is wrong otherwise."""
    match = _SHARD.fullmatch(text)
    if match is None:
        raise ValueError(f"expected I/N (such as 2/3), got {quoted(text)}")
    index, count = int(match[1]), int(match[2])
    if not 1 <= index <= count:
        raise ValueError(f"expected I/N with 1 <= I <= N, got {text}")
    return Shard(index, count)


def piece(variants: Sequence[RunFacts], shard: Shard) -> list[RunFacts]:
    """The shard's contiguous slice of the variants: the first `len % N` slices one longer."""
    size, extra = divmod(len(variants), shard.count)
    start = (shard.index - 1) * size + min(shard.index - 1, extra)
    return list(variants[start : start + size + (shard.index <= extra)])


def entry(variants: Sequence[RunFacts], shard: Shard) -> dict[str, Any]:
    """The `shard` entry of a shard's manifest."""
    keys = json.dumps([list(row_key(run)) for run in variants], ensure_ascii=False)
    digest = hashlib.sha256(keys.encode("utf-8", "surrogatepass")).hexdigest()
    return {"index": shard.index, "count": shard.count, "variants": len(variants), "matrix_sha256": digest}


def merge(directories: Sequence[Path]) -> Built:
    """The bundle the shards in `directories` were cut from, every file checked against its hash."""
    shards = sorted((_read_shard(d) for d in directories), key=lambda s: s[1]["shard"]["index"])
    _check_complete(shards)
    rows = [row for _, manifest in shards for row in manifest["variants"]]
    stable: dict[str, str] = {}
    recipes: dict[str, str] = {}
    for directory, manifest in shards:
        for row in manifest["variants"]:
            name = f"{STABLE_DIR}/{row['stable_sha256']}.md"
            if row["stable_sha256"] not in stable:
                stable[row["stable_sha256"]] = verified_text(directory, name)
        folder = directory / RECIPES_DIR
        for path in sorted(folder.iterdir()) if folder.is_dir() else ():
            if RECIPE_NAME.fullmatch(path.name) and path.name[:-5] not in recipes:
                recipes[path.name[:-5]] = verified_text(directory, f"{RECIPES_DIR}/{path.name}")
        for row in manifest["variants"]:
            if row["recipe_sha256"] not in recipes:
                raise BundleError("missing", Location(str(directory / RECIPES_DIR / f"{row['recipe_sha256']}.json")))
    first = shards[0][1]
    return Built(build.manifest(rows, first["default_agent"]), stable, recipes)


def _read_shard(directory: Path) -> tuple[Path, dict[str, Any]]:
    path = directory / MANIFEST
    if not has_marker(directory):
        raise BundleError(f"not a promptc bundle shard (no {MARKER} marker)", Location(str(directory)))
    data = fsutil.read_input(path, BundleError, MAX_FILE_BYTES)
    try:
        manifest = json.loads(data.decode("utf-8"))
        shard = manifest["shard"]
        if manifest["format_version"] != FORMAT_VERSION:
            raise ValueError(
                f"format {quoted(manifest['format_version'])}, this promptc merges format {FORMAT_VERSION}"
            )
        for key in ("index", "count", "variants"):
            if isinstance(shard[key], bool) or not isinstance(shard[key], int):
                raise TypeError(f"shard {key} must be a whole number")
        for row in manifest["variants"]:
            for field in ("stable_sha256", "recipe_sha256"):
                if not isinstance(row[field], str) or not re.fullmatch(r"[0-9a-f]{64}", row[field]):
                    raise ValueError(f"{field} {quoted(row[field])} is not a SHA-256")
    except KeyError as exc:
        raise BundleError(
            f"not a shard's manifest (no {exc} entry): merge the directories `bundle --shard` wrote",
            Location(str(path)),
        ) from exc
    except (ValueError, TypeError, AttributeError, RecursionError) as exc:
        raise BundleError(f"not a shard's manifest ({exc})"[:300], Location(str(path))) from exc
    return directory, manifest


def _check_complete(shards: list[tuple[Path, dict[str, Any]]]) -> None:
    """The shards are all N of one matrix, each once, built the same way."""
    if not shards:
        raise BundleError("give the shard directories to merge")
    first_dir, first = shards[0]
    for directory, manifest in shards[1:]:
        for field in ("count", "variants", "matrix_sha256"):
            if manifest["shard"][field] != first["shard"][field]:
                raise BundleError(
                    f"a shard of another matrix than {first_dir} (its {field} differs)", Location(str(directory))
                )
        for field in ("token_method", "default_agent"):
            if manifest.get(field) != first.get(field):
                raise BundleError(f"built differently from {first_dir} (its {field} differs)", Location(str(directory)))
    count = first["shard"]["count"]
    for (before_dir, before), (directory, manifest) in itertools.pairwise(shards):
        if manifest["shard"]["index"] == before["shard"]["index"]:
            shown = f"{manifest['shard']['index']}/{count}"
            raise BundleError(f"shard {shown} given twice (also in {before_dir})", Location(str(directory)))
    indexes = {manifest["shard"]["index"] for _, manifest in shards}
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in indexes]
    if missing:
        raise BundleError(f"shards missing: {', '.join(missing)} (all {count} are needed)")
    stray = sorted(indexes - set(range(1, count + 1)))
    if stray:
        raise BundleError(f"shard {stray[0]}/{count} is not one of the {count}")
    held = sum(len(manifest["variants"]) for _, manifest in shards)
    if held != first["shard"]["variants"]:
        raise BundleError(f"the shards hold {held} variants, their matrix {first['shard']['variants']}")
