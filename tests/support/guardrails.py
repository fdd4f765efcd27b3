"""Helpers shared by the guard-rail tests (snapshots, bundles, lint, watch): an edited copy of a
built-in section, and the committed snapshot scenarios and their outputs."""

from __future__ import annotations

from pathlib import Path

import yaml

from promptc.features import snapshot

from .paths import REPO, SNAPSHOTS

SAFETY = REPO / "templates" / "sections" / "safety.md.j2"
"""The built-in safety section: stable, in full and minimal mode, so it is in most prompts."""
SAFETY_EDIT = ("Do not seek power,", "Do not seek influence,")
"""One word of the safety section changed: every prompt holding that section changes its stable part."""


def replace_in(path: Path, old: str, new: str) -> None:
    """Replace `old` (which must be there) by `new` in a UTF-8 text file."""
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def copy_safety(directory: Path) -> Path:
    """A copy of the built-in safety section in `directory` (created if needed)."""
    directory.mkdir(parents=True, exist_ok=True)
    copy = directory / SAFETY.name
    copy.write_text(SAFETY.read_text(encoding="utf-8"), encoding="utf-8")
    return copy


def edited_safety_dir(directory: Path) -> Path:
    """`directory` as a user template dir whose safety section differs from the built-in one
    by one word, so every prompt with that section changes its stable part."""
    replace_in(copy_safety(directory), *SAFETY_EDIT)
    return directory


SCENARIOS = sorted(path.parent.name for path in SNAPSHOTS.glob("*/scenario.yaml"))
"""The committed snapshot scenarios, by name."""


def snapshot_outputs(root: Path) -> dict[str, bytes]:
    """Every expected output of the scenarios under a snapshots dir (`scenario/file` -> bytes)."""
    files = sorted(root.glob("*/*"))
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in files if p.name in snapshot.OUTPUT_NAMES}


def expectations_in(root: Path) -> int:
    """How many expectations the scenarios under a snapshots dir declare, counted from their YAML:
    one per listed text, id or name, per token limit (a null tier limit is none) and per
    `same_tier_as`."""
    total = 0
    for path in sorted(root.glob("*/scenario.yaml")):
        expect = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("expect") or {}
        for key, value in expect.items():
            if key == "same_tier_as":
                total += 1
            elif key == "max_tokens":
                total += sum(len([t for t in v if t is not None]) if k == "tiers" else 1 for k, v in value.items())
            else:
                total += len(value) if isinstance(value, list) else sum(len(items) for items in value.values())
    return total
