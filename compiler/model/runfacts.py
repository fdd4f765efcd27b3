"""Run facts: what one turn tells the compiler besides config, each fact declared once (`fact`)."""

from __future__ import annotations

import dataclasses
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from .._lib import checks
from .._lib.frozen import EMPTY
from .facts import Declared, Inside, declared, each, fact, read_level
from .runparts import ExecSession, Sandbox, Tool, validate_fields

SessionKind = Literal["main", "subagent", "cron", "heartbeat"]
PromptMode = Literal["full", "minimal", "none"]
Harness = Literal["default", "codex"]
ChatType = Literal["direct", "group"]
Delivery = Literal["normal", "message_tool_only"]
SESSION_KINDS: tuple[str, ...] = typing.get_args(SessionKind)
PROMPT_MODES: tuple[str, ...] = typing.get_args(PromptMode)
HARNESSES: tuple[str, ...] = typing.get_args(Harness)
CHAT_TYPES: tuple[str, ...] = typing.get_args(ChatType)

MEMORY_TOOL_NAMES: tuple[str, ...] = ("memory_search", "memory_get")
"""The tools that make workspace memory searchable."""


def _user_values(value: Any) -> Any:
    """A run file's `vars`: each name and value checked where it is written."""
    if not isinstance(value, Mapping):
        raise ValueError("expected a mapping of user variable names to values")
    for name, item in value.items():
        problem = checks.variable_name(name)
        if problem is None:
            try:
                checks.plain(item, str(name))
            except ValueError as exc:
                problem = str(exc)
        if problem is None:
            problem = var_text_problem(item, str(name))
        if problem is not None:
            raise Inside((str(name),), problem)
    return value


_HEADING_LINE = re.compile(r"^[ \t]*#{1,6}(?:[ \t]|$)", re.MULTILINE)
_VAR_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\x85\u2028\u2029]")
"""Control characters but tab and line feed: a per-turn value may span lines, nothing else."""


def var_text_problem(value: Any, where: str) -> str | None:
    """Why a per-turn user variable's text (anywhere inside its value) may not reach the prompt:
    a control character other than tab and line feed (NUL, ESC, CR, ...), or a line that would
    read as a prompt heading (`## Title`), which would forge a section of its own. None if fine."""
    if isinstance(value, str):
        if _VAR_CONTROL.search(value):
            return f"{where}: a control character ({_VAR_CONTROL.search(value).group()!r}) cannot reach the prompt"
        heading = _HEADING_LINE.search(value)
        if heading is not None:
            line = value.count("\n", 0, heading.start()) + 1
            return f"{where}: line {line} would read as a prompt heading; start it with something other than '#'"
        return None
    items = (
        value.items() if isinstance(value, Mapping) else enumerate(value) if isinstance(value, (list, tuple)) else ()
    )
    for key, item in items:
        problem = var_text_problem(item, f"{where}.{key}" if isinstance(value, Mapping) else f"{where}[{key}]")
        if problem is not None:
            return problem
    return None


def blank_to_none(text: str | None) -> str | None:
    """None for a blank text."""
    return text if text and text.strip() else None


def _or_off(level: str | None) -> str:
    return level or "off"


def canonical_capabilities(capabilities: tuple[str, ...]) -> tuple[str, ...]:
    """Lowercased, trimmed, deduplicated, sorted; blanks dropped."""
    return tuple(sorted({cap.strip().lower() for cap in capabilities if cap.strip()}))


def one_line(value: str) -> str:
    """Runs of white space (line breaks too) as one space, trimmed."""
    return re.sub(r"\s+", " ", str(value)).strip()


def _owners(owners: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(owner for owner in dict.fromkeys(o.strip() for o in owners) if owner)


def _hints(hints: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(one_line(hint) for hint in hints if hint.strip())


def _sessions(sessions: tuple[ExecSession, ...]) -> tuple[dict[str, Any], ...]:
    shown = (dataclasses.asdict(session) for session in sessions)
    return tuple({key: one_line(v) if isinstance(v, str) else v for key, v in session.items()} for session in shown)


def _sandbox(sandbox: Sandbox) -> dict[str, Any]:
    return {
        "enabled": sandbox.enabled,
        "paths": tuple(dict.fromkeys(sandbox.paths)),
        "elevated_exec": sandbox.elevated_exec,
    }


_TEXT = checks.optional(checks.text)
"""Free text given to the model, which may span lines."""
_TOOLS = each(Tool.of, "tools")
_VOLATILE: Final = "volatile"
_VARIANT: Final = "variant"


@dataclass(frozen=True, slots=True)
class RunFacts:
    """Everything about one turn that is not config. Keys match `--run` files; each field's
    `fact(...)` declaration is the whole story of that fact (see model/facts.py)."""

    agent: str | None = fact(
        None,
        doc="The agent id, matched against `agents.list[].id`; none: the default agent (the first "
        "`agents.list` entry, or `main`).",
        flag="agent id (default: the first agents.list entry, or main)",
        replay=_VARIANT,
    )
    session: SessionKind = fact(
        "main", doc="The kind of session this turn belongs to.", flag="session kind", side="stable", replay=_VARIANT
    )
    mode: PromptMode | None = fact(
        None,
        doc="Prompt mode; none: minimal for subagent and cron sessions, else full.",
        flag="prompt mode (default: minimal for subagent and cron sessions, else full)",
        replay=_VARIANT,
    )
    harness: Harness = fact(
        "default",
        doc="`codex` splits the output into instructions, developer and turn surfaces.",
        flag="harness; codex splits the prompt into instructions, developer and turn",
        side="stable",
        replay=_VARIANT,
    )
    channel: str | None = fact(
        None,
        doc="Messaging channel (telegram, discord, webchat, ...).",
        flag="messaging channel (telegram, discord, webchat, ...)",
        side="volatile",
        replay=_VOLATILE,
    )
    chat_type: ChatType | None = fact(
        None, doc="Direct or group chat.", flag="chat type", side="volatile", replay=_VARIANT
    )
    capabilities: tuple[str, ...] = fact(
        (),
        doc="Channel capabilities (templates see them lowercased, deduplicated, sorted).",
        side="volatile",
        variable=canonical_capabilities,
        replay=_VOLATILE,
    )
    delivery: Delivery = fact("normal", doc="How replies reach the user.", side="stable")
    native_approvals: bool = fact(
        False, doc="The channel shows native approval cards.", side="volatile", replay=_VOLATILE
    )
    tools: tuple[Tool, ...] = fact(
        (),
        doc="Tools available this turn, in the caller's order (templates see them canonicalised): "
        "names, or `{name, summary}`.",
        check=_TOOLS,
    )
    sandbox: Sandbox = fact(
        factory=Sandbox,
        doc="Sandbox facts: `{enabled, paths, elevated_exec}`.",
        check=Sandbox.of,
        side="stable",
        variable=_sandbox,
    )
    provider: str | None = fact(None, doc="Model provider id (anthropic, openai, codex, ...).", replay=_VARIANT)
    model_api: str | None = fact(
        None, doc="Model API family (anthropic-messages, openai-responses, ...).", replay=_VOLATILE
    )
    model: str | None = fact(
        None,
        doc="Model id, usually `provider/model`.",
        flag="model id, such as anthropic/claude-sonnet-4-5",
        side="volatile",
    )
    default_model: str | None = fact(None, doc="The agent's configured default model.", replay=_VOLATILE)
    host: str | None = fact(None, doc="Host name for the runtime line.", replay=_VOLATILE)
    os: str | None = fact(None, doc="Operating system for the runtime line.", replay=_VOLATILE)
    arch: str | None = fact(None, doc="CPU architecture for the runtime line.", replay=_VOLATILE)
    python: str | None = fact(None, doc="Python version for the runtime line.", replay=_VOLATILE)
    shell: str | None = fact(None, doc="Shell for the runtime line.", replay=_VOLATILE)
    repo_root: str | None = fact(None, doc="Repository root for the runtime line.", replay=_VOLATILE)
    thinking: str | None = fact(
        None,
        doc="Thinking level (templates see `off` when unset).",
        read=read_level,
        side="volatile",
        variable=_or_off,
        replay=_VOLATILE,
    )
    reasoning: str | None = fact(
        None,
        doc="Reasoning visibility: off / on / stream (templates see `off` when unset).",
        read=read_level,
        side="volatile",
        variable=_or_off,
        replay=_VOLATILE,
    )
    owners: tuple[str, ...] = fact(
        (),
        doc="Allowlisted sender ids (templates see them in the order given, trimmed, duplicates dropped).",
        side="volatile",
        variable=_owners,
        replay=_VOLATILE,
    )
    extra_prompt: str | None = fact(
        None,
        doc="Group-chat or sub-agent context supplied by the runtime.",
        check=_TEXT,
        side="volatile",
        variable=blank_to_none,
        replay=_VOLATILE,
    )
    reactions: str | None = fact(
        None,
        doc="Reaction guidance level (minimal / extensive).",
        side="volatile",
        variable=blank_to_none,
        replay=_VOLATILE,
    )
    tts_hint: str | None = fact(
        None, doc="Text-to-speech hint.", check=_TEXT, side="volatile", variable=blank_to_none, replay=_VOLATILE
    )
    heartbeat_prompt: str | None = fact(
        None, doc="Heartbeat prompt for this turn; none uses the configured one.", check=_TEXT, replay=_VOLATILE
    )
    memory_tools: bool | None = fact(
        None, doc="Whether memory_search / memory_get are available; none derives it from `tools`."
    )
    light_context: bool = fact(
        False, doc="Lightweight bootstrap context (heartbeat keeps HEARTBEAT.md only; cron keeps nothing)."
    )
    startup_memory: str | None = fact(
        None,
        doc="Recent daily-memory excerpt on the first turn after /new or /reset.",
        check=_TEXT,
        side="volatile",
        variable=blank_to_none,
        replay=_VOLATILE,
    )
    reasoning_tag_hint: bool = fact(
        False,
        doc="The provider reads reasoning out of tagged reply blocks, so the reply format is spelled out.",
        side="stable",
    )
    deferred_tools: tuple[Tool, ...] = fact(
        (), doc="Tools whose schemas are not sent up front: the model loads one before calling it.", check=_TOOLS
    )
    exec_sessions: tuple[ExecSession, ...] = fact(
        (),
        doc="Background exec sessions still running in this scope: `{id, status, name, pid, cwd}`.",
        check=each(ExecSession.of, "exec sessions"),
        side="volatile",
        variable=_sessions,
        replay=_VOLATILE,
    )
    message_tool_hints: tuple[str, ...] = fact(
        (),
        doc="Extra lines the channel adds to the message-tool guidance.",
        side="volatile",
        variable=_hints,
        replay=_VOLATILE,
    )
    vars: Mapping[str, Any] = fact(
        EMPTY,
        doc="Values of user variables (declared in `prompt.variables`) for this turn; they win over the "
        "config's. Plain data, stored frozen: lists as tuples, mappings as FrozenMaps.",
        check=checks.user_values,
        read=_user_values,
    )
    var_origins: Mapping[str, str] = fact(
        EMPTY,
        doc="Where each of `vars` came from (`run.yaml:4:3`, `--var company=Initech`); a name without one "
        "reads `run facts`.",
        check=checks.texts_by_name,
        file=False,
    )

    def __post_init__(self) -> None:
        validate_fields(self, FACT_CHECKS)

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


FACTS: tuple[Declared, ...] = declared(RunFacts)
"""Every run fact's declaration, completed from its type, in field order."""
FACT_CHECKS: dict[str, checks.Check] = {d.name: d.check for d in FACTS}
"""The check of every RunFacts field."""
