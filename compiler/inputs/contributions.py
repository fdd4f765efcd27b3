"""Provider contributions: stable prefix, dynamic suffix and slot overrides."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .._lib import entrypoints, fsutil, resources
from .._lib.errors import Location, PromptcError
from .._lib.reads import Recorder
from .._lib.text import normalise
from ..model.config import ResolvedConfig
from ..model.runfacts import RunFacts
from . import yamlsrc

ENTRY_POINT_GROUP = "promptc.providers"
GPT5_MODEL = re.compile(r"(^|[/:])gpt-5([.-]|$)", re.IGNORECASE)
GPT5_PROVIDERS = frozenset({"openai", "codex", "codex-cli", "openai-codex", "azure-openai", "azure-openai-responses"})

SLOTS: tuple[str, ...] = ("interaction_style", "tool_call_style", "execution_bias")
"""The sections a contribution may replace: a section names the slot it fills in its metadata."""


@dataclass(frozen=True, slots=True)
class Contribution:
    """What one provider adds to the prompt."""

    stable_prefix: str | None = None
    """Text placed at the end of the stable part, after the silent-replies section, so a model
    switch re-sends only the last cache tier."""
    dynamic_suffix: str | None = None
    """Text placed below the boundary, before the heartbeats and runtime sections."""
    section_overrides: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """Slot id -> a complete replacement section (heading included)."""
    sources: tuple[str, ...] = ()
    """Where the parts came from, for reports."""


def merge(contributions: Iterable[Contribution]) -> Contribution:
    """Prefixes and suffixes join as the distinct non-blank texts in order; overrides: later wins."""
    items = list(contributions)
    overrides: dict[str, str] = {}
    for item in items:
        overrides.update({k: v for k, v in item.section_overrides.items() if v and v.strip()})
    return Contribution(
        stable_prefix=_join_distinct(item.stable_prefix for item in items),
        dynamic_suffix=_join_distinct(item.dynamic_suffix for item in items),
        section_overrides=MappingProxyType(dict(sorted(overrides.items()))),
        sources=tuple(source for item in items for source in item.sources),
    )


def _join_distinct(texts: Iterable[str | None]) -> str | None:
    distinct = list(dict.fromkeys(normalise(text) for text in texts if text and text.strip()))
    return "\n\n".join(distinct) or None


def from_mapping(data: Any, source: str, located: yamlsrc.Located | None = None) -> Contribution:
    """Validate `{stable_prefix?, dynamic_suffix?, section_overrides?}` from a file or plugin."""
    where = (lambda path: located.where(path)) if located else (lambda path: Location(source))
    if not isinstance(data, Mapping):
        raise PromptcError("a contribution must be a mapping", where(()))
    for key in data:
        if key not in ("stable_prefix", "dynamic_suffix", "section_overrides"):
            raise PromptcError(f"unknown contribution key '{key}'", where((key,)))
    overrides = data.get("section_overrides") or {}
    if not isinstance(overrides, Mapping):
        raise PromptcError("section_overrides must be a mapping", where(("section_overrides",)))
    for key, value in overrides.items():
        if key not in SLOTS:
            raise PromptcError(f"unknown slot '{key}' (expected {', '.join(SLOTS)})", where(("section_overrides", key)))
        if not isinstance(value, str):
            raise PromptcError(f"override for {key} must be text", where(("section_overrides", key)))
    for key in ("stable_prefix", "dynamic_suffix"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise PromptcError(f"{key} must be text", where((key,)))
    return Contribution(
        data.get("stable_prefix"),
        data.get("dynamic_suffix"),
        MappingProxyType({k: normalise(v) for k, v in overrides.items()}),
        (source,),
    )


def load_file(path: Path, tracker: Recorder | None = None) -> Contribution:
    """A contribution from a YAML/JSON file (`--contributions`); `tracker` records the read."""
    observe = None if tracker is None else (lambda info, data: tracker.file(str(path), info, data))
    data = fsutil.read_input(path, PromptcError, observe=observe)
    located = yamlsrc.parse(yamlsrc.decode(data, path), str(path), PromptcError)
    return from_mapping({} if located.value is None else located.value, str(path), located)


# --------------------------------------------------------------------------- built-in overlays


def provider_of(run: RunFacts) -> str | None:
    """The provider id: explicit, else the `provider/` prefix of the model id."""
    if run.provider:
        return run.provider.lower()
    if run.model and "/" in run.model:
        return run.model.split("/", 1)[0].lower()
    return None


def gpt5_applies(run: RunFacts) -> bool:
    """The GPT-5 overlay applies to gpt-5 model ids routed through the openai/codex providers."""
    return bool(run.model and GPT5_MODEL.search(run.model)) and provider_of(run) in GPT5_PROVIDERS


def gpt5_overlay(cfg: ResolvedConfig, run: RunFacts) -> Contribution | None:
    """Our behaviour contract for GPT-5 models, plus a friendly interaction style when enabled."""
    if not gpt5_applies(run):
        return None
    overrides = {}
    if cfg.gpt5_personality in ("friendly", "on"):
        overrides["interaction_style"] = _overlay_text("gpt5_interaction_style.md")
    return Contribution(
        stable_prefix=_overlay_text("gpt5_contract.md"),
        section_overrides=MappingProxyType(overrides),
        sources=("builtin:gpt5",),
    )


@functools.cache
def _overlay_text(name: str) -> str:
    return normalise((resources.templates_root() / "overlays" / name).read_text(encoding="utf-8"))


BUILTIN_OVERLAYS: tuple[Callable[[ResolvedConfig, RunFacts], Contribution | None], ...] = (gpt5_overlay,)


@functools.cache
def installed_plugins() -> tuple[Any, ...]:
    """Provider plugins (importlib.metadata entry points), sorted by name; scanned once per process."""
    return entrypoints.entry_points(ENTRY_POINT_GROUP)


def from_entry_points(cfg: ResolvedConfig, run: RunFacts) -> list[Contribution]:
    """Contributions from installed plugins (entry point group `promptc.providers`), by name."""
    found = []
    for entry in installed_plugins():
        try:
            result = entry.load()(cfg, run)
        except Exception as exc:  # a plugin's own bug: report it with its name, not a traceback
            raise PromptcError(f"provider plugin {entry.name!r} ({entry.value}) failed: {exc}") from exc
        if isinstance(result, Contribution):
            found.append(result)
        elif result is not None:
            found.append(from_mapping(result, f"entry point {entry.name}"))
    return found


def resolve(
    cfg: ResolvedConfig, run: RunFacts, extra: Sequence[Contribution] = (), *, plugins: bool = True
) -> Contribution:
    """Built-in overlays, then plugins (unless `plugins` is False), then `--contributions` files."""
    builtin = [overlay(cfg, run) for overlay in BUILTIN_OVERLAYS]
    installed = from_entry_points(cfg, run) if plugins else []
    parts = [c for c in builtin if c is not None] + installed + list(extra)
    return merge(parts)
