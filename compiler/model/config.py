"""The config of one agent after every layer is merged and checked."""

from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .._lib.errors import Location

Side = Literal["stable", "volatile"]
"""Which side of the cache boundary a section or variable is on."""
SIDES: tuple[str, ...] = typing.get_args(Side)
CacheTTL = Literal["5m", "1h"]
CACHE_TTLS: tuple[str, ...] = typing.get_args(CacheTTL)
"""The lifetimes a provider cache breakpoint can ask for, shortest first."""
DURATION_UNITS = {"m": 60, "h": 3600}
"""The units a config duration (`55m`, `2h`, a TTL) is written in, in seconds."""
DEFAULT_CACHE_TTLS = ("1h", "5m")
"""With no `prompt.cache.ttl`: an hour on the first tier, five minutes on later ones."""
TruncationWarning = Literal["off", "once", "always"]
TRUNCATION_WARNINGS: tuple[str, ...] = typing.get_args(TruncationWarning)
"""When the fixed truncation notice is shown: never, once per truncation, always."""
TruncationStyle = Literal["75/25", "70/20"]
TRUNCATION_STYLES: tuple[str, ...] = typing.get_args(TruncationStyle)
"""How a long file is cut: 75% head and 25% tail of what the marker leaves, or 70% head and 20%
tail of the whole budget."""
MAX_CACHE_TIERS = 3
"""Breakpoints the system prompt may use (Anthropic allows four; the runtime keeps one for the
conversation)."""


@dataclass(frozen=True, slots=True)
class Budgets:
    """Bootstrap budgets for one agent."""

    max_chars: int = 20000
    """Per-file budget."""
    total_max_chars: int = 60000
    """Budget across all bootstrap files."""
    warning: TruncationWarning = "always"
    """When the fixed truncation notice is rendered."""
    style: TruncationStyle = "75/25"
    """How a file over its budget is cut (truncate.py)."""


@dataclass(frozen=True, slots=True)
class HeartbeatConfig:
    """Heartbeat settings for one agent."""

    enabled: bool = False
    """Heartbeats on (they only ever apply to the default agent)."""
    include_section: bool = True
    """Whether HEARTBEAT.md and the Heartbeats section reach the prompt."""
    prompt: str = ""
    """The heartbeat prompt text."""


@dataclass(frozen=True, slots=True)
class SkillsConfig:
    """Skill discovery, eligibility and budget settings for one agent."""

    allowlist: tuple[str, ...] | None = None
    """Skill names the agent may use; None means all."""
    max_prompt_chars: int = 18000
    """Budget for the whole `<available_skills>` block."""
    max_in_prompt: int = 150
    """At most this many skills are listed."""
    disabled: frozenset[str] = frozenset()
    """Names with `skills.entries.<name>.enabled: false`."""
    extra_dirs: tuple[str, ...] = ()
    """More skill roots, lowest precedence first."""
    bundled_dir: str | None = None
    """`skills.load.bundledDir`: a directory of bundled skills, `auto` (look for an installed
    `openclaw` package), or None for none."""


@dataclass(frozen=True, slots=True)
class KeepWarm:
    """`prompt.cache.keepWarm`: while a model is idle, the runtime re-sends the cached part of its
    last prompt every `every` seconds, so the breakpoints' entries are read (and their lifetime
    renewed) instead of running out; it stops `window` seconds after the last real turn."""

    every: int
    """Seconds between pings; shorter than every tier's lifetime."""
    window: int
    """Seconds after the last real turn on the model past which no ping is sent."""

    def times(self, after: float, before: float) -> tuple[float, ...]:
        """The pings due after a real turn at `after` when the next one on the same model and
        prompt comes at `before` (infinity when none comes)."""
        due = (after + self.every * n for n in range(1, self.window // self.every + 1))
        return tuple(at for at in due if at < before)

    def as_data(self) -> dict[str, Any]:
        """As the JSON outputs give it: the durations as written, and in seconds."""
        return {
            "every": duration(self.every),
            "window": duration(self.window),
            "every_seconds": self.every,
            "window_seconds": self.window,
        }


@dataclass(frozen=True, slots=True)
class CacheConfig:
    """`prompt.cache`: how the stable part is cut into provider cache tiers."""

    tiers: tuple[tuple[str, ...], ...] = (
        ("sections", "AGENTS.md", "TOOLS.md", "IDENTITY.md", "BOOTSTRAP.md"),
        ("SOUL.md", "USER.md"),
        ("MEMORY.md", "memory.md"),
    )
    """At most three tiers, each a list of file names and section ids (`sections`: every stable
    section not named elsewhere), least often changed first. `NAME#head` puts the kept head of
    a cut file in an earlier tier than the rest of it; `dynamic_context` in the last tier moves
    its breakpoint below the boundary, past the Dynamic Project Context."""
    ttl: tuple[str, ...] = ()
    """Requested lifetime per tier (the last repeats); empty: `1h` on the first tier, `5m` after."""
    openai_key: bool = False
    """`prompt.cache.openaiKey`: send `prompt_cache_key` (from the stable hash) to OpenAI."""
    locations: Mapping[str, Any] = field(default_factory=dict)
    """Where each tier name was written (name -> errors.Location), for errors found later."""
    uncached_sessions: tuple[str, ...] = ()
    """`prompt.cache.uncachedSessions`: session kinds whose Anthropic and Bedrock payloads carry
    no breakpoint (they run further apart than any cache lives: a write would be paid for nothing)."""
    openai_retention: str | None = None
    """`prompt.cache.openaiRetention`: the `prompt_cache_retention` sent to OpenAI (`in_memory` or `24h`)."""
    keep_warm: KeepWarm | None = None
    """`prompt.cache.keepWarm`: the keep-warm pings the runtime sends while idle; None for none."""

    def ttl_at(self, position: int) -> str:
        """The lifetime asked for the configured tier at `position` (0-based); a list's last
        entry repeats."""
        ttls = self.ttl or DEFAULT_CACHE_TTLS
        return ttls[min(position, len(ttls) - 1)]

    @property
    def shortest_ttl(self) -> str:
        """The shortest lifetime any breakpoint asks for (no tiers: one breakpoint at the boundary)."""
        return min((self.ttl_at(i) for i in range(max(1, len(self.tiers)))), key=seconds)

    @property
    def pings_in_time(self) -> bool:
        """Whether a keep-warm ping comes before the shortest lifetime runs out (True with none)."""
        return self.keep_warm is None or self.keep_warm.every < seconds(self.shortest_ttl)


def seconds(duration: str) -> int:
    """A valid duration (`5m`, `55m`, `2h`) in seconds."""
    return int(duration[:-1]) * DURATION_UNITS[duration[-1]]


def duration(count: int) -> str:
    """Seconds as a config duration: whole hours as `2h`, else minutes."""
    return f"{count // 3600}h" if count % 3600 == 0 else f"{count // 60}m"


@dataclass(frozen=True, slots=True)
class VariableDecl:
    """A user variable declared in `prompt.variables.<name>`."""

    name: str
    """What a template writes after `vars.`."""
    side: Side
    """`stable`: readable above the cache boundary; `volatile`: only below it."""
    has_default: bool
    """Whether the declaration gives a `default`."""
    default: Any
    """The default value (frozen plain data); None when there is none."""
    description: str
    """What the variable is for (reports)."""
    where: Location | None
    """Where it is declared."""


@dataclass(frozen=True, slots=True)
class VariableValue:
    """A user variable's value from the config: `prompt.values`, or the agent's `promptValues`."""

    name: str
    """The variable."""
    value: Any
    """Frozen plain data."""
    origin: str
    """The key and the layer that set it, as `config explain` names them."""
    where: Location | None
    """The line that set it."""


@dataclass(frozen=True, slots=True)
class UserVariable:
    """A user variable with the value this compile uses and where that value came from."""

    name: str
    """What a template writes after `vars.`."""
    side: Side
    """The side of the boundary it may be read on."""
    value: Any
    """Frozen plain data."""
    origin: str
    """Where the value came from: the declaration's default, a config key, the run facts or `--var`."""
    description: str = ""
    """The declaration's description."""


@dataclass(frozen=True, slots=True)
class ResolvedConfig:
    """Config for one agent after all layers are merged and validated."""

    agent_id: str
    """The agent this config was resolved for."""
    is_default_agent: bool
    """True for the first `agents.list` entry (or `main` when the list is empty)."""
    workspace: str
    """Workspace directory, absolute (a relative one was resolved against its config file)."""
    budgets: Budgets
    """Bootstrap budgets."""
    heartbeat: HeartbeatConfig
    """Heartbeat settings."""
    skills: SkillsConfig
    """Skills settings."""
    user_timezone: str | None
    """IANA zone; the Date & Time section appears only when set."""
    time_format: str
    """`auto` / `12` / `24`; reported, never rendered above the boundary."""
    delegation_mode: str
    """`suggest` / `prefer`."""
    gpt5_personality: str
    """`friendly` / `on` / `off`."""
    image_max_dimension_px: int
    """Longest image side kept when sanitising transcripts."""
    model_aliases: tuple[tuple[str, str], ...]
    """(alias, provider/model) pairs, sorted by alias."""
    docs_path: str | None
    """Local docs directory; None uses the public docs URL."""
    plan_tool: bool
    """`tools.experimental.planTool`."""
    boundary_marker: str
    """The in-band cache boundary marker."""
    template_dirs: tuple[str, ...]
    """User template dirs, searched before the built-in ones."""
    hooks: tuple[str, ...]
    """`module:function` bootstrap hooks."""
    context_limits: Mapping[str, Any]
    """Runtime excerpt budgets; reported only."""
    tree: Mapping[str, Any]
    """The whole merged config tree, for `requires.config` lookups and reports."""
    memory_in_groups: bool = False
    """`agents.defaults.memoryInGroups`: MEMORY.md also reaches group chats."""
    memory_citations: str = "auto"
    """`memory.citations`: `auto` / `on` / `off`."""
    fs_workspace_only: bool = False
    """`tools.fs.workspaceOnly`: file tools may only touch the workspace."""
    acp_enabled: bool = False
    """`acp.enabled`: sessions_spawn can start external coding harnesses."""
    proactive_orchestration: bool = False
    """`agents.defaults.subagents.proactiveOrchestration`: split independent work across sub-agents."""
    cache: CacheConfig = field(default_factory=CacheConfig)
    """`prompt.cache`: cache tiers, their lifetimes and the OpenAI cache key."""
    variables: tuple[VariableDecl, ...] = ()
    """User variables declared in `prompt.variables`, in the order written."""
    tool_names: tuple[str, ...] | None = None
    """The tools `tools.profile` / `allow` / `deny` (and the agent's own) give a run that lists
    none, in catalogue order; None when the config chooses no tools."""
    workspace_reason: str = "the built-in default: the current directory"
    """Why `workspace` is the one it is (which key of which file, or whose default)."""
    model: str | None = None
    """`agents.defaults.model` or the agent's own (its `primary` id): the model of a run that names none."""
    values: tuple[VariableValue, ...] = ()
    """Their values from the config for this agent (`prompt.values` under `promptValues`)."""

    def lookup(self, dotted: str) -> Any:
        """The value at a dotted path in the merged tree, or None."""
        node: Any = self.tree
        for part in dotted.split("."):
            if not isinstance(node, Mapping) or part not in node:
                return None
            node = node[part]
        return node


@dataclass(frozen=True, slots=True)
class Layer:
    """One validated config source."""

    label: str
    """`defaults`, the config file path, or `--set KEY=VALUE`."""
    data: Mapping[str, Any]
    """The validated tree, relative paths already resolved."""
    locations: Mapping[tuple, Location]
    """Where each value was written."""
    unchecked: tuple[str, ...] = ()
    """OpenClaw keys promptc does not use, accepted without checks (inputs/openclaw.py)."""
    unchecked_paths: frozenset[tuple] = frozenset()
    """The same keys as key paths: their values get one origin, at the key, none inside."""

    def note(self) -> str | None:
        """One line naming the unchecked OpenClaw keys, or None."""
        if not self.unchecked:
            return None
        names = self.unchecked
        shown = ", ".join(names[:NOTE_NAMES]) + (
            f" and {len(names) - NOTE_NAMES} more" if len(names) > NOTE_NAMES else ""
        )
        return f"{self.label}: OpenClaw settings promptc does not use were accepted unchecked: {shown}"


NOTE_NAMES = 6
"""How many unchecked keys a layer's note names."""
