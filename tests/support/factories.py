"""Builders for test inputs: a ResolvedConfig with defaults, workspace files on disk."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from promptc.model.config import Budgets, HeartbeatConfig, ResolvedConfig, SkillsConfig
from promptc.model.workspace import WorkspaceFile

_DEFAULT_CONFIG = ResolvedConfig(
    agent_id="main",
    is_default_agent=True,
    workspace=".",
    budgets=Budgets(),
    heartbeat=HeartbeatConfig(),
    skills=SkillsConfig(),
    user_timezone=None,
    time_format="auto",
    delegation_mode="suggest",
    gpt5_personality="friendly",
    image_max_dimension_px=1200,
    model_aliases=(),
    docs_path=None,
    plan_tool=False,
    boundary_marker="<!-- PROMPT_CACHE_BOUNDARY -->",
    template_dirs=(),
    hooks=(),
    context_limits={},
    tree={},
)


def make_config(**overrides: Any) -> ResolvedConfig:
    """A ResolvedConfig with the documented defaults, any field replaced by keyword."""
    return replace(_DEFAULT_CONFIG, **overrides)


def write_files(root: Path, files: dict[str, str | bytes]) -> Path:
    """Create `root` holding each name with its text (UTF-8) or raw bytes; return `root`."""
    root.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")
    return root


def loaded(name: str, content: str | None, status: str = "ok") -> WorkspaceFile:
    """A WorkspaceFile as `workspace.load` would give it, without touching the disk."""
    return WorkspaceFile(name=name, path=f"/ws/{name}", content=content, status=status, raw_chars=len(content or ""))
