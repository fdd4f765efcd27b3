"""What lint reports and what it reads: a finding at file:line:col, the result of a run, a template
being checked, and the column and key placement of a finding."""

from __future__ import annotations

from dataclasses import dataclass

from jinja2 import nodes

from ..._lib import fsutil
from ..._lib.errors import Location, PromptcError
from ...sections.catalogue import SectionSpec
from ...sections.environment import column_of
from ...sections.sectionfile import MAX_TEMPLATE_BYTES


@dataclass(frozen=True, order=True)
class Finding:
    """One problem, sortable by place."""

    path: str
    """The template file."""
    line: int
    """1-based line in the file (the metadata block counts)."""
    column: int
    """1-based column."""
    message: str
    """What is wrong."""

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}: {self.message}"

    @classmethod
    def from_error(cls, error: PromptcError) -> Finding:
        """A finding at an error's location."""
        where = error.location or Location()
        return cls(where.path or "<input>", where.line or 1, where.column or 1, error.message)


@dataclass(frozen=True, slots=True)
class Result:
    """Every finding, plus how much was read."""

    findings: tuple[Finding, ...]
    """Sorted by file, line, column."""
    files: int
    """Section files checked."""
    partials: int = 0
    """Partial files checked."""


@dataclass(frozen=True, slots=True)
class Source:
    """A template being checked: a section, or a partial reached from one."""

    spec: SectionSpec
    """The section (its side decides what may be read)."""
    path: str
    """The file the tree came from."""
    tree: nodes.Template
    """Its parsed body."""
    via: str | None = None
    """The partial's name, when this is one."""


def column(path: str, line: int, name: str) -> int:
    return column_of(source_text(path), line, name)


def source_text(path: str) -> str:
    """A template's text read again to place a finding's column, through the bounded reader (a
    file swapped for a FIFO or grown past the template cap meanwhile reads as empty: column 1)."""
    try:
        data, _ = fsutil.read_regular(path, MAX_TEMPLATE_BYTES)
    except (OSError, fsutil.Refused):
        return ""
    return data.decode("utf-8", errors="replace")


def at(spec: SectionSpec, key: str, message: str) -> Finding:
    line = spec.location(key).line or 1
    lines = source_text(spec.path).replace("\r\n", "\n").split("\n")
    text = lines[line - 1] if line <= len(lines) else ""
    return Finding(spec.path, line, text.find(key) + 1 if key in text else 1, message)
