"""The tools and model a run gets from the config when the run file names none, the way OpenClaw
filters its core tool catalogue (templates/tools.yaml).

Each policy step keeps a tool only when no deny entry matches it and, if the step has an allow
list, an allow entry does. The steps run in order, each on what the one before kept:

1. the profile (`tools.profile`, or the agent's own), widened by `alsoAllow`;
2. `tools.allow` / `tools.alsoAllow` / `tools.deny`;
3. the agent's `agents.list[].tools` allow / alsoAllow / deny.

Entries are lowercased, `bash` means `exec`, `group:<name>` stands for its tools, `*` matches
any run of characters, and allowing `write` allows `apply_patch` too.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._lib.resources import shipped_yaml
from ..model.config import ResolvedConfig
from ..model.runfacts import RunFacts, Tool

POLICY_KEYS = ("profile", "allow", "alsoAllow", "deny")
"""The keys of `tools` and `agents.list[].tools` that choose tools."""


@dataclass(frozen=True, slots=True)
class Catalogue:
    """OpenClaw's core tools, in its order, with what the policy entries can name."""

    summaries: Mapping[str, str]
    """Tool name -> one-line summary (our words), in catalogue order."""
    groups: Mapping[str, tuple[str, ...]]
    """`group:<name>` -> its tools."""
    profiles: Mapping[str, tuple[str, ...]]
    """Profile -> the allow entries it stands for."""
    aliases: Mapping[str, str]
    """Other spellings of a tool name."""


@dataclass(frozen=True, slots=True)
class Step:
    """One policy step: allow entries (None: everything not denied) and deny entries."""

    allow: tuple[str, ...] | None
    deny: tuple[str, ...]


@functools.cache
def catalogue() -> Catalogue:
    """templates/tools.yaml, read once."""
    data = shipped_yaml("tools.yaml")
    tools: dict[str, dict[str, Any]] = data["tools"]
    groups: dict[str, list[str]] = {"group:openclaw": [n for n, t in tools.items() if t["openclaw"]]}
    for name, tool in tools.items():
        groups.setdefault(f"group:{tool['group']}", []).append(name)
    profiles = {p: tuple(n for n, t in tools.items() if p in t["profiles"]) for p in data["profiles"]}
    profiles["full"] = ("*",)
    return Catalogue(
        {n: t["summary"] for n, t in tools.items()},
        {g: tuple(names) for g, names in groups.items()},
        profiles,
        dict(data["aliases"]),
    )


def configured(global_tools: Mapping[str, Any], agent_tools: Mapping[str, Any]) -> bool:
    """Whether the config chooses tools at all (else a run without tools keeps none)."""
    return any(key in global_tools or key in agent_tools for key in POLICY_KEYS)


def steps(global_tools: Mapping[str, Any], agent_tools: Mapping[str, Any]) -> tuple[Step, ...]:
    """The policy steps, in the order they filter (the agent's profile wins over the global one)."""
    cat = catalogue()
    profile = agent_tools.get("profile") or global_tools.get("profile")
    also = agent_tools.get("alsoAllow", global_tools.get("alsoAllow"))
    result = []
    if isinstance(profile, str) and profile in cat.profiles:
        result.append(Step((*cat.profiles[profile], *(also or ())), ()))
    result += [step for step in (_step(global_tools), _step(agent_tools)) if step is not None]
    return tuple(result)


def _step(tools: Mapping[str, Any]) -> Step | None:
    """The allow / alsoAllow / deny of one scope: alsoAllow alone (or beside an empty allow)
    allows everything plus its entries, so it only matters for the profile step."""
    allow, also, deny = tools.get("allow"), tools.get("alsoAllow") or [], tools.get("deny")
    if allow is None and not also and deny is None:
        return None
    entries: tuple[str, ...] | None = None
    if allow:
        entries = (*allow, *also)
    elif allow is not None or also:  # an empty allow list, or alsoAllow alone: everything
        entries = ("*", *also)
    return Step(entries, tuple(deny or ()))


def allowed_tools(policy: Sequence[Step]) -> tuple[str, ...]:
    """The catalogue's tools every step keeps, in catalogue order."""
    return tuple(name for name in catalogue().summaries if all(_keeps(step, name) for step in policy))


def _keeps(step: Step, name: str) -> bool:
    if _matches(name, step.deny):
        return False
    if not step.allow:
        return True
    return _matches(name, step.allow) or (name == "apply_patch" and _matches("write", step.allow))


def _matches(name: str, entries: Sequence[str]) -> bool:
    return any(_pattern(entry).fullmatch(name) for entry in _expand(entries))


def _expand(entries: Sequence[str]) -> tuple[str, ...]:
    """Entries normalised, groups replaced by their tools."""
    cat = catalogue()
    out: list[str] = []
    for entry in entries:
        key = cat.aliases.get(entry.strip().lower(), entry.strip().lower())
        out.extend(cat.groups.get(key, (key,)) if key else ())
    return tuple(out)


@functools.cache
def _pattern(entry: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in entry.split("*")))


def model_name(value: Any) -> str | None:
    """`agents.defaults.model` / `agents.list[].model`: a string, or `{primary}`."""
    if isinstance(value, Mapping):
        value = value.get("primary")
    return value.strip() or None if isinstance(value, str) else None


def with_config(run: RunFacts, cfg: ResolvedConfig) -> RunFacts:
    """`run` with the config's tools when it lists none, and the config's model when it names none."""
    changes: dict[str, Any] = {}
    if not run.tools and cfg.tool_names is not None:
        summaries = catalogue().summaries
        changes["tools"] = tuple(Tool(name, summaries[name]) for name in cfg.tool_names)
    if run.model is None and cfg.model is not None:
        changes["model"] = cfg.model
    return dataclasses.replace(run, **changes) if changes else run
