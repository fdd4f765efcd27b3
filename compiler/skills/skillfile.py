"""Read one SKILL.md: its frontmatter (name, description, metadata) and its version, as a Skill
or the reason it is skipped."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, MutableMapping
from typing import Any

from .._lib import frontmatter
from ..model.workspace import Skill

VERSION_PREFIX = "sha256:"
"""A skill's version: this, then the first 16 hex digits of the SHA-256 of its raw bytes."""

Parsed = frontmatter.Parsed
"""What a SKILL.md's frontmatter gives: the mapping or None, and why not."""
Skipped = tuple[str, str]
"""A SKILL.md that is no skill: (the diagnostic, the few words `skipped` lists it with)."""


def read(path: str, raw: bytes, parsed: MutableMapping[str, Parsed]) -> Skill | Skipped:
    """The skill a SKILL.md's bytes describe. Its frontmatter is parsed once per distinct
    content: `parsed` is keyed on the whole SHA-256, as it may be kept on disk."""
    digest = hashlib.sha256(raw).hexdigest()
    if digest not in parsed:
        parsed[digest] = frontmatter.metadata(_normalise(raw))
    found, problem = parsed[digest]
    metadata = found or {}
    description = _single_line(metadata.get("description"))
    if not description:
        return _skipped(path, found, problem)
    name = _single_line(metadata.get("name")) or os.path.basename(os.path.dirname(path))
    return Skill(name, description, path, VERSION_PREFIX + digest[:16], metadata)


def _skipped(path: str, found: Mapping[str, Any] | None, problem: str | None) -> Skipped:
    if problem:
        return f"{path}: {problem}; skill skipped", "unreadable frontmatter"
    why = (
        "no `description` in its frontmatter"
        if found is not None
        else "no frontmatter (a `---` block with name and description)"
    )
    return f"{path}: {why}; skill skipped", "no description" if found else "no frontmatter"


def _normalise(raw: bytes) -> str:
    """Decode like a workspace file: UTF-8, BOM dropped, bad bytes replaced, LF newlines."""
    text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _single_line(value: Any) -> str:
    """A frontmatter text value with whitespace runs collapsed; '' for anything not text."""
    return " ".join(value.split()) if isinstance(value, str) else ""


def parsed_data(parsed: Parsed) -> list[Any]:
    """A parse result as JSON data, for the disk store (warm/parsecache.py)."""
    return list(parsed)


def parsed_from_data(data: Any) -> Parsed | None:
    """The parse result parsed_data gave, or None for anything not that shape."""
    if type(data) is not list or len(data) != 2:
        return None
    metadata, problem = data
    if not (type(metadata) is dict or metadata is None) or not (type(problem) is str or problem is None):
        return None
    return metadata, problem
