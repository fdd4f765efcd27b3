"""Helpers shared by the skills tests: a SKILL.md's text, a workspace's skills block, the names it lists."""

from __future__ import annotations

from pathlib import Path

from promptc.model.workspace import SkillsBlock
from promptc.skills import listing as skillblock

from .factories import make_config

ALL_BINS = {"git": "/usr/bin/git", "jq": "/usr/bin/jq"}
"""The binaries `build` finds on PATH by default."""


def skill_md(name: str | None, description: str | None, extra: str = "") -> str:
    """A SKILL.md with a frontmatter block (name, description and `extra` lines when given) and a body."""
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    lines += [extra, "---", "", "# Instructions", ""] if extra else ["---", "", "# Instructions", ""]
    return "\n".join(lines)


def build(root: Path, cfg=None, *, env=None, which=ALL_BINS.get, platform="linux") -> SkillsBlock:
    """The skills block of the workspace at `root`, with no environment and ALL_BINS on PATH unless told."""
    return skillblock.build(cfg or make_config(), root, env=env or {}, which=which, platform=platform)


def listed_names(block: SkillsBlock) -> list[str]:
    """The names of the skills a block lists, in its order."""
    return [entry.name for entry in block.entries if entry.included]
