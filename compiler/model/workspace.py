"""Workspace files and skills as the workspace stages hand them on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

FileStatus = Literal["ok", "truncated", "missing", "skipped", "dropped", "filtered"]
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
"""The fixed load order. `memory.md` stands in for MEMORY.md when only it exists."""
DYNAMIC_FILE_NAMES: frozenset[str] = frozenset({"HEARTBEAT.md"})
"""Bootstrap files that render below the cache boundary."""


@dataclass(frozen=True, slots=True)
class WorkspaceFile:
    """One bootstrap file as loaded from disk, frontmatter already stripped."""

    name: str
    """The canonical name (`AGENTS.md`, ...)."""
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


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class Skill:
    """One discovered skill."""

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


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
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
    compact: bool = False
    """Whether the list is in its compact form (names and locations, descriptions omitted),
    as it is when the full list is over the skills budget."""
    bundled: str | None = None
    """The bundled skills folder the list drew on, and how it was found; None for none."""


@dataclass(frozen=True, slots=True)
class WorkspaceFacts:
    """What the workspace directory itself tells us, besides its bootstrap files."""

    git_repo: bool = False
    """The workspace root holds its own `.git` (a clone, a linked worktree or a submodule)."""
    looked_at: tuple[str, ...] = ()
    """Paths the probe examined, so a watcher knows what can change the answer."""


@dataclass(frozen=True, slots=True)
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
