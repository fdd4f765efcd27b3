"""Every variable a section template can read, declared once with its side (SPEC 3.3).

Stable sections are rendered with a context holding only the stable variables, so a stable
template that reads a volatile one fails with an undefined-variable error; `promptc lint`
finds the same mistake statically.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from ..model import LoadedWorkspace, ResolvedConfig, RunFacts, Tool
from .providers import Contribution

STABLE: dict[str, str] = {
    "mode": "prompt mode: full / minimal / none",
    "session": "session kind: main / subagent / cron / heartbeat",
    "harness": "default / codex",
    "agent_id": "the agent being compiled",
    "tools": "canonical tool list: known tools in fixed order, then the rest sorted; [{name, summary}]",
    "tool_names": "set of lowercased tool names, for membership tests",
    "plan_tool": "tools.experimental.planTool",
    "delegation_mode": "suggest / prefer",
    "memory_tools": "memory_search / memory_get are available",
    "sandbox": "{enabled, paths, elevated_exec}",
    "workspace_dir": "the working directory shown to the model",
    "docs_path": "local docs directory, or none",
    "docs_url": "the public documentation URL",
    "timezone": "user IANA time zone, or none",
    "model_aliases": "[(alias, provider/model)] sorted by alias",
    "skills_block": "the <available_skills> block (with its cut note), or empty",
    "stable_files": "bootstrap files above the boundary: [{name, text}]",
    "has_soul": "SOUL.md is among the stable files",
    "truncation_notice": "the fixed bootstrap notice is shown",
    "delivery": "normal / message_tool_only",
    "provider_prefix": "merged provider stable prefix, or empty",
}

VOLATILE: dict[str, str] = {
    "channel": "messaging channel, or none",
    "chat_type": "direct / group, or none",
    "capabilities": "channel capabilities: lowercased, deduplicated, sorted",
    "native_approvals": "the channel shows native approval cards",
    "owners": "allowlisted sender ids",
    "model": "model id, or none",
    "runtime_fields": "[(key, value)] for the runtime line, in order",
    "heartbeat_prompt": "heartbeat prompt when heartbeats apply to this agent, else none",
    "extra_prompt": "group or sub-agent context, or none",
    "reactions": "reaction guidance level, or none",
    "tts_hint": "text-to-speech hint, or none",
    "thinking": "thinking level (off when unset)",
    "reasoning": "reasoning visibility (off when unset)",
    "dynamic_files": "bootstrap files below the boundary: [{name, text}]",
    "startup_memory": "recent daily-memory excerpt on a /new or /reset first turn, or none",
    "provider_suffix": "merged provider dynamic suffix, or empty",
    "tool_call_style_overridden": "a provider replaced the tool_call_style slot",
}

DOCS_URL = "https://docs.openclaw.ai"

TOOL_ORDER: tuple[str, ...] = (
    "read", "write", "edit", "apply_patch", "grep", "find", "ls", "exec", "process",
    "web_search", "web_fetch", "browser", "canvas", "nodes", "cron", "message", "gateway",
    "agents_list", "sessions_list", "sessions_history", "sessions_search", "sessions_send",
    "sessions_spawn", "sessions_yield", "subagents", "session_status", "skill_workshop",
    "image", "image_generate",
)  # fmt: skip
"""Known tools are listed in this fixed order; unknown tools follow, sorted."""


def side_of(name: str) -> str | None:
    """`stable`, `volatile`, or None for an undeclared name."""
    if name in STABLE:
        return "stable"
    return "volatile" if name in VOLATILE else None


@dataclass(frozen=True)
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
) -> Contexts:
    """Canonicalise the inputs into the stable and volatile contexts."""
    stable = _stable(cfg, run, workspace, contribution, workspace_dir)
    volatile = {**stable, **_volatile(cfg, run, workspace, contribution)}
    return Contexts(stable, volatile)


def _stable(cfg, run, workspace, contribution, workspace_dir) -> dict[str, Any]:
    tools = canonical_tools(run.tools)
    files = [_file(f) for f in workspace.files if f.injected and not f.dynamic]
    return {
        "mode": run.effective_mode,
        "session": run.session,
        "harness": run.harness,
        "agent_id": cfg.agent_id,
        "tools": tools,
        "tool_names": frozenset(tool["name"].lower() for tool in tools),
        "plan_tool": cfg.plan_tool,
        "delegation_mode": cfg.delegation_mode,
        "memory_tools": run.memory_tools,
        "sandbox": {
            "enabled": run.sandbox.enabled,
            "paths": _distinct(run.sandbox.paths),
            "elevated_exec": run.sandbox.elevated_exec,
        },
        "workspace_dir": workspace_dir,
        "docs_path": cfg.docs_path,
        "docs_url": DOCS_URL,
        "timezone": cfg.user_timezone,
        "model_aliases": list(cfg.model_aliases),
        "skills_block": workspace.skills.text,
        "stable_files": files,
        "has_soul": any(f["name"] == "SOUL.md" for f in files),
        "truncation_notice": workspace.show_truncation_notice,
        "delivery": run.delivery,
        "provider_prefix": contribution.stable_prefix or "",
    }


def _volatile(cfg, run, workspace, contribution) -> dict[str, Any]:
    return {
        "channel": run.channel,
        "chat_type": run.chat_type,
        "capabilities": canonical_capabilities(run.capabilities),
        "native_approvals": run.native_approvals,
        "owners": [owner for owner in _distinct(o.strip() for o in run.owners) if owner],
        "model": run.model,
        "runtime_fields": runtime_fields(cfg, run),
        "heartbeat_prompt": heartbeat_prompt(cfg, run),
        "extra_prompt": _blank_to_none(run.extra_prompt),
        "reactions": _blank_to_none(run.reactions),
        "tts_hint": _blank_to_none(run.tts_hint),
        "thinking": run.thinking or "off",
        "reasoning": run.reasoning or "off",
        "dynamic_files": [_file(f) for f in workspace.files if f.injected and f.dynamic],
        "startup_memory": _blank_to_none(run.startup_memory),
        "provider_suffix": contribution.dynamic_suffix or "",
        "tool_call_style_overridden": "tool_call_style" in contribution.section_overrides,
    }


def canonical_tools(tools: tuple[Tool, ...]) -> list[dict[str, str]]:
    """Dedupe case-insensitively (first spelling wins); known tools in fixed order, then sorted."""
    first: dict[str, Tool] = {}
    for tool in tools:
        if tool.name:
            first.setdefault(tool.name.lower(), tool)
    rank = {name: index for index, name in enumerate(TOOL_ORDER)}
    ordered = sorted(first.items(), key=lambda item: (rank.get(item[0], len(rank)), item[0], item[1].name))
    return [{"name": tool.name, "summary": tool.summary} for _, tool in ordered]


def canonical_capabilities(capabilities: tuple[str, ...]) -> list[str]:
    """Lowercased, trimmed, deduplicated, sorted; blanks dropped."""
    return sorted({cap.strip().lower() for cap in capabilities if cap.strip()})


def heartbeat_prompt(cfg: ResolvedConfig, run: RunFacts) -> str | None:
    """The heartbeat prompt when heartbeats apply: default agent, enabled, section included."""
    hb = cfg.heartbeat
    if not (cfg.is_default_agent and hb.enabled and hb.include_section):
        return None
    return _blank_to_none(run.heartbeat_prompt) or _blank_to_none(hb.prompt)


def runtime_fields(cfg: ResolvedConfig, run: RunFacts) -> list[tuple[str, str]]:
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
    return [(key, _one_line(value)) for key, value in pairs if value]


def _file(context_file) -> dict[str, str]:
    return {"name": context_file.name, "text": context_file.text}


def _distinct(items) -> list[str]:
    return list(dict.fromkeys(items))


def _blank_to_none(text: str | None) -> str | None:
    return text if text and text.strip() else None


def _one_line(value: str) -> str:
    return re.sub(r"\s+", " ", str(value)).strip()
