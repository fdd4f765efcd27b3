"""The checks of single config values: each returns what is wrong with a value, or None when it is fine."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._lib import checks, entrypoints
from .._lib.errors import did_you_mean
from ..model.config import CACHE_TTLS, DURATION_UNITS, MAX_CACHE_TIERS
from ..model.runfacts import SESSION_KINDS
from ..model.units import HEAD_SUFFIX, tier_index

DURATION = re.compile(f"[1-9][0-9]{{0,5}}[{''.join(DURATION_UNITS)}]")
"""A config duration as written: a whole number of one of the units."""
Check = Callable[[Any], str | None]
"""What is wrong with a value, or None."""


def positive_int(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int) or checks.long_number(value):
        return f"expected a whole number, got {describe(value)}"
    return None if value > 0 else f"must be greater than 0, got {value}"


def boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else f"expected true or false, got {describe(value)}"


def string(value: Any) -> str | None:
    return None if isinstance(value, str) else f"expected a string, got {describe(value)}"


def _nonblank(value: Any) -> str | None:
    problem = string(value)
    if problem is None and not value.strip():
        return "must not be blank"
    return problem


def one_line(value: Any) -> str | None:
    """A non-blank value that reaches the prompt on one line: a line break in it could forge a
    section heading."""
    problem = _nonblank(value)
    if problem is None and not value.isprintable():
        return "must be one line of printable characters (no line breaks or control characters)"
    return problem


def one_line_key(key: Any) -> str | None:
    """A key that reaches the prompt on one line (a model id); what is wrong reads after the key."""
    return "must be text" if not isinstance(key, str) else one_line(key)


MARKER_SHAPE = re.compile(r"<!--[^\\]*\w[^\\]*-->")
"""An HTML comment with a word in it: a shape prose does not have, so defusing every copy of
the marker outside the boundary changes no ordinary text (a marker `the` would alter every
"the" in the prompt)."""


def boundary_marker(value: Any) -> str | None:
    problem = _nonblank(value)
    if problem is None and not (value.isprintable() and MARKER_SHAPE.fullmatch(value)):
        return (
            "must be an HTML comment on one line with a word in it, such as '<!-- PROMPT_CACHE_BOUNDARY -->'"
            f" (printable, no backslashes), got {checks.shown(value)}"
        )
    return problem


def string_list(value: Any) -> str | None:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return f"expected a list of strings, got {describe(value)}"
    return None


def model_ref(value: Any) -> str | None:
    """A model id on one line, or a mapping with its `primary` id (and `fallbacks`, not read)."""
    if not isinstance(value, dict):
        return (
            one_line(value) if isinstance(value, str) else f"expected a model id or {{primary}}, got {describe(value)}"
        )
    unknown = sorted(set(value) - {"primary", "fallbacks"})
    if unknown:
        return f"unknown key {unknown[0]!r} (known: primary, fallbacks)"
    problem = one_line(value["primary"]) if "primary" in value else None
    return problem or (string_list(value["fallbacks"]) if "fallbacks" in value else None)


@dataclass(frozen=True, slots=True)
class Choice:
    """One of a few words; YAML's `on` / `off` booleans and bare numbers read as the words."""

    choices: tuple[str, ...]
    """The words allowed, in the order messages list them."""

    def __call__(self, value: Any) -> str | None:
        if as_choice(value) in self.choices:
            return None
        return f"expected one of {', '.join(self.choices)}; got {describe(value)}"


def choice(*choices: str) -> Check:
    return Choice(choices)


def as_choice(value: Any) -> str:
    # YAML 1.1 reads a bare `on` / `off` as a boolean; the word is meant.
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def timezone(value: Any) -> str | None:
    problem = _nonblank(value)
    if problem is not None:
        return problem
    import zoneinfo  # here, not at the top: a render without a time zone never needs it

    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return f"unknown IANA time zone {value!r}"
    return None


def hook_specs(value: Any) -> str | None:
    problem = string_list(value)
    if problem is None:
        problems = [entrypoints.target_problem(item) for item in value]
        problem = next((p for p in problems if p is not None), None)
        if problem is not None:
            return f"hooks {problem}"
    return problem


def plain_data(value: Any) -> str | None:
    """Plain data a template may read: text, numbers, booleans, null, lists, mappings."""
    try:
        checks.plain(value)
    except ValueError as exc:
        return str(exc)
    return None


RESERVED_VARIABLE_NAMES = frozenset({"keys", "items", "values", "get"})
"""`vars.items` reads the mapping's own method in Jinja, never a variable of that name."""


def variable_name(name: Any) -> str | None:
    problem = checks.variable_name(name)  # the key is named by the caller: not twice
    return None if problem is None else problem.removeprefix(f"{name!r} ")


def declared_name(name: Any) -> str | None:
    if name in RESERVED_VARIABLE_NAMES:
        return f"is reserved (in a template `vars.{name}` is the mapping's own method)"
    return variable_name(name)


def describe(value: Any) -> str:
    """A value as an error message names it: its kind, and a number or short text itself."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int) and value.bit_length() > 128:  # a long one has no decimal form at all
        return checks.TOO_LONG if checks.long_number(value) else "a very long number"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        shown = value if len(value) <= 60 else value[:57] + "..."
        return f"the string {shown!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


TIER_FILES: tuple[str, ...] = (
    "AGENTS.md",
    "SOUL.md",
    "TOOLS.md",
    "IDENTITY.md",
    "USER.md",
    "BOOTSTRAP.md",
    "MEMORY.md",
    "memory.md",
)
"""Workspace files a cache tier may name (HEARTBEAT.md always renders below the boundary)."""
_SECTION_ID = re.compile(r"^[a-z][a-z0-9_]*$")


def cache_tiers(value: Any) -> str | None:
    """At most three tiers, each a list of file names and section ids, no name twice. Section
    ids are checked against the catalogue once the sections are known (tiers.py)."""
    if not isinstance(value, list) or not all(isinstance(tier, list) for tier in value):
        return f"expected a list of tiers, each a list of file names and section ids, got {describe(value)}"
    if len(value) > MAX_CACHE_TIERS:
        return f"at most {MAX_CACHE_TIERS} tiers (a runtime keeps the fourth breakpoint for the conversation), got {len(value)}"
    seen: set[str] = set()
    for name in (name for tier in value for name in tier):
        problem = _tier_name(name) or (f"{name!r} is in more than one tier" if name in seen else None)
        if problem:
            return problem
        seen.add(name)
    return _heads_first(value)


def _heads_first(tiers: list[list[str]]) -> str | None:
    """`NAME#head` must sit in an earlier tier than NAME (named, or where `sections` is)."""
    for index, tier in enumerate(tiers):
        for name in tier:
            file = name.removesuffix(HEAD_SUFFIX)
            if file != name and tier_index(file, tiers) <= index:
                return f"{name!r} must be in an earlier tier than {file} (the head is what stays put when {file} grows)"
    return None


def _tier_name(name: Any) -> str | None:
    if not isinstance(name, str):
        return f"a tier lists file names and section ids, got {describe(name)}"
    if name in TIER_FILES or name == "sections" or _SECTION_ID.match(name):
        return None
    if name.endswith(HEAD_SUFFIX) and name[: -len(HEAD_SUFFIX)] in TIER_FILES:
        return None
    if name == "HEARTBEAT.md":
        return "HEARTBEAT.md renders below the cache boundary; name its section, dynamic_context, in the last tier to cache it"
    hint = did_you_mean(name, TIER_FILES, any_case=True)
    return f"unknown tier entry {name!r}: expected a workspace file name, a section id or 'sections'{hint}"


def session_kinds(value: Any) -> str | None:
    """A list of session kinds, each once."""
    problem = string_list(value)
    if problem:
        return problem
    for kind in value:
        if kind not in SESSION_KINDS:
            hint = did_you_mean(kind, SESSION_KINDS, f" (known: {', '.join(SESSION_KINDS)})")
            return f"unknown session kind {kind!r}{hint}"
    twice = [kind for index, kind in enumerate(value) if kind in value[:index]]
    return f"{twice[0]!r} is listed twice" if twice else None


def cache_ttl(value: Any) -> str | None:
    """`5m`, `1h`, or one per tier, never longer than the tier before (Anthropic's rule)."""
    values = value if isinstance(value, list) else [value]
    if not values or len(values) > MAX_CACHE_TIERS or not all(v in CACHE_TTLS for v in values):
        return f"expected 5m, 1h or a list of at most {MAX_CACHE_TIERS} of them, got {describe(value)}"
    order = [CACHE_TTLS.index(v) for v in values]
    if order != sorted(order, reverse=True):
        return f"a later tier cannot live longer than an earlier one, got {values}"
    return None


def duration(value: Any) -> str | None:
    """Whole minutes or hours: `55m`, `2h`."""
    if isinstance(value, str) and DURATION.fullmatch(value):
        return None
    return f"expected a duration in whole minutes or hours (55m, 2h), got {describe(value)}"


def ttl_tuple(value: Any) -> tuple[str, ...]:
    """A valid `ttl` as stored: one per tier, or one for all."""
    return tuple(value) if isinstance(value, list) else (value,)
