"""The generated pages of the documentation: the reference pages (config keys, run facts, template
variables, lint rules, limits) and the JSON Schemas, each made from the declarations the code reads, so
they cannot drift from it. The command reference is made from the parsers (commands/reference.py)."""

from __future__ import annotations

import functools
from collections.abc import Callable

from .. import schemas
from . import configref, factsref, limitsref, lintref

PAGES: dict[str, Callable[[], str]] = {
    "reference/config.md": configref.page,
    "reference/run-facts.md": factsref.run_facts_page,
    "reference/variables.md": factsref.variables_page,
    "reference/lint-rules.md": lintref.page,
    "reference/limits.md": limitsref.page,
    **{f"schemas/{name}.json": functools.partial(schemas.text, name) for name in schemas.SCHEMAS},
}
"""Each generated file, by its path under docs/, and what makes it."""


def generated() -> dict[str, str]:
    """Every generated file's text, by its path under docs/."""
    return {path: make() for path, make in PAGES.items()}
