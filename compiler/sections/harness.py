"""Harness routing: which bootstrap files stay in the instructions, and the codex harness's
three surfaces (instructions, developer files, per-turn notes)."""

from __future__ import annotations

from dataclasses import replace

from .._lib import text
from ..model.runfacts import RunFacts
from ..model.workspace import ContextFile, LoadedWorkspace
from .variables import file_fence

CODEX_DEVELOPER_FILES = ("SOUL.md", "IDENTITY.md", "TOOLS.md", "USER.md")
"""With the codex harness these files go to the developer surface instead of the prompt."""


def route(loaded: LoadedWorkspace, run: RunFacts) -> LoadedWorkspace:
    """With the codex harness, keep only files that still belong in the instructions."""
    if run.harness != "codex":
        return loaded
    kept = tuple(f for f in loaded.files if _stays_in_instructions(f, run))
    return replace(loaded, files=kept)


def _stays_in_instructions(f: ContextFile, run: RunFacts) -> bool:
    if f.name in ("AGENTS.md", *CODEX_DEVELOPER_FILES):
        return False  # the harness finds AGENTS.md itself; the others go to the developer surface
    return not (f.name.lower() == "memory.md" and run.has_memory_tools)


def codex_surfaces(stable: str, volatile: str, loaded: LoadedWorkspace, run: RunFacts, marker: str) -> dict[str, str]:
    """The three codex surfaces: instructions (the prompt without the in-band marker, which
    only a single-text prompt needs), developer files, and the per-turn notes. None holds the
    marker."""
    developer = "\n\n".join(
        _developer_file(f, marker) for f in loaded.files if f.name in CODEX_DEVELOPER_FILES and f.injected
    )
    instructions = "\n\n".join(part for part in (stable, volatile) if part)
    return {"instructions": instructions, "developer": developer, "turn": _codex_turn(loaded, run, marker)}


def _developer_file(f: ContextFile, marker: str) -> str:
    body = text.neutralise(f.text, marker)
    opening, closing = file_fence(f.name, body)
    return f"## {f.name}\n{opening}\n{body}\n{closing}"


def _codex_turn(loaded: LoadedWorkspace, run: RunFacts, marker: str) -> str:
    parts = []
    if loaded.skills.text:
        parts.append("Skills you can load by reading their SKILL.md:\n\n" + loaded.skills.text)
    if run.session == "heartbeat" and _heartbeat_has_tasks(loaded):
        parts.append("This is a heartbeat turn: read HEARTBEAT.md in the workspace and follow it.")
    if run.has_memory_tools:
        tools = " and ".join(sorted(run.memory_tool_names, reverse=True))  # memory_search first
        parts.append(f"Workspace memory is not pasted here: look things up with {tools}.")
    return text.neutralise("\n\n".join(parts), marker)


def _heartbeat_has_tasks(loaded: LoadedWorkspace) -> bool:
    present = any(f.name == "HEARTBEAT.md" and f.status in ("ok", "truncated") for f in loaded.files)
    return present and not loaded.heartbeat_skip
