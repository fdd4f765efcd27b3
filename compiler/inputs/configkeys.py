"""The config schema: every key promptc reads, as a tree of nodes (field, table, map, list), each
field with its check (valuechecks.py). schema.py walks a layer through it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .valuechecks import (
    Check,
    as_choice,
    boolean,
    boundary_marker,
    cache_tiers,
    cache_ttl,
    choice,
    declared_name,
    duration,
    hook_specs,
    model_ref,
    one_line,
    one_line_key,
    plain_data,
    positive_int,
    session_kinds,
    string,
    string_list,
    timezone,
    ttl_tuple,
    variable_name,
)


@dataclass(frozen=True, slots=True)
class Field:
    """A leaf value: `check` returns an error message, or None when the value is fine."""

    check: Check
    nullable: bool = False
    is_path: bool = False
    """Relative paths are resolved against the directory of the file that set them."""
    keywords: tuple[str, ...] = ()
    """Values of a path field that are words, kept as they are (`auto`)."""
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
    key: Check | None = None
    """Checks each key, when the keys reach the prompt (model ids)."""


@dataclass(frozen=True, slots=True)
class ListOf:
    """A list whose items share a schema."""

    item: Node


Node = Field | Table | MapOf | ListOf


def _choice_field(*choices: str) -> Field:
    return Field(choice(*choices), convert=as_choice)


POSITIVE_INT = Field(positive_int)
BOOL = Field(boolean)
TOOL_POLICY: dict[str, Node] = {
    "profile": _choice_field("minimal", "coding", "messaging", "full"),
    "allow": Field(string_list),
    "alsoAllow": Field(string_list),
    "deny": Field(string_list),
}
"""The keys that choose the tools of a run that lists none (`tools` and `agents.list[].tools`)."""

AGENT_FIELDS: dict[str, Node] = {
    "workspace": Field(one_line, is_path=True),
    "bootstrapMaxChars": POSITIVE_INT,
    "bootstrapTotalMaxChars": POSITIVE_INT,
    "bootstrapPromptTruncationWarning": _choice_field("off", "once", "always"),
    "bootstrapTruncation": _choice_field("75/25", "70/20"),
    "userTimezone": Field(timezone, nullable=True),
    "timeFormat": _choice_field("auto", "12", "24"),
    "heartbeat": Table({"enabled": BOOL, "includeSystemPromptSection": BOOL, "prompt": Field(string)}),
    "subagents": Table({"delegationMode": _choice_field("suggest", "prefer"), "proactiveOrchestration": BOOL}),
    "skills": Field(string_list, nullable=True),
    "contextLimits": MapOf(POSITIVE_INT),
    "promptOverlays": Table({"gpt5": Table({"personality": _choice_field("friendly", "on", "off")})}),
    "imageMaxDimensionPx": POSITIVE_INT,
    "models": MapOf(Table({"alias": Field(one_line)}), key=one_line_key),
    "docsPath": Field(one_line, nullable=True, is_path=True),
    "memoryInGroups": BOOL,
    "model": Field(model_ref),
}
"""What `agents.defaults` sets for every agent and an `agents.list[]` entry for its own."""

VALUES = MapOf(Field(plain_data, nullable=True), key=variable_name)
"""User variable values by name (`prompt.values`, `agents.list[].promptValues`)."""
VARIABLE = Table(
    {
        "side": _choice_field("stable", "volatile"),
        "default": Field(plain_data, nullable=True),
        "description": Field(string),
    },
    required=("side",),
)
"""One user variable's declaration (`prompt.variables.<name>`)."""

AGENT_ENTRY = Table(
    {
        "id": Field(one_line),
        **AGENT_FIELDS,
        "skillsLimits": Table({"maxSkillsPromptChars": POSITIVE_INT}),
        "tools": Table(TOOL_POLICY),
        "promptValues": VALUES,
    },
    required=("id",),
)

BUNDLED_AUTO = "auto"
"""`skills.load.bundledDir: auto`: look for an installed `openclaw` package (skills/bundled.py)."""

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
                        "extraDirs": Field(string_list, is_path=True),
                        "bundledDir": Field(one_line, nullable=True, is_path=True, keywords=(BUNDLED_AUTO,)),
                        "allowSymlinkTargets": Field(string_list, is_path=True),
                    }
                ),
            }
        ),
        "tools": Table(
            {**TOOL_POLICY, "experimental": Table({"planTool": BOOL}), "fs": Table({"workspaceOnly": BOOL})}
        ),
        "memory": Table({"citations": _choice_field("auto", "on", "off")}),
        "acp": Table({"enabled": BOOL}),
        "prompt": Table(
            {
                "cacheBoundaryMarker": Field(boundary_marker),
                "templateDirs": Field(string_list, is_path=True),
                "cache": Table(
                    {
                        "tiers": Field(cache_tiers),
                        "ttl": Field(cache_ttl, nullable=True, convert=ttl_tuple),
                        "openaiKey": BOOL,
                        "openaiRetention": Field(choice("in_memory", "24h"), nullable=True, convert=as_choice),
                        "uncachedSessions": Field(session_kinds),
                        "keepWarm": Table(
                            {
                                "every": Field(duration, nullable=True),
                                "window": Field(duration, nullable=True),
                            }
                        ),
                    }
                ),
                "variables": MapOf(VARIABLE, key=declared_name),
                "values": VALUES,
            }
        ),
        "hooks": Table({"bootstrap": Field(hook_specs)}),
    }
)
"""Every key of a config layer promptc reads."""
