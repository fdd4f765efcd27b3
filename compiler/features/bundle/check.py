"""Compare a built bundle with the one on disk and word the differences: variants grouped by
how their stable part changed, with the sections, files and first lines that changed."""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...emit import payloads
from ..cache import diff as cache_diff
from .matrix import ROW_KEYS, variant_id
from .model import Built, StableParts
from .store import MANIFEST, STABLE_DIR, stored_hashes

SHOWN_VARIANTS = 3
"""Variant ids listed per group before `... and N more`."""
DIFF_LINES = 16
"""At most this many lines of the first change's diff are shown per group."""


def verify(built: Built, out: Path) -> list[str]:
    """What differs between the bundle on disk and `built`, as report lines; empty when it is
    current. Variants whose stable part changed the same way are one group, which names the
    sections and files that changed and shows the first change as a short diff."""
    path = out / MANIFEST
    if not path.is_file():
        return [f"{MANIFEST}: missing (no bundle at {out})"]
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        rows = {_stored_key(row): row for row in stored["variants"]}
    except (ValueError, KeyError, TypeError) as exc:
        return [f"{MANIFEST}: unreadable ({exc})"]
    same_tokens = stored.get("token_method") == built.manifest["token_method"]
    problems = _row_changes(rows, built, out, same_tokens=same_tokens)
    # The groups above explain a new stable file not written yet and an old one no longer
    # used; what is listed here is a file that is wrong on its own.
    explained = {row.get("stable_sha256") for row in rows.values()} ^ {
        row["stable_sha256"] for row in built.manifest["variants"]
    }
    problems += _stable_file_problems(out, built, explained)
    # Token counts made another way (the `tokens` extra missing here) differ in every row, so
    # the whole-file comparison is only meaningful when the counting method is the same.
    if not problems and same_tokens and path.read_text(encoding="utf-8") != payloads.dumps(built.manifest):
        problems.append(f"{MANIFEST}: same variants, but the file differs (order or format)")
    return problems


def _stored_key(row: Mapping[str, Any]) -> tuple:
    return tuple(row[key] for key in ROW_KEYS)


def _row_changes(stored: Mapping[tuple, Mapping[str, Any]], built: Built, out: Path, *, same_tokens: bool) -> list[str]:
    expected = {_stored_key(row): row for row in built.manifest["variants"]}
    with_model = len({key[ROW_KEYS.index("model")] for key in (*expected, *stored)}) > 1
    name = functools.partial(variant_id, with_model=with_model)
    lines = [f"variant {name(k)}: missing from the bundle" for k in expected if k not in stored]
    lines += [f"variant {name(k)}: in the bundle but not in the matrix" for k in stored if k not in expected]
    groups: dict[tuple, list[tuple]] = {}
    for key in (k for k in expected if k in stored):
        old, new = stored[key], expected[key]
        if old.get("stable_sha256") != new["stable_sha256"]:
            groups.setdefault(("stable", old.get("stable_sha256"), new["stable_sha256"]), []).append(key)
        elif old.get("volatile_sha256") != new["volatile_sha256"]:
            groups.setdefault(("volatile",), []).append(key)
        elif any(old.get(f) != new[f] for f in new if f not in ROW_KEYS and (same_tokens or f != "tokens")):
            groups.setdefault(("counts",), []).append(key)
    for group, keys in groups.items():
        old_tiers, new_tiers = stored[keys[0]].get("tiers"), expected[keys[0]]["tiers"]
        tiers = _tier_words(old_tiers, new_tiers) if old_tiers != new_tiers else None
        lines += _group_report(group, keys, built, out, name, tiers)
    return lines


def _tier_words(old: Any, new: list[dict[str, Any]]) -> str:
    """The tier changes in the words watch mode and `cache diff` use."""
    if not isinstance(old, list):
        return "cache tiers added (the bundle was built before them)"
    try:
        return cache_diff.summary(cache_diff.compare(old, new))
    except (KeyError, TypeError):
        return "cache tiers unreadable in the stored manifest"


def _group_report(group: tuple, keys: list[tuple], built: Built, out: Path, name: Any, tiers: str | None) -> list[str]:
    count = f"{len(keys)} {'variant' if len(keys) == 1 else 'variants'}"
    if group[0] == "volatile":
        head = f"volatile part changed in {count} (stable part unchanged):"
    elif group[0] == "counts":
        head = f"token or character counts differ in {count} (texts unchanged):"
    else:
        head = f"stable part changed in {count} ({str(group[1])[:12]} in the bundle, {group[2][:12]} now; cache invalidated):"
    lines = [head, *(f"  {name(key)}" for key in keys[:SHOWN_VARIANTS])]
    if len(keys) > SHOWN_VARIANTS:
        lines.append(f"  ... and {len(keys) - SHOWN_VARIANTS} more")
    if tiers is not None:
        lines.append(f"  {tiers}")
    if group[0] == "stable":
        lines += _what_changed(out / STABLE_DIR / f"{group[1]}.md", built.stable[group[2]], built.parts.get(group[2]))
    return lines


def _what_changed(old_path: Path, new_text: str, parts: StableParts | None) -> list[str]:
    """The sections and files whose text is not in the bundle's stable part, and the first
    change as a unified diff."""
    try:
        old_text = old_path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return [f"  (the bundle's {STABLE_DIR}/{old_path.name} is not there to compare with)"]
    sections = [sid for sid, text in (parts.sections if parts else ()) if text not in old_text]
    files = [fname for fname, text in (parts.files if parts else ()) if text not in old_text]
    lines = [f"  sections changed: {', '.join(sections) if sections else 'none (text was removed)'}"]
    if files:
        lines.append(f"  files changed: {', '.join(files)}")
    where = f" (section {sections[0]})" if sections else ""
    lines.append(f"  first change{where}:")
    return lines + [f"    {line}" for line in _first_hunk(old_text, new_text)]


def _first_hunk(old_text: str, new_text: str) -> list[str]:
    diff = difflib.unified_diff(old_text.splitlines(), new_text.splitlines(), "in the bundle", "now", n=2, lineterm="")
    lines: list[str] = []
    for line in diff:
        if line.startswith("@@") and any(seen.startswith("@@") for seen in lines):
            break
        lines.append(line)
    return lines[:DIFF_LINES] + (["..."] if len(lines) > DIFF_LINES else [])


def _stable_file_problems(out: Path, built: Built, explained: set[Any]) -> list[str]:
    present = stored_hashes(out)
    problems = [
        f"{STABLE_DIR}/{sha}.md: missing" for sha in built.stable if sha not in present and sha not in explained
    ]
    stale = sorted(present - set(built.stable) - explained)
    problems += [f"{STABLE_DIR}/{sha}.md: stale (no variant uses it)" for sha in stale]
    for sha in (s for s in built.stable if s in present):
        if hashlib.sha256((out / STABLE_DIR / f"{sha}.md").read_bytes()).hexdigest() != sha:
            problems.append(f"{STABLE_DIR}/{sha}.md: content does not match its name")
    return problems
