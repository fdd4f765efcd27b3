"""One turn served from a bundle: the stable part as stored, the volatile part rendered from the
variant's recipe with the turn's facts, assembled into the Prompt compiling from the sources gives."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ... import pipeline
from ... import tiers as cache_tiers
from ..._lib.frozen import identity
from ...inputs import toolpolicy
from ...model.prompt import Prompt, PromptUnit, RenderedSection
from ...model.runfacts import FACTS, RunFacts
from ...model.units import DYNAMIC_UNIT, JOIN, reached
from ...model.workspace import WorkspaceFile
from ...sections import harness, render, uservars, variables
from . import dynamic
from .matrix import ROW_KEYS, quoted
from .model import BundleError, Recipe
from .recipe import TURN_FACTS

FIXED_FACTS: tuple[str, ...] = tuple(
    d.name
    for d in FACTS
    if d.name not in TURN_FACTS and d.name not in ROW_KEYS and d.name not in ("vars", "var_origins")
)
"""The facts a turn must share with the variant it is served from, besides those naming the variant
(user variables are checked by side: only the stable ones must be as built)."""


@dataclass(frozen=True, slots=True)
class Stored:
    """One variant as a bundle holds it, read back: its recipe and its stable part."""

    recipe: Recipe
    """What its volatile part is rendered from."""
    stable: str
    """The stable text."""
    units: tuple[PromptUnit, ...]
    """The stable part's cache units, in order."""
    sections: tuple[RenderedSection, ...]
    """The stable sections, cut back out of the stable text."""
    stable_vars: tuple[tuple[str, Any], ...]
    """The stable user variables as built: (name, identity of the value)."""


def stored(recipe: Recipe, stable: str, tiers: Sequence[Mapping[str, Any]]) -> Stored:
    """A variant read back from its recipe, its stable text and its manifest row's tiers."""
    texts = cache_tiers.unit_texts(stable, tiers)
    units = tuple(
        PromptUnit(u["name"], texts[u["name"]]) for tier in tiers for u in tier["units"] if u["name"] != DYNAMIC_UNIT
    )
    sections, position = [], 0
    for section_id, title, source, chars in recipe.stable.sections:
        sections.append(RenderedSection(section_id, "stable", title, stable[position : position + chars], source))
        position += chars + len(JOIN)
    return Stored(recipe, stable, units, tuple(sections), _stable_vars(uservars.resolve(recipe.config, recipe.run)))


def serve(
    variant: Stored, run: RunFacts, renderer: render.Renderer, dynamic_file: tuple[str, WorkspaceFile] | None
) -> Prompt:
    """The Prompt of `run` from a stored variant; `dynamic_file` is (the workspace, its HEARTBEAT.md
    as just read), or None to use it as built."""
    recipe = variant.recipe
    _check_facts(recipe.run, run)
    cfg, mode = recipe.config, run.effective_mode
    run = toolpolicy.with_config(run, cfg)  # as the pipeline fills it
    user = uservars.resolve(cfg, run)
    _check_stable_vars(variant, user)
    loaded, filtered = recipe.loaded, recipe.filtered_files
    if dynamic_file is not None and mode != "none":
        loaded, filtered = dynamic.with_file(recipe, dynamic_file[1], dynamic_file[0], run)
    routed = harness.route(loaded, run)
    contexts = variables.build(cfg, run, routed, recipe.contribution, recipe.shown_dir, user)
    below = renderer.render(
        recipe.selected,
        variables.Contexts({}, contexts.volatile),
        cfg.boundary_marker,
        mode,
        recipe.partials,
        cfg.cache,
    )
    rendered = _joined(variant, below, cfg.boundary_marker, mode, cfg.cache)
    reported = recipe.reported
    report = (user, filtered, reported.section_origins, reported.workspace_reason)
    return pipeline.assemble(rendered, cfg, run, loaded, reported.notes, report)


def _joined(variant: Stored, below: render.Rendered, marker: str, mode: str, cache: Any) -> render.Rendered:
    """The stored stable part and the rendered volatile part, joined as the renderer joins them."""
    stable, volatile, units = variant.stable, below.volatile, variant.units
    if units and below.sections and below.sections[0].id in reached(cache):
        units += (PromptUnit(DYNAMIC_UNIT, below.sections[0].text),)
    parts = [p for p in (stable, volatile) if p] if mode == "none" else [stable, marker, volatile]
    outline = variant.recipe.stable.outline + below.outline
    return render.Rendered(stable, volatile, JOIN.join(parts), variant.sections + below.sections, outline, units)


def _check_facts(built: RunFacts, run: RunFacts) -> None:
    differing = [name for name in FIXED_FACTS if getattr(run, name) != getattr(built, name)]
    if differing:
        shown = ", ".join(f"{name} (built with {quoted(getattr(built, name))})" for name in differing)
        raise BundleError(
            f"this turn's run facts differ from the variant's: {shown}; a bundle serves only the facts it was"
            " built with, besides the turn facts (channel details, runtime line, owners, ...): rebuild it"
        )


def _stable_vars(user: Sequence[Any]) -> tuple[tuple[str, Any], ...]:
    return tuple((v.name, identity(v.value)) for v in user if v.side == "stable")


def _check_stable_vars(variant: Stored, user: Sequence[Any]) -> None:
    now = dict(_stable_vars(user))
    differing = [name for name, value in variant.stable_vars if now.get(name) != value]
    if differing:
        names = ", ".join(f"vars.{name}" for name in differing)
        raise BundleError(
            f"stable user variables differ from the variant's ({names}): they are above the cache boundary,"
            " so a bundle serves only the values it was built with; rebuild it"
        )
