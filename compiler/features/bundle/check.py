"""Compare a built bundle with the one on disk and word the differences.

Stable parts are compared unit by unit (each section, each workspace file as the prompt holds it),
so a file counts as changed only when its text in the prompt changed. Variants whose stable parts
changed the same way (the same units, from the same text to the same text) are one group, whichever
stable parts they have: the group lists its variants, the cache tiers the change invalidated, the
sections and files that changed, and the first change as a short diff, once.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ... import tiers as cache_tiers
from ..._lib.fsutil import Refused
from ...emit import payloads
from ...model.units import FILE_PREFIX, HEAD_SUFFIX, SECTION_PREFIX
from ..cache import diff as cache_diff
from .matrix import ROW_KEYS, variant_id
from .model import FORMAT_VERSION, Built
from .store import MANIFEST, RECIPES_DIR, STABLE_DIR, read_stored, stored_hashes

SHOWN_VARIANTS = 3
"""Variant ids listed per group before `... and N more`."""
DIFF_LINES = 16
"""At most this many lines of the first change's diff are shown per group."""
Key = tuple
Change = tuple[tuple[str, str | None, str | None], ...]
"""The units that changed: (unit name, SHA-256 of its text in the bundle, now), None where absent."""


def verify(built: Built, out: Path) -> list[str]:
    """What differs between the bundle on disk and `built`, as report lines; empty when it is current."""
    path = out / MANIFEST
    if not path.is_file():
        return [f"{MANIFEST}: missing (no bundle at {out})"]
    try:
        text = read_stored(path).decode("utf-8")
        stored = json.loads(text)
        version = stored.get("format_version", stored.get("format"))
        if version != FORMAT_VERSION:
            return [f"{MANIFEST}: format {version!r}, this promptc writes format {FORMAT_VERSION}: rebuild the bundle"]
        rows = {_key(row): row for row in stored["variants"]}
    except (OSError, Refused, ValueError, KeyError, TypeError, AttributeError, RecursionError) as exc:
        return [f"{MANIFEST}: unreadable ({exc})"]
    same_tokens = stored.get("token_method") == built.manifest["token_method"]
    problems = _row_changes(rows, built, out, same_tokens=same_tokens)
    problems += _file_problems(out, built, rows, STABLE_DIR, "stable_sha256", built.stable)
    problems += _file_problems(out, built, rows, RECIPES_DIR, "recipe_sha256", built.recipes)
    # Token counts made another way (the `tokens` extra missing here) differ in every row, so
    # the whole-file comparison is only meaningful when the counting method is the same.
    if not problems and same_tokens and text != payloads.dumps(built.manifest):
        problems.append(f"{MANIFEST}: same variants, but the file differs (order or format)")
    return problems


def _key(row: Mapping[str, Any]) -> tuple:
    return tuple(row[key] for key in ROW_KEYS)


def _row_changes(stored: Mapping[Key, Mapping[str, Any]], built: Built, out: Path, *, same_tokens: bool) -> list[str]:
    expected = {_key(row): row for row in built.manifest["variants"]}
    with_model = len({key[ROW_KEYS.index("model")] for key in (*expected, *stored)}) > 1
    name = functools.partial(variant_id, with_model=with_model)
    lines = [f"variant {name(k)}: missing from the bundle" for k in expected if k not in stored]
    lines += [f"variant {name(k)}: in the bundle but not in the matrix" for k in stored if k not in expected]
    texts = _Texts(out, built)
    groups: dict[tuple, list[Key]] = {}
    for key in (k for k in expected if k in stored):
        old, new = stored[key], expected[key]
        if old.get("stable_sha256") != new["stable_sha256"]:
            group: tuple = ("stable", texts.change(old, new))
        elif old.get("volatile_sha256") != new["volatile_sha256"]:
            group = ("volatile",)
        elif old.get("recipe_sha256") != new["recipe_sha256"]:
            group = ("recipe",)
        elif any(old.get(f) != new[f] for f in new if f not in ROW_KEYS and (same_tokens or f != "tokens")):
            group = ("counts",)
        else:
            continue
        groups.setdefault(group, []).append(key)
    for group, keys in groups.items():
        lines += _group_report(group, keys, stored, expected, texts, name)
    return lines


class _Texts:
    """The stable texts of both sides and how they changed, each pair worked out once."""

    def __init__(self, out: Path, built: Built) -> None:
        self.out, self.built = out, built
        self.changes: dict[tuple, Change | None] = {}

    def stored(self, sha: Any) -> str | None:
        try:
            return read_stored(self.out / STABLE_DIR / f"{sha}.md").decode("utf-8")
        except (OSError, Refused, UnicodeDecodeError):
            return None

    def change(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> tuple:
        """What changed between two rows' stable parts, unit by unit; the pair of hashes when the
        bundle's text is not there to compare with."""
        pair = (old.get("stable_sha256"), new["stable_sha256"], json.dumps(old.get("tiers")), json.dumps(new["tiers"]))
        if pair not in self.changes:
            self.changes[pair] = self._units_changed(old, new)
        found = self.changes[pair]
        return ("unknown", pair[0], pair[1]) if found is None else found

    def _units_changed(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> Change | None:
        before_text = self.stored(old.get("stable_sha256"))
        if before_text is None or not isinstance(old.get("tiers"), list):
            return None
        try:
            before = cache_tiers.unit_texts(before_text, old["tiers"])
        except (KeyError, TypeError):
            return None
        after = cache_tiers.unit_texts(self.built.stable[new["stable_sha256"]], new["tiers"])
        names = [*after, *(n for n in before if n not in after)]
        return tuple((n, _sha(before.get(n)), _sha(after.get(n))) for n in names if before.get(n) != after.get(n)) or (
            ("(order)", None, None),
        )


def _sha(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


def _group_report(
    group: tuple,
    keys: list[Key],
    stored: Mapping[Key, Mapping[str, Any]],
    expected: Mapping[Key, Mapping[str, Any]],
    texts: _Texts,
    name: Callable[[Key], str],
) -> list[str]:
    pairs = list(dict.fromkeys((stored[k].get("stable_sha256"), expected[k]["stable_sha256"]) for k in keys))
    lines = [_head(group[0], len(keys), pairs), *(f"  {name(key)}" for key in keys[:SHOWN_VARIANTS])]
    if len(keys) > SHOWN_VARIANTS:
        lines.append(f"  ... and {len(keys) - SHOWN_VARIANTS} more")
    words = Counter(_tier_words(stored[k].get("tiers"), expected[k]["tiers"]) for k in keys)
    for said, count in words.items():
        if said is not None:
            lines.append(f"  {said}" + (f" ({count} {_variants(count)})" if len(words) > 1 else ""))
    if group[0] == "stable":
        old_sha, new_sha = pairs[0]
        lines += _what_changed(group[1], texts.stored(old_sha), texts.built.stable[new_sha], old_sha)
    return lines


def _variants(count: int) -> str:
    return "variant" if count == 1 else "variants"


def _head(kind: str, count: int, pairs: list[tuple[Any, str]]) -> str:
    many = f"{count} {_variants(count)}"
    if kind == "volatile":
        return f"volatile part changed in {many} (stable part unchanged):"
    if kind == "recipe":
        return f"the volatile part's recipe changed in {many} (texts unchanged: a template or input the turn reads):"
    if kind == "counts":
        return f"token or character counts differ in {many} (texts unchanged):"
    if len(pairs) == 1:
        return f"stable part changed in {many} ({str(pairs[0][0])[:12]} in the bundle, {pairs[0][1][:12]} now; cache invalidated):"
    return f"stable part changed in {many} ({len(pairs)} stable parts, each the same way; cache invalidated):"


def _tier_words(old: Any, new: list[dict[str, Any]]) -> str | None:
    """The tier changes in the words watch mode and `cache diff` use (None: the tiers are the same)."""
    if old == new:
        return None
    try:
        return cache_diff.summary(cache_diff.compare(old, new))
    except (KeyError, TypeError, AttributeError):
        return "cache tiers unreadable in the stored manifest"


def _what_changed(change: tuple, old_text: str | None, new_text: str, old_sha: Any) -> list[str]:
    """The sections and files whose text in the prompt changed, and the first change as a unified diff."""
    if change[0] == "unknown" or old_text is None:
        return [f"  (the bundle's {STABLE_DIR}/{old_sha}.md is not there to compare with)"]
    names = [unit for unit, _, _ in change]
    sections = [n.removeprefix(SECTION_PREFIX) for n in names if n.startswith(SECTION_PREFIX)]
    files = list(
        dict.fromkeys(n.removeprefix(FILE_PREFIX).removesuffix(HEAD_SUFFIX) for n in names if n.startswith(FILE_PREFIX))
    )
    lines = []
    if sections:
        lines.append(f"  sections changed: {', '.join(sections)}")
    if files:
        lines.append(f"  files changed: {', '.join(files)}")
    if not sections and not files:
        lines.append("  changed: the order of the parts (no part's text changed)")
    first = names[0]
    where = f" (section {sections[0]})" if first.startswith(SECTION_PREFIX) else f" ({files[0]})" if files else ""
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


def _file_problems(
    out: Path, built: Built, rows: Mapping[Key, Mapping[str, Any]], folder: str, field: str, files: Mapping[str, str]
) -> list[str]:
    """Stable (or recipe) files missing, stale or edited. A file the variant groups explain (the
    new one not written yet, the old one no longer used) is not listed again."""
    suffix = ".md" if folder == STABLE_DIR else ".json"
    explained = {row.get(field) for row in rows.values()} ^ {row[field] for row in built.manifest["variants"]}
    present = stored_hashes(out, folder)
    if folder == RECIPES_DIR and explained:  # changed recipes also change the parts they share
        explained |= present ^ set(files)
    problems = [f"{folder}/{sha}{suffix}: missing" for sha in files if sha not in present and sha not in explained]
    stale = sorted(present - set(files) - explained)
    problems += [f"{folder}/{sha}{suffix}: stale (no variant uses it)" for sha in stale]
    for sha in (s for s in files if s in present):
        try:
            data = read_stored(out / folder / f"{sha}{suffix}")
        except (OSError, Refused) as exc:
            problems.append(f"{folder}/{sha}{suffix}: unreadable ({exc})")
            continue
        if hashlib.sha256(data).hexdigest() != sha:
            problems.append(f"{folder}/{sha}{suffix}: content does not match its name")
    return problems
