"""Every variable a section template can read, with its side: each run fact declared with a side
(model/runfacts.py) under its own name, and the variables built from several inputs declared here.

Stable sections are rendered with a context holding only the stable variables, so a stable
template that reads a volatile one fails with an undefined-variable error; `promptc lint`
finds the same mistake statically.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..inputs.contributions import Contribution
from ..model.config import ResolvedConfig, UserVariable
from ..model.runfacts import FACTS, MEMORY_TOOL_NAMES, RunFacts, Tool, blank_to_none, canonical_capabilities, one_line
from ..model.workspace import LoadedWorkspace
from . import uservars

DERIVED_STABLE: dict[str, str] = {
    "mode": "prompt mode: full / minimal / none",
    "agent_id": "the agent being compiled",
    "tools": "canonical tool list: known tools in fixed order, then the rest sorted; ({name, summary}, ...)",
    "tool_names": "lowercased tool names, sorted (a tuple: `'exec' in tool_names` works, so does a loop)",
    "plan_tool": "tools.experimental.planTool",
    "delegation_mode": "suggest / prefer",
    "memory_tools": "memory_search or memory_get is available (the fact, else derived from the tools)",
    "memory_search": "memory_search is available",
    "memory_get": "memory_get is available",
    "memory_citations": "memory.citations: auto / on / off",
    "deferred_tools": "tools whose schemas are loaded on demand, in the tools' order: ({name, summary}, ...)",
    "fs_workspace_only": "tools.fs.workspaceOnly",
    "acp_enabled": "acp.enabled and no sandbox: sessions_spawn can start coding harnesses",
    "proactive_orchestration": "agents.defaults.subagents.proactiveOrchestration",
    "git_repo": "the workspace root is a git repository",
    "bootstrap_pending": "BOOTSTRAP.md is injected: setup is still pending",
    "workspace_dir": "the working directory shown to the model",
    "docs_path": "local docs directory, or none",
    "docs_url": "the public documentation URL",
    "source_url": "the runtime's public source repository",
    "timezone": "user IANA time zone, or none",
    "model_aliases": "((alias, provider/model), ...) sorted by alias",
    "skills_block": "the <available_skills> block (with its cut note), or empty",
    "stable_files": "bootstrap files above the boundary, in load order: ({name, text, open, close, truncated}, ...)",
    "has_soul": "SOUL.md is among the stable files",
    "truncation_notice": "the fixed bootstrap notice is shown",
    "provider_prefix": "merged provider stable prefix, or empty",
    "vars": "user variables (prompt.variables), in declaration order: vars.<name>; above the boundary only the stable ones",
}

DERIVED_VOLATILE: dict[str, str] = {
    "runtime_fields": "((key, value), ...) for the runtime line, in its fixed order",
    "heartbeat_prompt": "heartbeat prompt when heartbeats apply to this agent, else none",
    "dynamic_files": "bootstrap files below the boundary, in load order: ({name, text, open, close}, ...)",
    "provider_suffix": "merged provider dynamic suffix, or empty",
    "tool_call_style_overridden": "a provider replaced the tool_call_style slot",
    "inline_buttons": "the channel can show inline buttons (capability inlineButtons)",
    "rich_text": "the channel renders rich text (capability richText)",
}


def _fact_variables(side: str) -> dict[str, str]:
    return {d.name: d.fact.doc for d in FACTS if d.fact.side == side}


STABLE: dict[str, str] = {**_fact_variables("stable"), **DERIVED_STABLE}
"""Every variable of the stable context, with what it holds."""
VOLATILE: dict[str, str] = {**_fact_variables("volatile"), **DERIVED_VOLATILE}
"""Every variable the volatile context adds."""

DOCS_URL = "https://docs.openclaw.ai"
SOURCE_URL = "https://github.com/openclaw/openclaw"

TOOL_ORDER: tuple[str, ...] = (
    "read",
    "write",
    "edit",
    "apply_patch",
    "grep",
    "find",
    "ls",
    "exec",
    "process",
    "web_search",
    "web_fetch",
    "browser",
    "canvas",
    "nodes",
    "cron",
    "message",
    "gateway",
    "agents_list",
    "sessions_list",
    "sessions_history",
    "sessions_search",
    "sessions_send",
    "sessions_spawn",
    "sessions_yield",
    "subagents",
    "session_status",
    "skill_workshop",
    "image",
    "image_generate",
)
"""Known tools are listed in this fixed order; unknown tools follow, sorted."""

CORE_TOOL_SUMMARIES: dict[str, str] = {
    "read": "show a file's contents",
    "write": "create a file or replace all of it",
    "edit": "change part of a file by exact replacement",
    "apply_patch": "apply a patch that may touch several files",
    "grep": "search file contents with a pattern",
    "find": "list files whose paths match a glob",
    "ls": "list a directory",
    "exec": "run a shell command (a terminal is available for interactive programs)",
    "process": "follow, feed or stop a background exec session",
    "web_search": "search the web",
    "web_fetch": "download a page and keep its readable text",
    "browser": "drive a web browser",
    "canvas": "show, evaluate or capture the canvas",
    "nodes": "list paired devices and use their camera, screen or notifications",
    "cron": "schedule reminders and recurring jobs (write a reminder's text so it still makes sense when it fires)",
    "message": "send a message or a channel action (poll, reaction, attachment)",
    "gateway": "inspect or change the runtime's configuration, restart it, or update it",
    "agents_list": "list the agent ids sessions_spawn may start",
    "sessions_list": "list other sessions, sub-agents included",
    "sessions_history": "read another session's history",
    "sessions_send": "send a message into another session",
    "sessions_spawn": "start a sub-agent session for a separate task",
    "sessions_yield": "end this turn until spawned sub-agents report back",
    "subagents": "check on this session's sub-agent runs when asked (not for waiting)",
    "session_status": "show the session's status card: usage, time, model and reasoning settings",
    "skill_workshop": "draft, review, apply or reject skill proposals",
    "image": "describe or analyse an image",
    "image_generate": "generate an image",
}
"""One-line summaries for core tools the caller lists without one (our words)."""


def side_of(name: str) -> str | None:
    """`stable`, `volatile`, or None for an undeclared name."""
    if name in STABLE:
        return "stable"
    return "volatile" if name in VOLATILE else None


@dataclass(frozen=True, slots=True)
class Contexts:
    """The two render contexts: stable holds only stable variables, volatile holds all."""

    stable: Mapping[str, Any]
    volatile: Mapping[str, Any]


def build(
    cfg: ResolvedConfig,
    run: RunFacts,
    workspace: LoadedWorkspace,
    contribution: Contribution,
    workspace_dir: str,
    user: Sequence[UserVariable] = (),
) -> Contexts:
    """Canonicalise the inputs into the stable and volatile contexts.

    Every collection is a tuple or an insertion-ordered mapping with the order its description
    gives (tests/test_determinism.py renders each under several hash seeds), so no template
    can see an order that changes from one process to the next.
    """
    stable = {
        **_stable(cfg, run, workspace, contribution, workspace_dir),
        "vars": uservars.template_vars(user, "stable"),
    }
    volatile = {
        **stable,
        **_volatile(cfg, run, workspace, contribution),
        "vars": uservars.template_vars(user, "volatile"),
    }
    return Contexts(stable, volatile)


def _stable(cfg, run, workspace, contribution, workspace_dir) -> dict[str, Any]:
    tools = canonical_tools(run.tools)
    files = tuple(_file(f) for f in workspace.files if f.injected and not f.dynamic)
    memory = run.memory_tool_names
    return {
        **fact_values(run, "stable"),
        "mode": run.effective_mode,
        "agent_id": cfg.agent_id,
        "tools": tools,
        "tool_names": tuple(sorted({tool["name"].lower() for tool in tools})),
        "plan_tool": cfg.plan_tool,
        "delegation_mode": cfg.delegation_mode,
        "memory_tools": bool(memory),
        "memory_search": "memory_search" in memory,
        "memory_get": "memory_get" in memory,
        "memory_citations": cfg.memory_citations,
        "deferred_tools": canonical_tools(run.deferred_tools, summaries=False),
        "fs_workspace_only": cfg.fs_workspace_only,
        "acp_enabled": cfg.acp_enabled and not run.sandbox.enabled,
        "proactive_orchestration": cfg.proactive_orchestration,
        "git_repo": workspace.facts.git_repo,
        "bootstrap_pending": any(f["name"] == "BOOTSTRAP.md" for f in files),
        "workspace_dir": workspace_dir,
        "docs_path": cfg.docs_path,
        "docs_url": DOCS_URL,
        "source_url": SOURCE_URL,
        "timezone": cfg.user_timezone,
        "model_aliases": tuple(cfg.model_aliases),
        "skills_block": workspace.skills.text,
        "stable_files": files,
        "has_soul": any(f["name"] == "SOUL.md" for f in files),
        "truncation_notice": workspace.show_truncation_notice,
        "provider_prefix": contribution.stable_prefix or "",
    }


def _volatile(cfg, run, workspace, contribution) -> dict[str, Any]:
    return {
        **fact_values(run, "volatile"),
        "runtime_fields": runtime_fields(cfg, run),
        "heartbeat_prompt": heartbeat_prompt(cfg, run),
        "dynamic_files": tuple(_file(f) for f in workspace.files if f.injected and f.dynamic),
        "provider_suffix": contribution.dynamic_suffix or "",
        "tool_call_style_overridden": "tool_call_style" in contribution.section_overrides,
        "inline_buttons": "inlinebuttons" in canonical_capabilities(run.capabilities),
        "rich_text": "richtext" in canonical_capabilities(run.capabilities),
    }


def fact_values(run: RunFacts, side: str) -> dict[str, Any]:
    """The run facts declared as variables of `side`, as their declarations show them."""
    return {d.name: (d.fact.variable or _same)(getattr(run, d.name)) for d in FACTS if d.fact.side == side}


def _same(value: Any) -> Any:
    return value


def canonical_tools(tools: tuple[Tool, ...], *, summaries: bool = True) -> tuple[dict[str, str], ...]:
    """Dedupe case-insensitively (first spelling wins); known tools in fixed order, then sorted.

    A core tool given without a summary gets our built-in one (unless `summaries` is off).
    """
    first: dict[str, Tool] = {}
    for tool in tools:
        if tool.name:
            first.setdefault(tool.name.lower(), tool)
    rank = {name: index for index, name in enumerate(TOOL_ORDER)}
    ordered = sorted(first.items(), key=lambda item: (rank.get(item[0], len(rank)), item[0], item[1].name))
    builtin = CORE_TOOL_SUMMARIES if summaries else {}
    return tuple({"name": tool.name, "summary": tool.summary or builtin.get(key, "")} for key, tool in ordered)


def heartbeat_prompt(cfg: ResolvedConfig, run: RunFacts) -> str | None:
    """The heartbeat prompt on a heartbeat run of the default agent (unless
    `includeSystemPromptSection` is off): the run's own prompt, else the configured one, else
    the built-in default. Other runs get none: the section only matters when a heartbeat woke
    the agent, and keeping it off ordinary turns keeps their prompt free of it."""
    if not (cfg.is_default_agent and cfg.heartbeat.include_section):
        return None
    return heartbeat_message(cfg, run)


def heartbeat_message(cfg: ResolvedConfig, run: RunFacts) -> str | None:
    """What a heartbeat run sends the model as its message: the run's own prompt, else the
    configured one, else the built-in default; None for any other run."""
    if run.session != "heartbeat":
        return None
    return blank_to_none(run.heartbeat_prompt) or blank_to_none(cfg.heartbeat.prompt) or DEFAULT_HEARTBEAT_PROMPT


DEFAULT_HEARTBEAT_PROMPT = (
    "Heartbeat check-in. Read HEARTBEAT.md if it exists and do what it asks; do not carry over old "
    "tasks from earlier chats. If nothing needs attention, reply HEARTBEAT_OK."
)
"""Used when the config's heartbeat prompt is blank (the defaults layer sets the same text)."""


READ_CAPABILITIES = {"inlinebuttons": "inlineButtons", "richtext": "richText"}
"""The capabilities the built-in sections read (lowercased -> as documented)."""


def fact_warnings(run: RunFacts) -> tuple[str, ...]:
    """Run facts that contradict each other or look misspelt (they are used as given)."""
    warnings = []
    listed = sorted(frozenset(t.name.lower() for t in run.tools) & frozenset(MEMORY_TOOL_NAMES))
    if run.memory_tools is True and not listed:
        warnings.append("run facts: memory_tools is true but the tool list has neither memory_search nor memory_get")
    if run.memory_tools is False and listed:
        warnings.append(f"run facts: memory_tools is false but the tool list has {' and '.join(listed)}")
    for cap in canonical_capabilities(run.capabilities):
        meant = READ_CAPABILITIES.get(cap.replace("_", "").replace("-", "").replace(" ", ""))
        if meant is not None and cap not in READ_CAPABILITIES:
            warnings.append(f"run facts: capability '{cap}' is not one promptc reads (did you mean '{meant}'?)")
    return tuple(warnings)


def runtime_fields(cfg: ResolvedConfig, run: RunFacts) -> tuple[tuple[str, str], ...]:
    """The runtime line's `k=v` pairs in their fixed order, empty fields skipped."""
    os_value = f"{run.os} ({run.arch})" if run.os and run.arch else run.os
    pairs = [
        ("agent", cfg.agent_id),
        ("session", run.session),
        ("host", run.host),
        ("repo", run.repo_root),
        ("os", os_value),
        ("arch", run.arch if not run.os else None),
        ("python", run.python),
        ("model", run.model),
        ("default_model", run.default_model),
        ("shell", run.shell),
        ("channel", run.channel),
        ("capabilities", (",".join(canonical_capabilities(run.capabilities)) or "none") if run.channel else None),
        ("thinking", run.thinking or "off"),
    ]
    return tuple((key, one_line(value)) for key, value in pairs if value)


def _file(context_file) -> dict[str, Any]:
    opening, closing = file_fence(context_file.name, context_file.text)
    return {
        "name": context_file.name,
        "text": context_file.text,
        "open": opening,
        "close": closing,
        "truncated": context_file.status == "truncated",
    }


def file_fence(name: str, text: str) -> tuple[str, str]:
    """The lines that open and close a workspace file in the prompt.

    Headings inside a file sit at the prompt's own heading levels, so the file is wrapped in a
    tag pair the model can match. When the file itself contains the closing tag, the pair gets
    a suffix from the file's hash, so the real end can never be mistaken.
    """
    tag = "workspace_file"
    if f"</{tag}" in text:
        tag += "_" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
    return f'<{tag} name="{name}">', f"</{tag}>"
