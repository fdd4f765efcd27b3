"""Read one SKILL.md: its frontmatter (name, description, metadata) and its version, as a Skill
or the reason it is skipped. A block strict YAML refuses is read line by line (lenient.py), as
OpenClaw reads it, with a warning."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping, MutableMapping
from typing import Any

from .._lib import frontmatter
from ..model.workspace import Skill
from . import lenient

VERSION_PREFIX = "sha256:"
"""A skill's version: this, then the first 16 hex digits of the SHA-256 of its raw bytes."""

Parsed = frontmatter.Parsed
"""What a SKILL.md's frontmatter gives: (the mapping, None); (None, why not); or, for a block read
line by line, (that mapping, why strict YAML refused it)."""
Skipped = tuple[str, str]
"""A SKILL.md that is no skill: (the diagnostic, the few words `skipped` lists it with)."""
Leniently = tuple[Skill, str]
"""A skill whose frontmatter was read line by line, and the warning that says so."""


def read(path: str, raw: bytes, parsed: MutableMapping[str, Parsed]) -> Skill | Leniently | Skipped:
    """The skill a SKILL.md's bytes describe. Its frontmatter is parsed once per distinct
    content: `parsed` is keyed on the whole SHA-256, as it may be kept on disk."""
    digest = hashlib.sha256(raw).hexdigest()
    if digest not in parsed:
        parsed[digest] = _parse(_normalise(raw))
    found, problem = parsed[digest]
    metadata = found or {}
    description = _single_line(metadata.get("description"))
    if not description:
        return _skipped(path, None if problem else found, problem)
    name = _single_line(metadata.get("name")) or os.path.basename(os.path.dirname(path))
    skill = Skill(name, description, path, VERSION_PREFIX + digest[:16], metadata)
    return skill if problem is None else (skill, _lenient_warning(path, problem))


def _parse(text: str) -> Parsed:
    """The frontmatter as strict YAML; when YAML refuses a closed block, the block read line by
    line, with YAML's reason kept beside it."""
    found, problem = frontmatter.metadata(text)
    if found is not None or problem is None or problem == frontmatter.NEVER_CLOSED:
        return found, problem
    lines = text.split("\n")
    closing = frontmatter.DELIMITERS.closing_line(lines)
    loose = lenient.read_block("\n".join(lines[1:closing]))
    return (loose, problem) if _single_line(loose.get("description")) else (None, problem)


_AT_LINE = re.compile(r" at line (\d+), column \d+\)?$")


def _lenient_warning(path: str, problem: str) -> str:
    """`path:line: ...`: the block was read line by line, and why (YAML's reason names the line)."""
    at = _AT_LINE.search(problem)
    where = f"{path}:{at.group(1)}" if at else path
    return f"{where}: {problem}; read line by line as OpenClaw reads it (quote the value to silence this)"


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
