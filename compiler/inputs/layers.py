"""Load config layers, validate them against a declared schema and resolve one agent.

Precedence, lowest to highest:
  1. built-in defaults (templates/defaults.yaml)
  2. each `--config` file, in the order given
  3. each `--set dotted.key=value`, in the order given
Mappings merge deeply and lists replace. Then, for the agent being compiled, its
`agents.list[]` entry (matched by `id`) is merged over `agents.defaults`.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .._lib import fsutil, resources
from .._lib.errors import ConfigError, Location, did_you_mean
from .._lib.reads import UNRECORDED, Recorder
from ..model.config import (
    Budgets,
    CacheConfig,
    HeartbeatConfig,
    KeepWarm,
    Layer,
    ResolvedConfig,
    SkillsConfig,
    duration,
    seconds,
)
from . import openclaw, schema, toolpolicy, yamlsrc

# --------------------------------------------------------------------------- layers


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a resolved value came from."""

    label: str
    """The layer's label."""
    found: Location | Mapping[tuple, Location] | None
    """The line in that layer, or the layer's locations to look `key_path` up in when first
    asked (a large JSON file is scanned for lines only when a message needs one)."""
    key_path: tuple = ()
    """The value's key path, when `found` is the layer's locations."""

    @property
    def location(self) -> Location | None:
        """The line in that layer, when it has lines."""
        if isinstance(self.found, Mapping):
            return self.found.get(self.key_path)
        return self.found

    def __str__(self) -> str:
        if self.location is None or self.location.line is None:
            return self.label
        return f"{self.label} ({self.location})"


@dataclass(frozen=True, slots=True)
class ConfigSet:
    """All layers merged, before an agent is picked."""

    tree: Mapping[str, Any]
    """The merged config tree."""
    origins: Mapping[tuple, Origin]
    """Path tuple -> the layer that last set it."""
    notes: tuple[str, ...] = ()
    """One line per layer that held OpenClaw settings promptc does not use."""


LayerCache = MutableMapping[tuple, "Layer"]
"""Parsed layers keyed on (path, label, base dir, the file's bytes): kept by a Compiler, so an
edited file is parsed again whatever its stat says, and bounded by it."""


def load(
    config_paths: Sequence[Path] = (),
    overrides: Sequence[str] = (),
    extra_layers: Sequence[Layer] = (),
    *,
    tracker: Recorder | None = None,
    cache: LayerCache | None = None,
) -> ConfigSet:
    """Read, validate and merge the defaults, each config file, extra layers (already built,
    e.g. a snapshot scenario's inline config) and each `--set` override, in that order.

    `tracker` records the files read; `cache` reuses layers parsed from the same bytes.
    """
    read = _Reader(tracker or UNRECORDED, {} if cache is None else cache)
    layers = [load_defaults(read)]
    layers += [load_file(path, read) for path in config_paths]
    layers += list(extra_layers)
    layers += [parse_override(text) for text in overrides]
    return merge_layers(layers)


def layer_from(located: yamlsrc.Located, label: str, base_dir: Path) -> Layer:
    """A validated layer from an already parsed tree (its locations point into its own file);
    relative paths in it resolve against `base_dir`."""
    return _validated(located, label, base_dir)


@dataclass(frozen=True, slots=True)
class _Reader:
    """Where config files are read from: recorded for freshness, parsed once per content."""

    tracker: Recorder
    cache: LayerCache

    def layer(self, path: Path, label: str, base_dir: Path) -> Layer:
        data = fsutil.read_input(path, ConfigError, observe=lambda info, raw: self.tracker.file(str(path), info, raw))
        key = (str(path), label, str(base_dir), data)
        layer = self.cache.get(key)
        if layer is None:
            layer = _validated(
                yamlsrc.parse_source(yamlsrc.decode(data, path, ConfigError), path, ConfigError), label, base_dir
            )
            self.cache[key] = layer
        return layer


DEFAULTS = "defaults"
"""The label of the built-in defaults layer."""


def load_defaults(read: _Reader | None = None) -> Layer:
    """The built-in defaults layer."""
    path = resources.templates_root() / "defaults.yaml"
    return (read or _Reader(UNRECORDED, {})).layer(path, DEFAULTS, Path.cwd())


def load_file(path: Path, read: _Reader | None = None) -> Layer:
    """One `--config` file (YAML or JSON)."""
    return (read or _Reader(UNRECORDED, {})).layer(path, str(path), Path(os.path.abspath(path)).parent)


def parse_override(text: str) -> Layer:
    """One `--set dotted.key=value`; the value is read as a YAML scalar or flow collection."""
    label = f"--set {text}"
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError("expected KEY=VALUE", Location(label))
    # Read like a config file (one-line located errors, lone surrogates replaced); the value's
    # own line numbers would only confuse, so the layer keeps no locations.
    value = yamlsrc.parse(raw, label, ConfigError).value if raw.strip() else ""
    parts = key.strip().split(".")
    tree: Any = value
    for part in reversed(parts):
        tree = {part: tree}
    located = yamlsrc.Located(tree, {}, label)
    return _validated(located, label, base_dir=Path.cwd())


def _validated(located: yamlsrc.Located, label: str, base_dir: Path) -> Layer:
    data = located.value if located.value is not None else {}
    if not isinstance(data, dict):
        raise ConfigError("a config file must be a mapping at the top", located.where(()))
    checked = schema.validate(data, located, base_dir)
    if checked.problems:
        raise ConfigError.gathered(checked.problems)
    return Layer(label, checked.data, located.locations, tuple(checked.unchecked), frozenset(checked.unchecked_paths))


# --------------------------------------------------------------------------- merge


def merge_layers(layers: Sequence[Layer]) -> ConfigSet:
    """Deep-merge layers in order (mappings merge, everything else replaces) with origins."""
    tree: dict[str, Any] = {}
    origins: dict[tuple, Origin] = {}
    for layer in layers:
        tree = merge(tree, layer.data)
        _record_origins(layer, layer.data, (), origins)
    return ConfigSet(tree, origins, tuple(note for layer in layers if (note := layer.note()) is not None))


def merge(base: Any, overlay: Any) -> Any:
    """`overlay` over `base`: mappings merge deeply, anything else replaces."""
    if isinstance(base, dict) and isinstance(overlay, dict):
        merged = dict(base)
        for key, value in overlay.items():
            merged[key] = merge(base.get(key), value)
        return merged
    return overlay


def _record_origins(layer: Layer, value: Any, path: tuple, origins: dict) -> None:
    if isinstance(value, dict) and value and path not in layer.unchecked_paths:
        origins.pop(path, None)  # an empty mapping set by an earlier layer is now filled in
        for key, item in value.items():
            _record_origins(layer, item, path + (key,), origins)
        return
    # A replaced list or scalar forgets the origins of whatever it replaced.
    for known in [known for known in origins if known[: len(path)] == path]:
        del origins[known]
    _record_leaf(layer, value, path, origins)


def _record_leaf(layer: Layer, value: Any, path: tuple, origins: dict) -> None:
    origins[path] = Origin(layer.label, layer.locations, path)
    if path in layer.unchecked_paths:
        return  # promptc reads nothing inside (a large `gateway` would cost an origin per value)
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in children:
        _record_leaf(layer, item, path + (key,), origins)


# --------------------------------------------------------------------------- resolve one agent


def resolve(configs: ConfigSet, agent: str | None, env: Mapping[str, str] = os.environ) -> ResolvedConfig:
    """The effective settings for `agent` (None: the default agent), its list entry merged over
    `agents.defaults`. `env`: the environment OpenClaw's default workspace is read from (an
    openclaw.json that names none)."""
    entries = configs.tree["agents"]["list"]
    agent = agent or default_agent_id(entries)
    entry = find_agent(configs, entries, agent)
    settings = merge(configs.tree["agents"]["defaults"], {k: v for k, v in entry.items() if k != "id"})
    built = _build(configs.tree, settings, entry, agent, default_agent_id(entries), _cache_config(configs))
    workspace, why = _workspace(configs, entries.index(entry) if entry else None, built, env)
    return dataclasses.replace(built, workspace=workspace, workspace_reason=why)


def _workspace(configs: ConfigSet, index: int | None, cfg: ResolvedConfig, env: Mapping[str, str]) -> tuple[str, str]:
    """The agent's workspace and why: its own entry's, then `agents.defaults.workspace` as a
    config file set it; with an openclaw.json among the files, the one OpenClaw implies."""
    own = configs.origins.get(("agents", "list", index, "workspace")) if index is not None else None
    if own is not None:
        return cfg.workspace, f"agents.list[{index}].workspace in {own.label}"
    shared = configs.origins.get(("agents", "defaults", "workspace"))
    set_by_user = shared is not None and shared.label != DEFAULTS
    if any(Path(o.label).name == openclaw.CONFIG_NAME for o in configs.origins.values()):
        folder = configs.tree["agents"]["defaults"]["workspace"]
        configured = (folder, shared.label) if set_by_user and shared is not None else None
        return openclaw.default_workspace(cfg.agent_id, cfg.is_default_agent, configured, env)
    if set_by_user and shared is not None:
        return cfg.workspace, f"agents.defaults.workspace in {shared.label}"
    return cfg.workspace, "the built-in default: the current directory"


def find_agent(configs: ConfigSet, entries: list[dict], agent: str) -> dict:
    """The `agents.list` entry for `agent` ({} when the list is empty); an id not in a non-empty list is an error."""
    ids = [entry["id"] for entry in entries]
    for index, entry_id in enumerate(ids):
        if entry_id in ids[:index]:
            origin = configs.origins.get(("agents", "list"))
            raise ConfigError(f"agents.list: duplicate agent id {entry_id!r}", origin.location if origin else None)
    if agent in ids:
        return entries[ids.index(agent)]
    if ids:
        hint = did_you_mean(agent, ids, f" (known: {', '.join(ids)})")
        raise ConfigError(f"unknown agent {agent!r}{hint}")
    return {}


def default_agent_id(entries: list[dict]) -> str:
    """The first list entry's id, or `main`."""
    return entries[0]["id"] if entries else "main"


def _cache_config(configs: ConfigSet) -> CacheConfig:
    """`prompt.cache`, with where each tier entry was written (its section ids are checked
    against the catalogue later, when the sections are known)."""
    tree = configs.tree["prompt"]["cache"]
    tiers = tuple(tuple(tier) for tier in tree["tiers"])
    locations = {}
    for i, tier in enumerate(tiers):
        for j, name in enumerate(tier):
            locations[name] = _written_at(configs, ("prompt", "cache", "tiers", i, j), ("prompt", "cache", "tiers"))
    cache = CacheConfig(
        tiers,
        tree["ttl"] or (),
        tree["openaiKey"],
        MappingProxyType(locations),
        tuple(tree["uncachedSessions"]),
        tree["openaiRetention"],
    )
    return dataclasses.replace(cache, keep_warm=_keep_warm(configs, cache))


def _written_at(configs: ConfigSet, *paths: tuple[str | int, ...]) -> Location:
    """Where the first of `paths` that a layer set was written (its layer's label when the layer
    has no lines, `config` when none set it)."""
    origin = next((found for path in paths if (found := configs.origins.get(path))), None)
    return origin.location if origin and origin.location else Location(origin.label if origin else "config")


def _keep_warm(configs: ConfigSet, cache: CacheConfig) -> KeepWarm | None:
    """`prompt.cache.keepWarm`, checked against the tiers' lifetimes: a ping must come before the
    shortest one runs out, and the window must hold at least one ping."""
    written = configs.tree["prompt"]["cache"]["keepWarm"]
    every, window = (None if written[key] is None else seconds(written[key]) for key in ("every", "window"))
    if every is None and window is None:
        return None

    def where(key: str) -> Location:
        return _written_at(configs, ("prompt", "cache", "keepWarm", key))

    if every is None:
        raise ConfigError("prompt.cache.keepWarm.window: set `every` too, or remove the window", where("window"))
    if window is None:
        raise ConfigError(
            "prompt.cache.keepWarm.every: set `window` too (how long after a turn pings go on)", where("every")
        )
    warm = KeepWarm(every, window)
    if not dataclasses.replace(cache, keep_warm=warm).pings_in_time:
        raise ConfigError(
            f"prompt.cache.keepWarm.every: {duration(every)} is not shorter than the {cache.shortest_ttl} lifetime "
            "a tier asks for; the entry would run out before the ping",
            where("every"),
        )
    if window < every:
        raise ConfigError(
            f"prompt.cache.keepWarm.window: {duration(window)} is shorter than `every` ({duration(every)}): "
            "no ping would be sent",
            where("window"),
        )
    return warm


def _build(
    tree: Mapping[str, Any], s: dict, entry: dict, agent: str, default_agent: str, cache: CacheConfig
) -> ResolvedConfig:
    skills_tree = tree["skills"]
    limits = {**skills_tree["limits"], **entry.get("skillsLimits", {})}
    return ResolvedConfig(
        agent_id=agent,
        is_default_agent=agent == default_agent,
        workspace=s["workspace"],
        budgets=Budgets(
            s["bootstrapMaxChars"],
            s["bootstrapTotalMaxChars"],
            s["bootstrapPromptTruncationWarning"],
            s["bootstrapTruncation"],
        ),
        heartbeat=HeartbeatConfig(
            s["heartbeat"]["enabled"], s["heartbeat"]["includeSystemPromptSection"], s["heartbeat"]["prompt"]
        ),
        skills=SkillsConfig(
            allowlist=tuple(s["skills"]) if s["skills"] is not None else None,
            max_prompt_chars=limits["maxSkillsPromptChars"],
            max_in_prompt=limits["maxSkillsInPrompt"],
            disabled=frozenset(name for name, e in skills_tree["entries"].items() if e.get("enabled") is False),
            extra_dirs=tuple(skills_tree["load"]["extraDirs"]),
            bundled_dir=skills_tree["load"]["bundledDir"],
        ),
        user_timezone=s["userTimezone"],
        time_format=s["timeFormat"],
        delegation_mode=s["subagents"]["delegationMode"],
        gpt5_personality=s["promptOverlays"]["gpt5"]["personality"],
        image_max_dimension_px=s["imageMaxDimensionPx"],
        model_aliases=tuple(sorted((m["alias"], model) for model, m in s["models"].items() if "alias" in m)),
        docs_path=s["docsPath"],
        plan_tool=tree["tools"]["experimental"]["planTool"],
        memory_in_groups=s["memoryInGroups"],
        memory_citations=tree["memory"]["citations"],
        fs_workspace_only=tree["tools"]["fs"]["workspaceOnly"],
        acp_enabled=tree["acp"]["enabled"],
        proactive_orchestration=s["subagents"]["proactiveOrchestration"],
        boundary_marker=tree["prompt"]["cacheBoundaryMarker"],
        template_dirs=tuple(tree["prompt"]["templateDirs"]),
        hooks=tuple(tree["hooks"]["bootstrap"]),
        context_limits=MappingProxyType(dict(s["contextLimits"])),
        tree=_freeze(tree),
        cache=cache,
        tool_names=_tool_names(tree["tools"], s.get("tools", {})),
        model=toolpolicy.model_name(s.get("model")),
    )


def _tool_names(global_tools: Mapping[str, Any], agent_tools: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The catalogue tools the config's policy keeps, or None when it chooses none."""
    if not toolpolicy.configured(global_tools, agent_tools):
        return None
    return toolpolicy.allowed_tools(toolpolicy.steps(global_tools, agent_tools))


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return MappingProxyType({key: _freeze(item) for key, item in value.items()})
    if isinstance(value, list):
        return tuple(_freeze(item) for item in value)
    return value
