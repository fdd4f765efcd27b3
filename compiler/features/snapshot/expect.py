"""A scenario's `expect:` block: what its prompt must hold, each expectation located at its line
in scenario.yaml. `EXPECT_KEYS` declares every key (shape, meaning, reader)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..._lib.errors import Location, did_you_mean, one_line
from ...inputs import yamlsrc
from . import verdicts
from .keys import COUNT, TEXT, TEXTS, Key, ScenarioError, object_schema
from .verdicts import PARTS, Seen

QUOTED = 60
"""Characters of an expectation's text quoted in its label."""


@dataclass(frozen=True, slots=True)
class Expectation:
    """One thing a scenario's prompt must hold."""

    label: str
    """How messages name it: `contains 'HEARTBEAT_OK' in the volatile part`."""
    where: Location
    """Its place in scenario.yaml."""
    verdict: Callable[[Seen], str | None]
    """Why it fails on a compiled scenario, or None when it holds."""


Expectations = Iterator[Expectation]
KeyPath = tuple[Any, ...]
"""Keys and list indexes from the document root to a value."""


def read(located: yamlsrc.Located, path: KeyPath) -> tuple[Expectation, ...]:
    """Every expectation of the `expect:` mapping at `path` of a scenario file, in file order."""
    value = _mapping(located, path, EXPECT_KEYS)
    found: list[Expectation] = []
    for key in value:
        reader = EXPECT_KEYS[key].read
        assert reader is not None
        found += reader(path + (key,), located)
    return tuple(found)


def _value(located: yamlsrc.Located, path: KeyPath) -> Any:
    value = located.value
    for part in path:
        value = value[part]
    return value


def _mapping(located: yamlsrc.Located, path: KeyPath, keys: Mapping[str, Key]) -> dict:
    value = _value(located, path)
    if not isinstance(value, dict):
        raise ScenarioError(f"'{_dotted(path)}' must be a mapping", located.where(path))
    for key in value:
        if key not in keys:
            hint = did_you_mean(str(key), keys)
            raise ScenarioError(f"unknown key '{_dotted(path + (key,))}'{hint}", located.where(path + (key,)))
    return value


def _texts(located: yamlsrc.Located, path: KeyPath) -> list[str]:
    value = _value(located, path)
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise ScenarioError(f"'{_dotted(path)}' must be a list of non-empty texts", located.where(path))
    return value


def _dotted(path: KeyPath) -> str:
    return ".".join(f"[{part}]" if isinstance(part, int) else str(part) for part in path).replace(".[", "[")


def _quote(text: str) -> str:
    shown = one_line(text)
    return "'" + (shown if len(shown) <= QUOTED else shown[: QUOTED - 3] + "...") + "'"


# --------------------------------------------------------------------------- text in the prompt


PART_KEYS: dict[str, Key] = {
    part: Key(TEXTS, "Anywhere in the prompt." if part == "prompt" else f"In the {part} part.") for part in PARTS
}


def _by_part(located: yamlsrc.Located, path: KeyPath) -> Iterator[tuple[str, KeyPath]]:
    """(part, path of its list): one list for the whole prompt, or a mapping of parts to lists."""
    value = _value(located, path)
    if isinstance(value, list):
        yield "prompt", path
        return
    if not isinstance(value, dict):
        message = f"'{_dotted(path)}' must be a list of texts, or a mapping from a part ({', '.join(PARTS)}) to one"
        raise ScenarioError(message, located.where(path))
    for part in _mapping(located, path, PART_KEYS):
        yield part, path + (part,)


def _text_reader(kind: str, verdict: Callable[..., str | None], compile_regex: bool = False) -> Callable[..., Any]:
    def reader(path: KeyPath, located: yamlsrc.Located) -> Expectations:
        for part, items in _by_part(located, path):
            for index, text in enumerate(_texts(located, items)):
                where = located.where(items + (index,))
                needle = _compiled(text, items + (index,), where) if compile_regex else text
                label = f"{kind} {_quote(text)}" + ("" if part == "prompt" else f" in the {part} part")
                yield Expectation(label, where, functools.partial(verdict, needle, part))

    return reader


def _compiled(pattern: str, path: KeyPath, where: Location) -> re.Pattern[str]:
    try:
        return re.compile(pattern, re.MULTILINE)
    except re.error as exc:
        raise ScenarioError(f"'{_dotted(path)}': not a valid regular expression: {exc}", where) from exc


# --------------------------------------------------------------------------- sections and files


def _listed(keys: Mapping[str, Key], kind: str, verdict: Callable[..., str | None]) -> Callable[..., Any]:
    """A reader of a mapping whose keys (the first meaning "yes") each hold a list of names."""
    wanted = next(iter(keys))

    def reader(path: KeyPath, located: yamlsrc.Located) -> Expectations:
        for key in _mapping(located, path, keys):
            for index, name in enumerate(_texts(located, path + (key,))):
                where = located.where(path + (key, index))
                yield Expectation(f"{kind}.{key} {name}", where, functools.partial(verdict, name, key == wanted))

    return reader


SECTION_KEYS: dict[str, Key] = {
    "present": Key(TEXTS, "Section ids that must be in the prompt."),
    "absent": Key(TEXTS, "Section ids that must not be in the prompt (inactive, gated off or rendered empty)."),
}
FILE_KEYS: dict[str, Key] = {
    "injected": Key(TEXTS, "Bootstrap files whose text (whole or cut to its budget) must be in the prompt."),
    "left_out": Key(TEXTS, "Bootstrap files that must not be: filtered, missing, dropped by the budget or skipped."),
}


# --------------------------------------------------------------------------- sizes and sharing

TOKEN_PARTS = ("stable", "volatile", "developer", "turn")
TOKEN_KEYS: dict[str, Key] = {
    **{part: Key(COUNT, f"At most this many tokens in the {part} part.") for part in TOKEN_PARTS},
    "tiers": Key(
        {"type": "array", "items": {"oneOf": [COUNT, {"type": "null"}]}},
        "At most this many tokens in each cache tier, first tier first (null: no limit for that tier).",
    ),
}


def _count(located: yamlsrc.Located, path: KeyPath) -> int:
    value = _value(located, path)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ScenarioError(f"'{_dotted(path)}' must be a whole number of at least 1", located.where(path))
    return value


def _read_tokens(path: KeyPath, located: yamlsrc.Located) -> Expectations:
    for key, value in _mapping(located, path, TOKEN_KEYS).items():
        if key != "tiers":
            limit = _count(located, path + (key,))
            verdict = functools.partial(verdicts.part_tokens, key, limit)
            yield Expectation(f"max_tokens.{key} {limit:,}", located.where(path + (key,)), verdict)
            continue
        if not isinstance(value, list):
            raise ScenarioError(f"'{_dotted(path + (key,))}' must be a list", located.where(path + (key,)))
        for index, item in enumerate(value):
            if item is not None:
                limit, where = _count(located, path + (key, index)), located.where(path + (key, index))
                verdict = functools.partial(verdicts.tier_tokens, index + 1, limit)
                yield Expectation(f"max_tokens.tiers[{index}] {limit:,}", where, verdict)


SHARED_KEYS: dict[str, Key] = {
    "scenario": Key(TEXT, "The other scenario.", required=True),
    "tiers": Key(COUNT, "How many cache tiers, from the first, must be byte-equal (default 1)."),
}


def _read_shared(path: KeyPath, located: yamlsrc.Located) -> Expectations:
    value = _value(located, path)
    if isinstance(value, str) and value:
        other, count = value, 1
    else:
        given = _mapping(located, path, SHARED_KEYS)
        if not isinstance(given.get("scenario"), str) or not given["scenario"]:
            raise ScenarioError(f"'{_dotted(path)}.scenario' is required and must be text", located.where(path))
        other, count = given["scenario"], _count(located, path + ("tiers",)) if "tiers" in given else 1
    label = f"same_tier_as {other} ({'tier 1' if count == 1 else f'tiers 1-{count}'})"
    yield Expectation(label, located.where(path), functools.partial(verdicts.same_tiers, other, count))


# --------------------------------------------------------------------------- the table

_BY_PART = {"oneOf": [TEXTS, object_schema(PART_KEYS, "Texts by the part of the prompt they are looked for in.")]}

EXPECT_KEYS: dict[str, Key] = {
    "contains": Key(
        _BY_PART,
        "Texts that must appear in the prompt: a list, or a mapping from a part (prompt, stable, volatile,"
        " developer, turn) to a list.",
        read=_text_reader("contains", verdicts.contains),
    ),
    "not_contains": Key(
        _BY_PART,
        "Texts that must not appear, in the same shape as contains.",
        read=_text_reader("not_contains", verdicts.not_contains),
    ),
    "regex": Key(
        _BY_PART,
        "Regular expressions (Python syntax; ^ and $ match at each line) that must match, in the same shape as contains.",
        read=_text_reader("regex", verdicts.regex, compile_regex=True),
    ),
    "sections": Key(
        object_schema(SECTION_KEYS, "Sections by id."),
        "Sections by id.",
        read=_listed(SECTION_KEYS, "sections", verdicts.section),
    ),
    "files": Key(
        object_schema(FILE_KEYS, "Bootstrap files by name."),
        "Bootstrap files by name (AGENTS.md, MEMORY.md, ...).",
        read=_listed(FILE_KEYS, "files", verdicts.file),
    ),
    "max_tokens": Key(
        object_schema(TOKEN_KEYS, "Token limits."),
        "Token limits per part and per cache tier, counted as `promptc context` counts.",
        read=_read_tokens,
    ),
    "same_tier_as": Key(
        {"oneOf": [TEXT, object_schema(SHARED_KEYS, "Another scenario and a tier count.")]},
        "Another scenario whose first cache tiers must be byte-equal to this one's: its name (one tier), or"
        " a mapping with scenario and tiers.",
        read=_read_shared,
    ),
}
"""Every key of a scenario's `expect:` block."""
EXPECT_DOC = (
    "What the scenario's prompt must hold; `promptc snapshot check` fails naming each expectation that does not."
)
