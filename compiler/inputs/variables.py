"""User template variables in the config, resolved for one agent.

Declared once in `prompt.variables.<name>: {side, default?, description?}`; valued in
`prompt.values.<name>`, which an agent's `agents.list[].promptValues.<name>` overrides (mappings
merge deeply, as everywhere in the config). A value for a name nobody declared is an error with
a did-you-mean, at the line that set it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from .._lib.errors import ConfigError, Location, did_you_mean
from .._lib.frozen import freeze_plain
from ..model.config import ResolvedConfig, VariableDecl, VariableValue
from . import explain
from .layers import ConfigSet


def attach(configs: ConfigSet, cfg: ResolvedConfig) -> ResolvedConfig:
    """`cfg` with the declared user variables and the agent's configured values."""
    declared = declarations(configs)
    return dataclasses.replace(cfg, variables=declared, values=values(configs, cfg.agent_id, declared))


def declarations(configs: ConfigSet) -> tuple[VariableDecl, ...]:
    """Every `prompt.variables` entry, in the order written."""
    found = []
    for name, spec in configs.tree["prompt"]["variables"].items():
        where = _where(configs, ("prompt", "variables", name))
        default = freeze_plain(spec.get("default"))
        found.append(VariableDecl(name, spec["side"], "default" in spec, default, spec.get("description", ""), where))
    return tuple(found)


def values(configs: ConfigSet, agent: str, declared: Sequence[VariableDecl]) -> tuple[VariableValue, ...]:
    """The agent's configured value of each variable that has one, in declaration order."""
    own = _entry_values(configs, agent)
    merged = {**configs.tree["prompt"]["values"], **own}
    names = [decl.name for decl in declared]
    undeclared = [_undeclared(configs, agent, name, names) for name in merged if name not in names]
    if undeclared:
        raise ConfigError.gathered(undeclared)
    found = []
    for name in (n for n in names if n in merged):
        looked = explain.explain(configs, f"prompt.values.{name}", agent)
        key = _value_path(configs, agent, name)
        found.append(
            VariableValue(
                name, freeze_plain(looked.value), f"{explain.show_key(key)} ({looked.origin})", _where(configs, key)
            )
        )
    return tuple(found)


def _value_path(configs: ConfigSet, agent: str, name: str) -> tuple:
    """Where the agent's value of `name` is set: its own `promptValues`, else `prompt.values`."""
    entries = configs.tree["agents"]["list"]
    index = next((i for i, e in enumerate(entries) if e["id"] == agent and name in e.get("promptValues", {})), None)
    return ("prompt", "values", name) if index is None else ("agents", "list", index, "promptValues", name)


def _entry_values(configs: ConfigSet, agent: str) -> Mapping[str, Any]:
    entries = configs.tree["agents"]["list"]
    entry: Mapping[str, Any] = next((e for e in entries if e["id"] == agent), {})
    return entry.get("promptValues", {})


def _undeclared(configs: ConfigSet, agent: str, name: str, names: Sequence[str]) -> ConfigError:
    path = _value_path(configs, agent, name)
    return ConfigError(f"{explain.show_key(path)}: {undeclared_message(name, names)}", _where(configs, path))


def undeclared_message(name: str, names: Sequence[str]) -> str:
    """What is wrong with a value for a variable nobody declared."""
    hint = did_you_mean(name, names)
    return f"no user variable '{name}' is declared in prompt.variables{hint}"


def _where(configs: ConfigSet, path: tuple) -> Location | None:
    """The line that set `path`; for a mapping, the first line set inside it."""
    origin = configs.origins.get(path) or next((o for k, o in configs.origins.items() if k[: len(path)] == path), None)
    return origin.location if origin is not None else None
