"""Helpers shared by the skills tests: a SKILL.md's text, a workspace's skills block, the names it lists."""

from __future__ import annotations

from pathlib import Path

from promptc.model.workspace import SkillsBlock
from promptc.skills import listing as skillblock

from .factories import make_config

ALL_BINS = {"git": "/usr/bin/git", "jq": "/usr/bin/jq"}
"""The binaries `build` finds on PATH by default."""
SHOWN_ROOT = "/srv/agent"
"""The workspace directory `build` says the prompt names by default (a configured workspace), so
a workspace skill's location, and a listing's length, do not depend on the test's temp folder."""


def skill_md(name: str | None, description: str | None, extra: str = "") -> str:
    """A SKILL.md with a frontmatter block (name, description and `extra` lines when given) and a body."""
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    lines += [extra, "---", "", "# Instructions", ""] if extra else ["---", "", "# Instructions", ""]
    return "\n".join(lines)


def build(
    root: Path, cfg=None, *, env=None, which=ALL_BINS.get, platform="linux", shown_root: str | None = SHOWN_ROOT
) -> SkillsBlock:
    """The skills block of the workspace at `root`, with no environment, ALL_BINS on PATH and the
    prompt naming the workspace SHOWN_ROOT unless told."""
    return skillblock.build(
        cfg or make_config(), root, env=env or {}, which=which, platform=platform, shown_root=shown_root
    )


def listed_names(block: SkillsBlock) -> list[str]:
    """The names of the skills a block lists, in its order."""
    return [entry.name for entry in block.entries if entry.included]
