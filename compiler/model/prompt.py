"""The compiled prompt and the pieces a cache or a report sees in it."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .config import KeepWarm, UserVariable
from .runfacts import PromptMode, SessionKind
from .units import unit_separator
from .workspace import ContextFile, SkillsBlock


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class SectionOrigin:
    """Where a section of the catalogue comes from."""

    id: str
    """Section id."""
    source: str
    """`builtin:<file>` or the user's template file."""
    overrides: str | None
    """`builtin:<file>` when the section replaces a built-in one with the same id, else None."""
    order: int
    """Its `order` metadata: where it sits in the prompt (lower first)."""


@dataclass(frozen=True, slots=True)
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
    openai_cache_retention: str | None = None
    """The `prompt_cache_retention` the OpenAI payloads carry (`in_memory` or `24h`), when set."""
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
    workspace_reason: str = ""
    """Why the workspace is the directory it is (`from --workspace`, the config key and file that
    named it, or whose default); '' when not known."""
    heartbeat_message: str | None = None
    """On a heartbeat run, the message the runtime sends the model as that turn's input (the run's
    `heartbeat_prompt`, else `agents.defaults.heartbeat.prompt`, else the built-in one); the system
    prompt never holds it. None on every other run."""
    keep_warm: KeepWarm | None = None
    """`prompt.cache.keepWarm`: when the runtime should send this prompt's keep-warm ping
    (`payloads.keep_warm_ping`) while its model is idle; None when it sends none (also for a
    session kind sent without breakpoints)."""

    @property
    def stable_sha256(self) -> str:
        """SHA-256 of the stable part: the cache key a provider would see."""
        return _sha256(self.stable)

    @property
    def volatile_sha256(self) -> str:
        """SHA-256 of the volatile part."""
        return _sha256(self.volatile)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
