"""`config explain`: a key's resolved value and the layer (file:line) that set it.

Keys are dotted, with brackets for a part that holds dots or slashes and for list indexes:
`agents.defaults.models["openai/gpt-5.5"].alias`, `agents.list[0].id`. With an agent, an agent
setting is that agent's effective value: `agents.defaults.X`, or a bare agent key `X`, is its
`agents.list[]` entry merged over the defaults; `skills.limits.X` and `prompt.values.X` take the
entry's `skillsLimits` / `promptValues` into account.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._lib.errors import ConfigError
from . import configkeys, schema
from .configkeys import MapOf, Node, Table
from .layers import ConfigSet, Origin, default_agent_id, find_agent, merge

AGENT_KEYS = frozenset(configkeys.AGENT_ENTRY.fields) - {"id"}
"""Keys an agent can set for itself; a bare one (`subagents.delegationMode`) means the agent's."""


@dataclass(frozen=True, slots=True)
class Explanation:
    """A resolved value and where it came from."""

    key: str
    """The key asked about, as written."""
    value: Any
    """Its value (for an agent setting: the agent's effective value)."""
    origin: Origin
    """The layer (and line) that set it."""
    looked_up: str
    """What is looked up: the key itself, or the agent's effective setting it stands for."""


# --------------------------------------------------------------------------- keys

_PART = re.compile(r"""\s*(?:\[\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|(\d+))\s*\]|([^.\[\]"']+))""")


def parse_key(key: str) -> tuple[Any, ...]:
    """`a.b["c/d.e"][0].f` -> ("a", "b", "c/d.e", 0, "f"); anything else is a ConfigError."""
    parts: list[Any] = []
    position, after_part = 0, False
    while position < len(key):
        if after_part and key[position] == ".":
            position, after_part = position + 1, False
            continue
        match = _PART.match(key, position)
        if match is None or (after_part and match.group(4) is not None):
            raise ConfigError(
                f"cannot read the key {key!r} at character {position + 1} "
                '(write a part with dots or slashes in brackets: models["openai/gpt-5.5"])'
            )
        double, single, index, bare = match.groups()
        if index is not None:
            parts.append(int(index))
        elif bare is not None:
            parts.append(bare.strip())
        else:
            quote = '"' if double is not None else "'"
            parts.append((double if double is not None else single).replace("\\" + quote, quote))
        position, after_part = match.end(), True
    if not parts or not after_part:
        raise ConfigError(f"cannot read the key {key!r}: it is empty or ends with a dot")
    return tuple(parts)


def show_key(path: tuple[Any, ...]) -> str:
    """A path as `explain` writes it: dotted, brackets where a part needs them."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif re.fullmatch(r"[^.\[\]\"'/\s]+", part):
            text += f".{part}" if text else part
        else:
            text += f'["{part}"]'
    return text


# --------------------------------------------------------------------------- explain


def explain(configs: ConfigSet, key: str, agent: str | None = None) -> Explanation:
    """Look up a key; agent settings are resolved for `agent` (None: the default agent)."""
    path = parse_key(key)
    tree = configs.tree
    if path[0] not in tree and path[0] in AGENT_KEYS:
        path = ("agents", "defaults") + path  # a bare agent setting
        agent = agent or default_agent_id(tree["agents"]["list"])
    if agent is not None and path[:2] == ("agents", "defaults"):
        return _for_agent(configs, key, path, path[2:], agent, entry_key=None)
    if agent is not None and path[:2] in configkeys.AGENT_OVERRIDES:
        return _for_agent(configs, key, path, path[2:], agent, entry_key=configkeys.AGENT_OVERRIDES[path[:2]])
    if not _has(tree, path):
        raise ConfigError(_unknown_path(tree, path))
    return Explanation(key, _get(tree, path), _origin_of(configs, [path]), show_key(path))


def _for_agent(configs: ConfigSet, key: str, path: tuple, sub: tuple, agent: str, entry_key: str | None) -> Explanation:
    """The agent's effective value under `path[:2]`: its entry (or the entry's `entry_key`) over it."""
    entries = configs.tree["agents"]["list"]
    entry = find_agent(configs, entries, agent)
    own = {k: v for k, v in entry.items() if k != "id"} if entry_key is None else entry.get(entry_key, {})
    effective = merge(_get(configs.tree, path[:2]), own)
    if not _has(effective, sub):
        raise ConfigError(_unknown_path(configs.tree, path))
    value = _get(effective, sub)
    paths = [path]
    if entry and _has(own, sub):
        index = entries.index(entry)
        own_path = ("agents", "list", index) + ((entry_key,) if entry_key else ()) + sub
        paths = paths + [own_path] if isinstance(value, dict) else [own_path]  # a leaf: the entry wins
    return Explanation(key, value, _origin_of(configs, paths), f"{show_key(path)} for agent {agent}")


def _origin_of(configs: ConfigSet, paths: list[tuple]) -> Origin:
    """Who set the value at `paths`: for a mapping, every layer that set something inside it."""
    inside = [o for k, o in configs.origins.items() if any(k[: len(p)] == p for p in paths)]
    labels = list(dict.fromkeys(origin.label for origin in inside))
    if len(labels) > 1:
        return Origin(f"several layers: {', '.join(labels)}", None)
    exact = [configs.origins[p] for p in reversed(paths) if p in configs.origins]
    if exact or inside:
        return (exact or inside)[0]
    return _nearest_ancestor(configs, paths[0])


def _nearest_ancestor(configs: ConfigSet, path: tuple) -> Origin:
    for end in range(len(path), -1, -1):
        found = configs.origins.get(path[:end])
        if found is not None:
            return found
    return Origin("defaults", None)


def _has(tree: Any, path: tuple) -> bool:
    for part in path:
        if (isinstance(tree, Mapping) and part in tree) or (
            isinstance(tree, list) and isinstance(part, int) and 0 <= part < len(tree)
        ):
            tree = tree[part]
        else:
            return False
    return True


def _get(tree: Any, path: tuple) -> Any:
    for part in path:
        tree = tree[part]
    return tree


def _unknown_path(tree: Mapping[str, Any], path: tuple) -> str:
    node: Any = tree
    for depth, part in enumerate(path):
        if isinstance(node, list) and isinstance(part, int):
            if 0 <= part < len(node):
                node = node[part]
                continue
            return f"'{show_key(path[:depth])}' has {len(node)} entries; there is no [{part}]"
        if not isinstance(node, Mapping) or part not in node:
            known = node if isinstance(node, Mapping) else {}
            return schema.unknown_key(path[:depth], str(part), known) + _bracket_hint(known, path, depth)
        node = node[part]
    return f"unknown key '{show_key(path)}'"


def _bracket_hint(known: Mapping[str, Any], path: tuple, depth: int) -> str:
    """A hint when the rest of a dotted key, joined again, names a key that holds dots or slashes."""
    rest = [str(part) for part in path[depth:]]
    for end in range(len(rest), 1, -1):
        joined = ".".join(rest[:end])
        if joined in known:
            return f"; a key with dots or slashes goes in brackets: {show_key(path[:depth] + (joined,) + path[depth + end :])}"
    return ""


# --------------------------------------------------------------------------- the whole resolved config


@dataclass(frozen=True, slots=True)
class Resolved:
    """The config one agent is compiled with, every value with the layer that set it."""

    agent: str
    """The agent."""
    tree: dict[str, Any]
    """Every key promptc reads; `agents.defaults`, `skills.limits` and `prompt.values` hold the
    agent's effective values (its `agents.list` entry merged over them), and `agents.list` is left
    out. OpenClaw settings promptc does not use are left out too."""
    origins: dict[tuple[Any, ...], Origin]
    """The layer of each value that is not a non-empty mapping, by its key path."""


def resolved(configs: ConfigSet, agent: str | None = None) -> Resolved:
    """The resolved config of `agent` (None: the default agent), with each value's origin as
    `config explain` gives it."""
    tree = configs.tree
    entries = tree["agents"]["list"]
    agent = agent or default_agent_id(entries)
    entry = find_agent(configs, entries, agent)
    view = {
        **tree,
        "agents": {"defaults": merge(tree["agents"]["defaults"], {k: v for k, v in entry.items() if k != "id"})},
    }
    for (table, key), entry_key in configkeys.AGENT_OVERRIDES.items():
        view[table] = {**tree[table], key: merge(tree[table][key], entry.get(entry_key, {}))}
    shown = _known(configkeys.SCHEMA, view)
    origins = {path: explain(configs, show_key(path), agent).origin for path in _leaves(shown, ())}
    return Resolved(agent, shown, origins)


def _known(node: Node, value: Any) -> Any:
    """`value` with only the keys the schema declares (a map's keys are all declared)."""
    if isinstance(node, Table) and isinstance(value, dict):
        return {key: _known(node.fields[key], item) for key, item in value.items() if key in node.fields}
    if isinstance(node, MapOf) and isinstance(value, dict):
        return {key: _known(node.value, item) for key, item in value.items()}
    return value


def _leaves(tree: Mapping[str, Any], path: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """The key path of every value in `tree` that is not a non-empty mapping."""
    found = []
    for key, value in tree.items():
        if isinstance(value, dict) and value:
            found += _leaves(value, path + (key,))
        else:
            found.append(path + (key,))
    return found
