"""The config schema: every key, its type and its check, and the walk that validates a layer."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._lib import checks
from .._lib.errors import ConfigError, did_you_mean
from ..model.config import CACHE_TTLS, MAX_CACHE_TIERS
from ..model.runfacts import SESSION_KINDS
from ..model.units import HEAD_SUFFIX, tier_index
from . import openclaw, yamlsrc


@dataclass(frozen=True, slots=True)
class Field:
    """A leaf value: `check` returns an error message, or None when the value is fine."""

    check: Callable[[Any], str | None]
    nullable: bool = False
    is_path: bool = False
    """Relative paths are resolved against the directory of the file that set them."""
    convert: Callable[[Any], Any] | None = None
    """Turns a valid raw value into the stored one."""


@dataclass(frozen=True, slots=True)
class Table:
    """A mapping with a fixed set of keys."""

    fields: Mapping[str, Node]
    required: tuple[str, ...] = ()
    """Keys that must be present."""


@dataclass(frozen=True, slots=True)
class MapOf:
    """A mapping whose keys are free (model ids, skill names) and whose values share a schema."""

    value: Node
    key: Callable[[Any], str | None] | None = None
    """Checks each key, when the keys reach the prompt (model ids)."""


@dataclass(frozen=True, slots=True)
class ListOf:
    """A list whose items share a schema."""

    item: Node


Node = Field | Table | MapOf | ListOf


def _positive_int(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int) or checks.long_number(value):
        return f"expected a whole number, got {_describe(value)}"
    return None if value > 0 else f"must be greater than 0, got {value}"


def _boolean(value: Any) -> str | None:
    return None if isinstance(value, bool) else f"expected true or false, got {_describe(value)}"


def _string(value: Any) -> str | None:
    return None if isinstance(value, str) else f"expected a string, got {_describe(value)}"


def _nonblank(value: Any) -> str | None:
    problem = _string(value)
    if problem is None and not value.strip():
        return "must not be blank"
    return problem


def _one_line(value: Any) -> str | None:
    """A non-blank value that reaches the prompt on one line: a line break in it could forge a
    section heading."""
    problem = _nonblank(value)
    if problem is None and not value.isprintable():
        return "must be one line of printable characters (no line breaks or control characters)"
    return problem


def _one_line_key(key: Any) -> str | None:
    """A key that reaches the prompt on one line (a model id); what is wrong reads after the key."""
    return "must be text" if not isinstance(key, str) else _one_line(key)


def _marker(value: Any) -> str | None:
    problem = _nonblank(value)
    if problem is None and (not value.isprintable() or "\\" in value or len(value.strip()) < 3):
        return "must be one line of at least 3 printable characters, without backslashes"
    return problem


def _string_list(value: Any) -> str | None:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return f"expected a list of strings, got {_describe(value)}"
    return None


def _choice(*choices: str) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        if _as_choice(value) in choices:
            return None
        return f"expected one of {', '.join(choices)}; got {_describe(value)}"

    return check


def _choice_field(*choices: str) -> Field:
    return Field(_choice(*choices), convert=_as_choice)


def _as_choice(value: Any) -> str:
    # YAML 1.1 reads a bare `on` / `off` as a boolean; the word was meant.
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _timezone(value: Any) -> str | None:
    problem = _nonblank(value)
    if problem is not None:
        return problem
    import zoneinfo  # here, not at the top: a render without a time zone never needs it (issue 12)

    try:
        zoneinfo.ZoneInfo(value)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return f"unknown IANA time zone {value!r}"
    return None


def _hook(value: Any) -> str | None:
    problem = _string_list(value)
    if problem is None:
        bad = [item for item in value if item.count(":") != 1 or "" in item.split(":")]
        if bad:
            return f"hooks must be 'module:function', got {bad[0]!r}"
    return problem


def _plain(value: Any) -> str | None:
    """Plain data a template may read: text, numbers, booleans, null, lists, mappings."""
    try:
        checks.plain(value)
    except ValueError as exc:
        return str(exc)
    return None


RESERVED_VARIABLE_NAMES = frozenset({"keys", "items", "values", "get"})
"""`vars.items` reads the mapping's own method in Jinja, never a variable of that name."""


def _variable_name(name: Any) -> str | None:
    problem = checks.variable_name(name)  # the key is named by the caller: not twice
    return None if problem is None else problem.removeprefix(f"{name!r} ")


def _declared_name(name: Any) -> str | None:
    if name in RESERVED_VARIABLE_NAMES:
        return f"is reserved (in a template `vars.{name}` is the mapping's own method)"
    return _variable_name(name)


def _describe(value: Any) -> str:
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


def _cache_tiers(value: Any) -> str | None:
    """At most three tiers, each a list of file names and section ids, no name twice. Section
    ids are checked against the catalogue when the sections are known (cache/tiers.py)."""
    if not isinstance(value, list) or not all(isinstance(tier, list) for tier in value):
        return f"expected a list of tiers, each a list of file names and section ids, got {_describe(value)}"
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
        return f"a tier lists file names and section ids, got {_describe(name)}"
    if name in TIER_FILES or name == "sections" or _SECTION_ID.match(name):
        return None
    if name.endswith(HEAD_SUFFIX) and name[: -len(HEAD_SUFFIX)] in TIER_FILES:
        return None
    if name == "HEARTBEAT.md":
        return "HEARTBEAT.md renders below the cache boundary; name its section, dynamic_context, in the last tier to cache it"
    hint = did_you_mean(name, TIER_FILES, any_case=True)
    return f"unknown tier entry {name!r}: expected a workspace file name, a section id or 'sections'{hint}"


def _session_kinds(value: Any) -> str | None:
    """A list of session kinds, each once."""
    problem = _string_list(value)
    if problem:
        return problem
    for kind in value:
        if kind not in SESSION_KINDS:
            hint = did_you_mean(kind, SESSION_KINDS, f" (known: {', '.join(SESSION_KINDS)})")
            return f"unknown session kind {kind!r}{hint}"
    twice = [kind for index, kind in enumerate(value) if kind in value[:index]]
    return f"{twice[0]!r} is listed twice" if twice else None


def _cache_ttl(value: Any) -> str | None:
    """`5m`, `1h`, or one per tier, never longer than the tier before (Anthropic's rule)."""
    values = value if isinstance(value, list) else [value]
    if not values or len(values) > MAX_CACHE_TIERS or not all(v in CACHE_TTLS for v in values):
        return f"expected 5m, 1h or a list of at most {MAX_CACHE_TIERS} of them, got {_describe(value)}"
    order = [CACHE_TTLS.index(v) for v in values]
    if order != sorted(order, reverse=True):
        return f"a later tier cannot live longer than an earlier one, got {values}"
    return None


def _ttl_tuple(value: Any) -> tuple[str, ...]:
    return tuple(value) if isinstance(value, list) else (value,)


POSITIVE_INT = Field(_positive_int)
BOOL = Field(_boolean)

AGENT_FIELDS: dict[str, Node] = {
    "workspace": Field(_one_line, is_path=True),
    "bootstrapMaxChars": POSITIVE_INT,
    "bootstrapTotalMaxChars": POSITIVE_INT,
    "bootstrapPromptTruncationWarning": _choice_field("off", "once", "always"),
    "userTimezone": Field(_timezone, nullable=True),
    "timeFormat": _choice_field("auto", "12", "24"),
    "heartbeat": Table({"enabled": BOOL, "includeSystemPromptSection": BOOL, "prompt": Field(_string)}),
    "subagents": Table({"delegationMode": _choice_field("suggest", "prefer"), "proactiveOrchestration": BOOL}),
    "skills": Field(_string_list, nullable=True),
    "contextLimits": MapOf(POSITIVE_INT),
    "promptOverlays": Table({"gpt5": Table({"personality": _choice_field("friendly", "on", "off")})}),
    "imageMaxDimensionPx": POSITIVE_INT,
    "models": MapOf(Table({"alias": Field(_one_line)}), key=_one_line_key),
    "docsPath": Field(_one_line, nullable=True, is_path=True),
    "memoryInGroups": BOOL,
}

VALUES = MapOf(Field(_plain, nullable=True), key=_variable_name)
"""User variable values by name (`prompt.values`, `agents.list[].promptValues`)."""
VARIABLE = Table(
    {
        "side": _choice_field("stable", "volatile"),
        "default": Field(_plain, nullable=True),
        "description": Field(_string),
    },
    required=("side",),
)
"""One user variable's declaration (`prompt.variables.<name>`)."""

AGENT_ENTRY = Table(
    {
        "id": Field(_one_line),
        **AGENT_FIELDS,
        "skillsLimits": Table({"maxSkillsPromptChars": POSITIVE_INT}),
        "promptValues": VALUES,
    },
    required=("id",),
)

AGENT_OVERRIDES: dict[tuple[str, ...], str] = {
    ("skills", "limits"): "skillsLimits",
    ("prompt", "values"): "promptValues",
}
"""Top-level tables an `agents.list[]` entry overrides for its agent, and the entry key that does."""

SCHEMA = Table(
    {
        "agents": Table({"defaults": Table(AGENT_FIELDS), "list": ListOf(AGENT_ENTRY)}),
        "skills": Table(
            {
                "limits": Table({"maxSkillsPromptChars": POSITIVE_INT, "maxSkillsInPrompt": POSITIVE_INT}),
                "entries": MapOf(Table({"enabled": BOOL})),
                "load": Table(
                    {
                        "extraDirs": Field(_string_list, is_path=True),
                        "allowSymlinkTargets": Field(_string_list, is_path=True),
                    }
                ),
            }
        ),
        "tools": Table({"experimental": Table({"planTool": BOOL}), "fs": Table({"workspaceOnly": BOOL})}),
        "memory": Table({"citations": _choice_field("auto", "on", "off")}),
        "acp": Table({"enabled": BOOL}),
        "prompt": Table(
            {
                "cacheBoundaryMarker": Field(_marker),
                "templateDirs": Field(_string_list, is_path=True),
                "cache": Table(
                    {
                        "tiers": Field(_cache_tiers),
                        "ttl": Field(_cache_ttl, nullable=True, convert=_ttl_tuple),
                        "openaiKey": BOOL,
                        "uncachedSessions": Field(_session_kinds),
                    }
                ),
                "variables": MapOf(VARIABLE, key=_declared_name),
                "values": VALUES,
            }
        ),
        "hooks": Table({"bootstrap": Field(_hook)}),
    }
)


@dataclass(frozen=True, slots=True)
class Checked:
    """A validated layer tree."""

    data: dict
    """The tree, relative paths resolved; OpenClaw keys promptc does not use kept as written."""
    problems: list[ConfigError]
    """Every problem found; empty when the layer is valid."""
    unchecked: list[str]
    """Dotted names of the OpenClaw keys promptc does not use (accepted without checks, see openclaw.py)."""


def validate(data: dict, located: yamlsrc.Located, base_dir: Path) -> Checked:
    """Check a layer against the schema, collecting every problem."""
    problems: list[ConfigError] = []
    unchecked: list[str] = []
    cleaned = _check(SCHEMA, data, (), located, base_dir, (problems, unchecked))
    return Checked(cleaned, problems, unchecked)


Found = tuple[list[ConfigError], list[str]]
"""Where a walk collects (problems, unchecked OpenClaw keys)."""


def _check(node: Node, value: Any, path: tuple, located: yamlsrc.Located, base_dir: Path, found: Found) -> Any:
    problems = found[0]
    if isinstance(node, Field):
        return _check_field(node, value, path, located, base_dir, problems)
    if isinstance(node, ListOf):
        if not isinstance(value, list):
            problems.append(
                ConfigError(f"{_dotted(path)}: expected a list, got {_describe(value)}", located.where(path))
            )
            return value
        return [_check(node.item, item, path + (i,), located, base_dir, found) for i, item in enumerate(value)]
    if not isinstance(value, dict):
        problems.append(
            ConfigError(f"{_dotted(path)}: expected a mapping, got {_describe(value)}", located.where(path))
        )
        return value
    if isinstance(node, MapOf):
        _check_keys(node, value, path, located, problems)
        return {key: _check(node.value, item, path + (key,), located, base_dir, found) for key, item in value.items()}
    return _check_table(node, value, path, located, base_dir, found)


def _check_keys(node: MapOf, value: dict, path: tuple, located: yamlsrc.Located, problems: list) -> None:
    if node.key is None:
        return
    for key in value:
        problem = node.key(key)
        if problem is not None:
            problems.append(
                ConfigError(f"{_dotted(path)}: key {_describe(key)} {problem}", located.where(path + (key,)))
            )


def _check_table(node: Table, value: dict, path: tuple, located: yamlsrc.Located, base_dir: Path, found: Found) -> dict:
    problems, unchecked = found
    result = {}
    for key, item in value.items():
        child = node.fields.get(str(key))
        if child is not None:
            result[key] = _check(child, item, path + (key,), located, base_dir, found)
        elif openclaw.knows(table_pattern(path), str(key)) and key not in openclaw.NOT_SUPPORTED:
            result[key] = item  # kept for skills' `requires.config`, which may name any key
            unchecked.append(_dotted(path + (key,)))
        else:
            problems.append(ConfigError(_not_ours(path, str(key), node), located.where(path + (key,))))
    for key in node.required:
        if key not in value:
            problems.append(ConfigError(f"{_dotted(path)}: missing required key '{key}'", located.where(path)))
    return result


def _not_ours(path: tuple, key: str, node: Table) -> str:
    if key in openclaw.NOT_SUPPORTED:
        return f"'{_dotted(path + (key,))}': OpenClaw's {key} is not supported here; put the included settings in this file"
    known = {**node.fields, **dict.fromkeys(openclaw.KNOWN.get(table_pattern(path), ()))}
    return unknown_key(path, key, known)


def table_pattern(path: tuple) -> str:
    """The schema path of the table at `path`: `agents.list[].heartbeat`, `agents.defaults.models{}`."""
    node: Node | None = SCHEMA
    pattern = ""
    for part in path:
        if isinstance(node, Table):
            pattern, node = f"{pattern}.{part}" if pattern else str(part), node.fields.get(str(part))
        elif isinstance(node, ListOf):
            pattern, node = pattern + "[]", node.item
        elif isinstance(node, MapOf):
            pattern, node = pattern + "{}", node.value
    return pattern


def _check_field(node: Field, value: Any, path: tuple, located: yamlsrc.Located, base_dir: Path, problems: list) -> Any:
    if value is None and node.nullable:
        return None
    problem = node.check(value)
    if problem is not None:
        problems.append(ConfigError(f"{_dotted(path)}: {problem}", located.where(path)))
        return value
    if node.is_path:
        return _resolve_paths(value, base_dir)
    return node.convert(value) if node.convert else value


def _resolve_paths(value: str | list[str], base_dir: Path) -> str | list[str]:
    if isinstance(value, list):
        return [str(_resolve_path(item, base_dir)) for item in value]
    return str(_resolve_path(value, base_dir))


def _resolve_path(text: str, base_dir: Path) -> Path:
    # Absolute but not resolved: a symlink such as `current -> release-2` is followed when the
    # path is used, so repointing it takes effect without the config file changing.
    return Path(os.path.normpath(base_dir / Path(text).expanduser()))


def unknown_key(path: tuple, key: str, known: Mapping[str, Any]) -> str:
    where = f"{_dotted(path)}." if path else ""
    message = f"unknown key '{where}{key}'"
    return message + did_you_mean(key, sorted(known), any_case=True)


def _dotted(path: tuple) -> str:
    return ".".join(f"[{part}]" if isinstance(part, int) else str(part) for part in path).replace(".[", "[")


def path_values(value: Any, node: Node | None = None, where: tuple = ()) -> Iterator[tuple[tuple, str]]:
    """(key path, text) of every path-valued config field in a (possibly unvalidated) tree."""
    node = SCHEMA if node is None else node
    if isinstance(node, Field):
        if node.is_path and isinstance(value, str):
            yield where, value
        elif node.is_path and isinstance(value, list):
            yield from ((where + (i,), text) for i, text in enumerate(value) if isinstance(text, str))
        return
    for key, child, item in _children(node, value):
        yield from path_values(item, child, where + (key,))


def _children(node: Node, value: Any) -> Iterator[tuple[Any, Node, Any]]:
    """(key, schema node, value) below a list or mapping node; keys the schema lacks are skipped."""
    if isinstance(node, ListOf) and isinstance(value, list):
        yield from ((i, node.item, item) for i, item in enumerate(value))
    elif isinstance(node, MapOf) and isinstance(value, dict):
        yield from ((key, node.value, item) for key, item in value.items())
    elif isinstance(node, Table) and isinstance(value, dict):
        yield from ((key, node.fields[str(key)], item) for key, item in value.items() if str(key) in node.fields)
