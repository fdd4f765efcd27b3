"""What a bundle build produces: the manifest and stable texts in memory, and the bundle's error."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..._lib.errors import PromptcError

FORMAT = 1
"""The manifest's `format` number."""


class BundleError(PromptcError):
    """The matrix is malformed, or the output directory cannot be used."""


@dataclass(frozen=True, slots=True)
class StableParts:
    """The sections and workspace files one stable text is made of."""

    sections: tuple[tuple[str, str], ...]
    """(section id, its text), in prompt order."""
    files: tuple[tuple[str, str], ...]
    """(bootstrap file name, its injected text) for the files above the boundary."""


@dataclass(frozen=True, slots=True)
class Built:
    """A bundle in memory: the manifest and each distinct stable text by its SHA-256."""

    manifest: Mapping[str, Any]
    """The `manifest.json` document."""
    stable: Mapping[str, str]
    """SHA-256 hex -> stable text, in first-use order."""
    parts: Mapping[str, StableParts] = dataclasses.field(default_factory=dict)
    """SHA-256 hex -> what that stable text is made of (for `--check` to say what changed)."""
