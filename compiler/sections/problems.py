"""What a section's render error says: the messages the renderer puts beside the location."""

from __future__ import annotations

import re

import jinja2

from . import uservars
from .sectionfile import SectionSpec
from .variables import VOLATILE


def undefined_name(exc: jinja2.UndefinedError) -> str | None:
    """The variable an undefined error names (None for a missing attribute or key)."""
    match = re.fullmatch(r"'([A-Za-z_][A-Za-z0-9_]*)' is undefined", str(exc))
    return match.group(1) if match else None


def undefined_message(spec: SectionSpec, exc: jinja2.UndefinedError, partial: str | None) -> str:
    name = undefined_name(exc)
    where = f" in partial {partial}" if partial else ""
    if spec.side == "stable" and name in VOLATILE:
        return (
            f"stable section '{spec.id}' reads volatile variable '{name}'{where} (move the section below the boundary)"
        )
    return f"undefined variable{where}: {exc.message}"


def describe(spec: SectionSpec, exc: Exception) -> str:
    """The message for an error a section (or its partial) ran into."""
    if isinstance(exc, uservars.UserVariableError):
        return f"{spec.side} section '{spec.id}' {exc.problem}" if "volatile" in exc.problem else exc.problem
    if isinstance(exc, jinja2.TemplateNotFound):
        return exc.message or f"partial {exc.name!r} not found"
    return str(exc)
