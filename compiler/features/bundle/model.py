"""What a bundle build produces and what a bundle keeps per variant: the manifest, the stable texts
and the recipes in memory, a recipe's parts, and the bundle's error."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..._lib.errors import PromptcError
from ...inputs.contributions import Contribution
from ...model.config import ResolvedConfig
from ...model.prompt import SectionOrigin
from ...model.runfacts import RunFacts
from ...model.workspace import ContextFile, LoadedWorkspace
from ...sections.catalogue import Selection
from ...sections.partials import Partials

FORMAT_VERSION = 2
"""The manifest's `format_version`: a bundle of this version has the recipes it serves turns from."""
LEGACY_FORMAT = 1
"""The `format` of a legacy manifest, which has no `format_version` (and a legacy bundle holds
stable parts only: it can be checked and replaced, not served)."""


class BundleError(PromptcError):
    """The matrix is malformed, the output directory cannot be used, or a bundle cannot serve a turn."""


@dataclass(frozen=True, slots=True)
class Built:
    """A bundle in memory: the manifest, each distinct stable text and each distinct recipe by its SHA-256."""

    manifest: Mapping[str, Any]
    """The `manifest.json` document."""
    stable: Mapping[str, str]
    """SHA-256 hex -> stable text, in first-use order."""
    recipes: Mapping[str, str]
    """SHA-256 hex -> recipe JSON text, in first-use order."""


@dataclass(frozen=True, slots=True)
class StableLayout:
    """How a stable text is cut back into its sections, and the stable side of the outline."""

    sections: tuple[tuple[str, str, str, int], ...]
    """(id, title, source, characters) of each stable section, in prompt order."""
    outline: tuple[tuple[str, bool, str], ...]
    """The stable side of the outline: (id, rendered?, why)."""


@dataclass(frozen=True, slots=True)
class Reported:
    """What a Prompt reports about the config and the catalogue, the same for many variants."""

    notes: tuple[str, ...]
    """Warnings about the config, templates and workspace."""
    section_origins: tuple[SectionOrigin, ...]
    """Every section of the catalogue with its source file."""
    workspace_reason: str = ""
    """Why the workspace the variant was built from is the one it is."""


@dataclass(frozen=True, slots=True)
class Recipe:
    """What one variant's volatile part is rendered from, and the rest of its Prompt: everything a
    turn needs besides the stable text (read from `stable/`) and the turn's own facts."""

    config: ResolvedConfig
    """The agent's resolved config, without the merged config tree (which only the stable part reads)."""
    run: RunFacts
    """The facts the variant was built with, the turn facts (cache replay's volatile ones) at their
    defaults: a turn may change those, and every other fact must be as built."""
    loaded: LoadedWorkspace
    """The workspace half as built: files after the budgets, skills, the notice decision."""
    file_diagnostics: tuple[tuple[str, tuple[str, ...]], ...]
    """(file name, its diagnostics) for each file the filters kept, in load order."""
    counted: tuple[ContextFile, ...] | None
    """The files the truncation notice counted, when not `loaded.files` (a group chat counts MEMORY.md)."""
    hooks: tuple[str, ...]
    """The bootstrap hooks that ran at build time."""
    contribution: Contribution
    """The provider contributions, merged."""
    selected: tuple[Selection, ...]
    """The volatile sections' fates, with their template sources."""
    partials: Partials
    """The partials the volatile sections include."""
    shown_dir: str
    """The workspace directory the prompt names."""
    filtered_files: tuple[ContextFile, ...]
    """The files a filter left out, as reported."""
    reported: Reported
    """The notes and section origins the Prompt reports."""
    stable: StableLayout
    """How the stable text is cut into its sections."""
