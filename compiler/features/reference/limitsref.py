"""The limits page: every bound promptc puts on what it reads, walks, renders and writes, with its
default and the key or flag that changes it (or why it is fixed). Each limit is a module constant
with a docstring; the value is the constant's and the description its docstring's, so the page
cannot drift from the code."""

from __future__ import annotations

import ast
import functools
import inspect
import itertools
from dataclasses import dataclass
from types import ModuleType

from ..._lib import checks, frontmatter, fsutil, owned
from ...inputs import json5src, yamlsrc
from ...model import config
from ...sections import catalogue, limits, partials, sectionfile
from ...skills import bundled, discover, listing
from ...transcript import images, repair
from ...warm import freshness, parsecache
from ...workspace import budget, heartbeat, loader, state
from .. import watch
from ..bundle import matrix, store
from ..cache import trace
from ..snapshot import ondisk, worddiff
from .markdown import NOTICE, table

GUARD = "fixed: far above any real input, it stops a hostile or broken one"
"""Why most limits have no setting: no real input comes near them."""
STACK = "fixed: nesting past it would exhaust the stack"
SYSTEM = "fixed: the operating system's own limit"
PROVIDER = "fixed: the provider's own limit"
COST = "fixed: past it the work costs more than it is worth, and a plainer answer is given"
SEARCH = "fixed: it decides which skills are found, the same on every machine"
KEPT = "fixed: it keeps a file promptc writes small"


@dataclass(frozen=True, slots=True)
class Limit:
    """One limit on the page."""

    module: ModuleType
    """The module that declares the constant."""
    name: str
    """The constant's name; its value is the default, its docstring the description."""
    setting: str
    """The config key or flag that changes it, or `fixed: why`."""
    about: str = ""
    """The description, only for a constant whose module gives it no docstring."""
    counts_bytes: bool = False
    """Whether the value is a number of bytes when the name does not end in `_BYTES`."""


@dataclass(frozen=True, slots=True)
class Group:
    """Limits of one kind, under one heading."""

    title: str
    limits: tuple[Limit, ...]


GROUPS: tuple[Group, ...] = (
    Group(
        "Files read",
        (
            Limit(fsutil, "MAX_INPUT_BYTES", GUARD),
            Limit(fsutil, "MAX_SYMLINKS", SYSTEM),
            Limit(loader, "MAX_FILE_BYTES", GUARD),
            Limit(state, "MAX_STATE_BYTES", GUARD),
            Limit(sectionfile, "MAX_TEMPLATE_BYTES", GUARD),
            Limit(partials, "MAX_PARTIAL_BYTES", GUARD),
            Limit(partials, "MAX_PARTIALS", GUARD),
            Limit(discover, "MAX_SKILL_BYTES", GUARD),
            Limit(bundled, "MAX_MANIFEST_BYTES", GUARD),
            Limit(parsecache, "MAX_FILE_BYTES", GUARD),
            Limit(freshness, "RECHECK_LIMIT", COST, counts_bytes=True),
            Limit(trace, "MAX_TRACE_BYTES", GUARD),
            Limit(trace, "MAX_EDITED_BYTES", GUARD),
            Limit(store, "MAX_FILE_BYTES", GUARD),
            Limit(repair, "DEFAULT_MAX_LINE_BYTES", "`promptc transcript repair --max-line-mib N`"),
            Limit(
                images, "DEFAULT_MAX_SIDE_PX", "`imageMaxDimensionPx`; `transcript sanitize --image-max-dimension N`"
            ),
            Limit(images, "MAX_IMAGE_BYTES", PROVIDER),
            Limit(images, "MAX_PIXELS", COST),
        ),
    ),
    Group(
        "Parsing",
        (
            Limit(yamlsrc, "MAX_VALUES", GUARD),
            Limit(yamlsrc, "MAX_DEPTH", STACK),
            Limit(yamlsrc, "MAX_TEXT_CHARS", GUARD),
            Limit(json5src, "MAX_DEPTH", STACK),
            Limit(state, "MAX_JSON_DEPTH", STACK),
            Limit(frontmatter, "MAX_METADATA_VALUES", GUARD),
            Limit(frontmatter, "MAX_METADATA_DEPTH", STACK),
            Limit(checks, "MAX_DIGITS", GUARD),
            Limit(heartbeat, "MAX_FENCE_DEPTH", COST),
            Limit(heartbeat, "MAX_JUDGED_CHARS", COST),
            Limit(listing, "MAX_REQUIREMENTS", GUARD),
        ),
    ),
    Group(
        "Rendering",
        (
            Limit(limits, "MAX_STEPS", GUARD),
            Limit(limits, "MAX_TEXT_CHARS", GUARD),
            Limit(limits, "MAX_ITEMS", GUARD),
            Limit(config, "MAX_CACHE_TIERS", PROVIDER),
        ),
    ),
    Group(
        "Walks and paths",
        (
            Limit(discover, "MAX_DEPTH", SEARCH),
            Limit(discover, "MAX_EXTRA_DEPTH", SEARCH),
            Limit(discover, "MAX_SKILLS", GUARD),
            Limit(discover, "MAX_DIRECTORIES", GUARD),
            Limit(bundled, "MAX_LEVELS_UP", SEARCH),
            Limit(watch, "WATCH_DEPTH", GUARD),
            Limit(watch, "MAX_WATCHED_DIRS", GUARD),
            Limit(ondisk, "WALK_DEPTH", GUARD),
            Limit(catalogue, "MISPLACED_DEPTH", GUARD),
            Limit(owned, "MAX_PATH_PARTS", GUARD),
            Limit(owned, "MAX_NAME_BYTES", SYSTEM),
        ),
    ),
    Group(
        "Work and what is kept",
        (
            Limit(matrix, "MAX_VARIANTS", "`max_variants` in the matrix file"),
            Limit(parsecache, "MAX_ENTRIES", KEPT),
            Limit(budget, "MAX_SEEN_SIGNATURES", KEPT),
            Limit(worddiff, "MAX_WORD_PAIRS", COST),
        ),
    ),
)
"""Every limit on the page, by heading, in its order."""

INTRO = """# Limits

Every bound promptc puts on what it reads, parses, renders, walks and keeps: a file over its size,
a nesting deeper than its depth, a loop longer than its steps is one error line
(`promptc: error: <file>:<line>:<col>: <what>`, exit 2) or, where the table says so, left out with
a diagnostic; never a hang, an exhausted memory or a traceback. A limit is fixed when no real input
comes near it; the few meant to be changed name their key or flag. Budgets on how much of each file
goes into the prompt are config keys (see Config keys), not limits.
"""


def page() -> str:
    """The whole page."""
    parts = [NOTICE, INTRO]
    for group in GROUPS:
        rows = [[f"`{where(limit)}`", value(limit), limit.setting, description(limit)] for limit in group.limits]
        parts.append(f"\n## {group.title}\n\n")
        parts.append(table(("limit", "default", "setting", "what it bounds"), rows))
    return "".join(parts)


def where(limit: Limit) -> str:
    """The constant's name with its module, below the package (`_lib.fsutil.MAX_INPUT_BYTES`)."""
    return f"{limit.module.__name__.partition('.')[2]}.{limit.name}"


def value(limit: Limit) -> str:
    """The default as a number, with its size in KiB or MiB when it counts bytes."""
    number = getattr(limit.module, limit.name)
    if not (limit.counts_bytes or limit.name.endswith("_BYTES")) or number < 1024:
        return f"{number:,}"
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if number % size == 0:
            return f"{number // size:,} {unit} ({number:,} bytes)"
    return f"{number:,} bytes"


def description(limit: Limit) -> str:
    """The constant's docstring as one paragraph (or the entry's own `about`)."""
    text = docstrings(limit.module).get(limit.name) or limit.about
    return " ".join(text.split())


@functools.cache
def docstrings(module: ModuleType) -> dict[str, str]:
    """Each module-level constant's docstring: the string literal right after its assignment."""
    body = ast.parse(inspect.getsource(module)).body
    found = {}
    for statement, after in itertools.pairwise(body):
        name = _assigned(statement)
        text = after.value.value if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant) else None
        if name and isinstance(text, str):
            found[name] = text
    return found


def _assigned(statement: ast.stmt) -> str | None:
    """The one name a module-level assignment binds, if it binds one."""
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return statement.target.id
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id
    return None
