"""Run facts: what one turn tells the compiler besides config, each fact declared once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .._lib import checks
from .._lib.frozen import EMPTY

SessionKind = Literal["main", "subagent", "cron", "heartbeat"]
PromptMode = Literal["full", "minimal", "none"]
SESSION_KINDS: tuple[str, ...] = ("main", "subagent", "cron", "heartbeat")
PROMPT_MODES: tuple[str, ...] = ("full", "minimal", "none")
HARNESSES: tuple[str, ...] = ("default", "codex")
CHAT_TYPES: tuple[str, ...] = ("direct", "group")


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool the model can call this turn."""

    name: str
    """The tool's name as the runtime spells it."""
    summary: str = ""
    """A one-line description; empty renders the bare name."""

    def __post_init__(self) -> None:
        checks.validate(self, {"name": checks.one_line_text, "summary": checks.one_line_text}, "tool ")


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
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
        fields = {
            "id": checks.one_line_text,
            "status": checks.one_line_text,
            "name": checks.text,
            "pid": checks.optional(checks.whole_number),
            "cwd": checks.optional(checks.one_line_text),
        }
        checks.validate(self, fields, "exec session ")


MEMORY_TOOL_NAMES: tuple[str, ...] = ("memory_search", "memory_get")
"""The tools that make workspace memory searchable."""


@dataclass(frozen=True, slots=True)
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
        (
            "provider",
            "model_api",
            "model",
            "default_model",
            "host",
            "os",
            "arch",
            "python",
            "shell",
            "repo_root",
            "thinking",
            "reasoning",
            "reactions",
        ),
        checks.optional(checks.one_line_text),
    ),
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
