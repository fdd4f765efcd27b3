"""Frozen data types that flow between the pipeline stages. No I/O and no Jinja here."""

from __future__ import annotations

import hashlib
from dataclasses import field
from typing import Any, Literal, Mapping

from . import checks
from .errors import Location
from .frozen import EMPTY, FrozenMap
from .records import frozen

SessionKind = Literal["main", "subagent", "cron", "heartbeat"]
PromptMode = Literal["full", "minimal", "none"]
Side = Literal["stable", "volatile"]
FileStatus = Literal["ok", "truncated", "missing", "skipped", "dropped", "filtered"]

SESSION_KINDS: tuple[str, ...] = ("main", "subagent", "cron", "heartbeat")
PROMPT_MODES: tuple[str, ...] = ("full", "minimal", "none")
SIDES: tuple[str, ...] = ("stable", "volatile")
HARNESSES: tuple[str, ...] = ("default", "codex")
CHAT_TYPES: tuple[str, ...] = ("direct", "group")

BOOTSTRAP_FILE_NAMES: tuple[str, ...] = (
    "AGENTS.md",
    "SOUL.md",
    "TOOLS.md",
    "IDENTITY.md",
    "USER.md",
    "HEARTBEAT.md",
    "BOOTSTRAP.md",
    "MEMORY.md",
)
"""The fixed load order (SPEC 5.1). `memory.md` stands in for MEMORY.md when only it exists."""

DYNAMIC_FILE_NAMES: frozenset[str] = frozenset({"HEARTBEAT.md"})
"""Bootstrap files that render below the cache boundary."""

CACHE_TTLS: tuple[str, ...] = ("5m", "1h")
"""The lifetimes a provider cache breakpoint can ask for, shortest first."""
MAX_CACHE_TIERS = 3
"""Breakpoints the system prompt may use (Anthropic allows four; the runtime keeps one for the
conversation)."""
HEAD_SUFFIX = "#head"
"""A tier entry `NAME#head`: the kept head of NAME when the budget cuts it (append-only files)."""


# --------------------------------------------------------------------------- run facts


@frozen
class Tool:
    """One tool the model can call this turn."""

    name: str
    """The tool's name as the runtime spells it."""
    summary: str = ""
    """A one-line description; empty renders the bare name."""

    def __post_init__(self) -> None:
        checks.validate(self, {"name": checks.one_line_text, "summary": checks.one_line_text}, "tool ")


@frozen
class Sandbox:
    """Where the agent's commands run."""

    enabled: bool = False
    """Whether tool calls are confined to a sandbox."""
    paths: tuple[str, ...] = ()
    """Paths visible inside the sandbox; the first is the working directory."""
    elevated_exec: bool = False
    """Whether an elevated (host) exec escape hatch exists."""

    def __post_init__(self) -> None:
        fields = {"enabled": checks.flag, "paths": checks.one_line_texts, "elevated_exec": checks.flag}
        checks.validate(self, fields, "sandbox.")


@frozen
class ExecSession:
    """A background exec session still running in this scope."""

    id: str
    """The session id the process tool takes."""
    status: str = "running"
    """What the runtime reports (`running`, `waiting`, ...)."""
    name: str = ""
    """The command or label it was started with."""
    pid: int | None = None
    """Process id, when known."""
    cwd: str | None = None
    """Working directory, when known."""

    def __post_init__(self) -> None:
        # The name is a command line, which may span lines: the runtime section folds it.
        fields = {"id": checks.one_line_text, "status": checks.one_line_text, "name": checks.text,
                  "pid": checks.optional(checks.whole_number), "cwd": checks.optional(checks.one_line_text)}  # fmt: skip
        checks.validate(self, fields, "exec session ")


MEMORY_TOOL_NAMES: tuple[str, ...] = ("memory_search", "memory_get")
"""The tools that make workspace memory searchable."""


@frozen
class RunFacts:
    """Everything about one turn that is not config (SPEC 3.2). Keys match `--run` files."""

    agent: str | None = None
    """The agent id, matched against `agents.list[].id`; None means the default agent (the
    first `agents.list` entry, or `main`)."""
    session: SessionKind = "main"
    """The kind of session this turn belongs to."""
    mode: PromptMode | None = None
    """Prompt mode; None means the default for the session kind."""
    harness: Literal["default", "codex"] = "default"
    """`codex` splits the output into instructions / developer / turn surfaces."""
    channel: str | None = None
    """Messaging channel (telegram, discord, webchat, ...)."""
    chat_type: Literal["direct", "group"] | None = None
    """Direct or group chat."""
    capabilities: tuple[str, ...] = ()
    """Channel capabilities, canonicalised (lowercased, deduplicated, sorted)."""
    delivery: Literal["normal", "message_tool_only"] = "normal"
    """How replies reach the user."""
    native_approvals: bool = False
    """Whether the channel shows native approval cards."""
    tools: tuple[Tool, ...] = ()
    """Tools available this turn, in the caller's order (the renderer canonicalises)."""
    sandbox: Sandbox = field(default_factory=Sandbox)
    """Sandbox facts."""
    provider: str | None = None
    """Model provider id (anthropic, openai, codex, ...)."""
    model_api: str | None = None
    """Model API family (anthropic-messages, openai-responses, ...)."""
    model: str | None = None
    """Model id, usually `provider/model`."""
    default_model: str | None = None
    """The agent's configured default model."""
    host: str | None = None
    """Host name for the runtime line."""
    os: str | None = None
    """Operating system for the runtime line."""
    arch: str | None = None
    """CPU architecture for the runtime line."""
    python: str | None = None
    """Python version for the runtime line."""
    shell: str | None = None
    """Shell for the runtime line."""
    repo_root: str | None = None
    """Repository root for the runtime line."""
    thinking: str | None = None
    """Thinking level; None renders `off`."""
    reasoning: str | None = None
    """Reasoning visibility (off / on / stream); None renders `off`."""
    owners: tuple[str, ...] = ()
    """Allowlisted sender ids."""
    extra_prompt: str | None = None
    """Group-chat or sub-agent context supplied by the runtime."""
    reactions: str | None = None
    """Reaction guidance level (minimal / extensive)."""
    tts_hint: str | None = None
    """Text-to-speech hint."""
    heartbeat_prompt: str | None = None
    """Heartbeat prompt override for this turn; None uses the configured one."""
    memory_tools: bool | None = None
    """Whether memory_search / memory_get are available; None derives it from `tools`."""
    light_context: bool = False
    """Lightweight bootstrap context (heartbeat keeps HEARTBEAT.md only; cron keeps nothing)."""
    startup_memory: str | None = None
    """Recent daily-memory excerpt on the first turn after /new or /reset."""
    reasoning_tag_hint: bool = False
    """The provider reads reasoning out of tagged reply blocks, so the reply format is spelled out."""
    deferred_tools: tuple[Tool, ...] = ()
    """Tools whose schemas are not sent up front: the model loads one before calling it."""
    exec_sessions: tuple[ExecSession, ...] = ()
    """Background exec sessions still running in this scope."""
    message_tool_hints: tuple[str, ...] = ()
    """Extra lines the channel adds to the message-tool guidance."""
    vars: Mapping[str, Any] = EMPTY
    """Values of user variables (declared in `prompt.variables`) for this turn; they win over
    the config's. Plain data, stored frozen: lists as tuples, mappings as FrozenMaps."""
    var_origins: Mapping[str, str] = EMPTY
    """Where each of `vars` came from, for reports and errors (`run.yaml:4:3`, `--var
    company=Initech`); a name without one reads `run facts`."""

    def __post_init__(self) -> None:
        checks.validate(self, RUN_FACT_CHECKS)

    @property
    def effective_mode(self) -> PromptMode:
        """The prompt mode this turn uses: explicit, else minimal for subagent/cron, else full."""
        if self.mode is not None:
            return self.mode
        return "minimal" if self.session in ("subagent", "cron") else "full"

    @property
    def memory_tool_names(self) -> frozenset[str]:
        """The memory tools this turn has: from the tool list, or both/none when the
        `memory_tools` fact is given without them (an explicit fact wins)."""
        listed = frozenset(t.name.lower() for t in self.tools) & frozenset(MEMORY_TOOL_NAMES)
        if self.memory_tools is None or bool(listed) == self.memory_tools:
            return listed
        return frozenset(MEMORY_TOOL_NAMES) if self.memory_tools else frozenset()

    @property
    def has_memory_tools(self) -> bool:
        """Whether workspace memory can be searched or read with tools this turn."""
        return bool(self.memory_tool_names)


# --------------------------------------------------------------------------- run-fact checks
# Every run fact is checked where it is made (compiler/checks.py), so the Python API gets the
# same one-line errors as a `--run` file.


def _tools(value: Any) -> tuple[Tool, ...]:
    """Tools, each a Tool or a bare name (as a `--run` file allows)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)):
        raise ValueError(f"expected a list of tools, got {type(value).__name__}")
    return tuple(_tool(item) for item in value)


def _tool(item: Any) -> Tool:
    if isinstance(item, str):
        return Tool(item)
    if not isinstance(item, Tool):
        raise ValueError(f"each tool must be a Tool or a name, got {type(item).__name__}")
    return item


def _exec_sessions(value: Any) -> tuple[ExecSession, ...]:
    """ExecSession values, stored as a tuple."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (tuple, list)):
        raise ValueError(f"expected a list of exec sessions, got {type(value).__name__}")
    if not all(isinstance(item, ExecSession) for item in value):
        raise ValueError("each exec session must be an ExecSession")
    return tuple(value)


def _sandbox(value: Any) -> Sandbox:
    """A Sandbox."""
    if not isinstance(value, Sandbox):
        raise ValueError(f"expected a Sandbox, got {type(value).__name__}")
    return value


RUN_FACT_CHECKS: dict[str, checks.Check] = {
    "agent": checks.optional(checks.one_line_text),
    "session": checks.choice(*SESSION_KINDS),
    "mode": checks.choice(*PROMPT_MODES, None),
    "harness": checks.choice(*HARNESSES),
    "channel": checks.optional(checks.one_line_text),
    "chat_type": checks.choice(*CHAT_TYPES, None),
    "capabilities": checks.one_line_texts,
    "delivery": checks.choice("normal", "message_tool_only"),
    "native_approvals": checks.flag,
    "tools": _tools,
    "sandbox": _sandbox,
    **dict.fromkeys(
        ("provider", "model_api", "model", "default_model", "host", "os", "arch", "python", "shell",
         "repo_root", "thinking", "reasoning", "reactions"),
        checks.optional(checks.one_line_text),
    ),  # fmt: skip
    "owners": checks.one_line_texts,
    **dict.fromkeys(("extra_prompt", "tts_hint", "heartbeat_prompt", "startup_memory"), checks.optional(checks.text)),
    "memory_tools": checks.optional(checks.flag),
    "light_context": checks.flag,
    "reasoning_tag_hint": checks.flag,
    "deferred_tools": _tools,
    "exec_sessions": _exec_sessions,
    "message_tool_hints": checks.one_line_texts,
    "vars": checks.user_values,
    "var_origins": checks.texts_by_name,
}
"""The check of every RunFacts field; the multi-line ones are free text given to the model."""


# --------------------------------------------------------------------------- resolved config


@frozen
class Budgets:
    """Bootstrap budgets for one agent (SPEC 5.4)."""

    max_chars: int = 20000
    """Per-file budget."""
    total_max_chars: int = 60000
    """Budget across all bootstrap files."""
    warning: Literal["off", "once", "always"] = "always"
    """When the fixed truncation notice is rendered."""


@frozen
class HeartbeatConfig:
    """Heartbeat settings for one agent."""

    enabled: bool = False
    """Heartbeats on (they only ever apply to the default agent)."""
    include_section: bool = True
    """Whether HEARTBEAT.md and the Heartbeats section reach the prompt."""
    prompt: str = ""
    """The heartbeat prompt text."""


@frozen
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


@frozen
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


@frozen
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


@frozen
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


@frozen
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


@frozen
class ResolvedConfig:
    """Config for one agent after all layers are merged and validated (SPEC 3.1)."""

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


# --------------------------------------------------------------------------- output


@frozen
class RenderedSection:
    """One section's output."""

    id: str
    """Section id."""
    side: str
    """`stable` or `volatile`."""
    title: str
    """Report label."""
    text: str
    """Normalised output (never empty)."""
    source: str
    """The template file, or `provider:<slot>` for an override."""


# --------------------------------------------------------------------------- workspace


@frozen
class WorkspaceFile:
    """One bootstrap file as loaded from disk, frontmatter already stripped."""

    name: str
    """The canonical name (`AGENTS.md`, ...; `memory.md` when that fallback was used)."""
    path: str
    """Absolute path where the file is (or was expected)."""
    content: str | None
    """Text after decoding, newline normalisation and frontmatter removal; None if not read."""
    status: FileStatus = "ok"
    """`ok`, or `missing` / `skipped` when there is no content."""
    reason: str | None = None
    """Why a file was skipped (`too large`, `outside workspace`, ...)."""
    raw_chars: int = 0
    """Characters of the decoded file before frontmatter removal."""
    frontmatter: Mapping[str, Any] | None = None
    """Parsed frontmatter metadata, kept for diagnostics; never injected."""
    diagnostics: tuple[str, ...] = ()
    """Human-readable notes about this file (bad bytes, unclosed frontmatter, ...)."""


@frozen
class ContextFile:
    """A bootstrap file after the budget stage: what is injected and why."""

    name: str
    """Canonical file name."""
    path: str
    """Absolute path."""
    text: str
    """The injected text (may be a missing-file marker or empty when dropped)."""
    status: FileStatus
    """`ok`, `truncated`, `missing`, `skipped` or `dropped`."""
    reason: str | None
    """Why the file is not injected whole."""
    raw_chars: int
    """Characters before truncation."""
    injected_chars: int
    """Characters injected (len(text))."""
    frontmatter: Mapping[str, Any] | None = None
    """Frontmatter metadata found in the file."""

    @property
    def dynamic(self) -> bool:
        """Whether this file renders below the cache boundary."""
        return self.name in DYNAMIC_FILE_NAMES

    @property
    def injected(self) -> bool:
        """Whether the file contributes text to the prompt."""
        return self.status in ("ok", "truncated", "missing") and bool(self.text)


@frozen
class Skill:
    """One discovered skill (SPEC 6)."""

    name: str
    """Frontmatter `name`, or the directory name."""
    description: str
    """Frontmatter `description`."""
    location: str
    """Path of the SKILL.md file."""
    version: str
    """`sha256:` + the first 16 hex digits of SHA-256 of the raw SKILL.md bytes."""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    """The whole frontmatter mapping, for eligibility checks."""


@frozen
class SkillEntry:
    """A skill as reported: whether it made it into the prompt."""

    name: str
    """Skill name."""
    location: str
    """Path of the SKILL.md file."""
    version: str
    """Content version."""
    included: bool
    """False when the budget or count limit cut it."""
    reason: str | None = None
    """Why it is not included (`ineligible: ...`, `budget`, ...)."""


@frozen
class SkillsBlock:
    """The rendered skills list and what happened to each skill."""

    text: str
    """The `<available_skills>` block (with a note line when something was cut); empty if none."""
    entries: tuple[SkillEntry, ...] = ()
    """Every discovered skill with its fate, sorted by name."""
    note: str | None = None
    """What the budget cut, when anything was cut."""
    diagnostics: tuple[str, ...] = ()
    """Skills skipped at discovery (no description, bad frontmatter, too large, duplicate name)."""
    skipped: tuple[tuple[str, str], ...] = ()
    """(SKILL.md path, why) for every file found but not made a skill, why as a short group
    name (`no frontmatter`, `no description`, `too large`, ...); details are in `diagnostics`."""


@frozen
class WorkspaceFacts:
    """What the workspace directory itself tells us, besides its bootstrap files."""

    git_repo: bool = False
    """The workspace root holds its own `.git` (a clone, a linked worktree or a submodule)."""
    looked_at: tuple[str, ...] = ()
    """Paths the probe examined, so a watcher knows what can change the answer."""


@frozen
class LoadedWorkspace:
    """The workspace half of the pipeline, ready for the renderer."""

    root: str
    """Absolute workspace directory."""
    files: tuple[ContextFile, ...]
    """Bootstrap files after filters and budgets, in load order."""
    skills: SkillsBlock
    """The skills list."""
    heartbeat_skip: bool = False
    """True when HEARTBEAT.md exists and is effectively empty: the caller may skip the model call."""
    show_truncation_notice: bool = False
    """Whether the fixed bootstrap notice renders (per the warning mode)."""
    truncation_signature: str | None = None
    """Stable signature of this truncation (budgets + per-file counts); None when nothing was cut."""
    diagnostics: tuple[str, ...] = ()
    """Notes for the context report and JSON `warnings`."""
    facts: WorkspaceFacts = field(default_factory=WorkspaceFacts)
    """What the workspace directory tells us (is it a git repo)."""


# --------------------------------------------------------------------------- result


@frozen
class PromptUnit:
    """One piece of the prompt as a cache sees it: a section, one workspace file of the project
    context (or the kept head of one), or the Dynamic Project Context when a tier reaches it."""

    name: str
    """`section:<id>`, `file:<NAME>`, or `file:<NAME>#head`: the kept head of a cut file whose
    head a tier names apart from the rest of it."""
    text: str
    """The unit's rendered text (never empty)."""

    @property
    def separator(self) -> str:
        """What follows the unit in the prompt (see `unit_separator`)."""
        return unit_separator(self.name)

    @property
    def sha256(self) -> str:
        """SHA-256 of the unit's text."""
        return _sha256(self.text)


@frozen
class CacheTier:
    """A run of units that ends in one provider cache breakpoint."""

    index: int
    """1-based position among the prompt's non-empty tiers."""
    units: tuple[str, ...]
    """The units' names, in prompt order."""
    text: str
    """Its slice of `stable + "\\n\\n"`, each tier ending with the blank-line separator: the tiers
    joined give it back. A last tier that reaches below the boundary also holds the Dynamic
    Project Context and the separator after it."""
    ttl: str
    """The requested cache lifetime, `5m` or `1h`."""
    key: str
    """SHA-256 of the whole prefix through this tier: what a provider cache matches on, so it
    changes when this tier or any earlier one does."""

    @property
    def sha256(self) -> str:
        """SHA-256 of this tier's own text."""
        return _sha256(self.text)


@frozen
class SectionOrigin:
    """Where a section of the catalogue comes from."""

    id: str
    """Section id."""
    source: str
    """`builtin:<file>` or the user's template file."""
    overrides: str | None
    """`builtin:<file>` when the section replaces a built-in one with the same id, else None."""


@frozen
class Prompt:
    """A compiled prompt and everything a report needs about how it was made."""

    stable: str
    """Everything above the cache boundary."""
    volatile: str
    """Everything below it."""
    text: str
    """The whole prompt with the marker in-band (none mode: no marker)."""
    boundary: str | None
    """The marker, or None in none mode."""
    mode: PromptMode
    """The prompt mode used."""
    agent: str
    """Agent id."""
    session: SessionKind
    """Session kind."""
    sections: tuple[RenderedSection, ...]
    """Rendered sections in output order."""
    outline: tuple[tuple[str, bool, str], ...]
    """Every section in catalogue order: (id, rendered?, why)."""
    files: tuple[ContextFile, ...]
    """Bootstrap files with status and counts, in load order."""
    skills: SkillsBlock
    """The skills list and each skill's fate."""
    heartbeat_skip: bool
    """HEARTBEAT.md exists and is effectively empty: the caller may skip the model call."""
    warnings: tuple[str, ...]
    """Diagnostics worth a human's attention."""
    surfaces: Mapping[str, str] | None = None
    """Codex harness: `instructions`, `developer` and `turn` texts; None otherwise."""
    settings: Mapping[str, Any] = field(default_factory=dict)
    """Config values reported but not rendered: budgets, warning mode, timeFormat, contextLimits."""
    model: str | None = None
    """The run's model id (`provider/model`), when known; picks the OpenAI instruction role."""
    units: tuple[PromptUnit, ...] = ()
    """The cacheable units, in order: the stable part's (each followed by its `separator`, they
    give `stable + "\\n\\n"`), then the Dynamic Project Context when the last tier reaches it."""
    tiers: tuple[CacheTier, ...] = ()
    """The units cut into cache tiers (empty when the stable part is)."""
    openai_cache_key: bool = False
    """Whether the OpenAI payloads carry `prompt_cache_key`."""
    breakpoints: bool = True
    """Whether the Anthropic and Bedrock payloads carry cache breakpoints (False for a session
    kind `prompt.cache.uncachedSessions` names)."""
    variables: tuple[UserVariable, ...] = ()
    """User variables with their values and where each value came from, in declaration order."""
    filtered_files: tuple[ContextFile, ...] = ()
    """Bootstrap files a filter left out (status `filtered`, or `missing` for an absent optional
    file), the filter named in `reason`; never injected."""
    section_origins: tuple[SectionOrigin, ...] = ()
    """Every section of the catalogue with its source file and the built-in it replaces."""

    @property
    def stable_sha256(self) -> str:
        """SHA-256 of the stable part: the cache key a provider would see."""
        return _sha256(self.stable)

    @property
    def volatile_sha256(self) -> str:
        """SHA-256 of the volatile part."""
        return _sha256(self.volatile)


def unit_separator(name: str) -> str:
    """What follows a cache unit in the prompt: a blank line, or the one line break between the
    head of a cut file and its cut marker."""
    return "\n" if name.endswith(HEAD_SUFFIX) else "\n\n"


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
