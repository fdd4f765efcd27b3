"""A variant's recipe: made at build time from what the pipeline's stages made, kept as JSON in
`recipes/<sha256>.json`, read back when a bundle serves a turn.

A recipe names the built-in templates by their place in promptc's own template folder, not by where
promptc is installed, so a bundle built in one environment serves in another.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

import jinja2
from jinja2 import meta

from ..._lib import resources
from ..._lib.frozen import EMPTY
from ...model.config import ResolvedConfig
from ...model.prompt import Prompt
from ...model.runfacts import FACTS, RunFacts
from ...pipeline import Made
from ...sections.catalogue import Selection
from ...sections.partials import Partial, Partials
from ...workspace import budget, filters
from . import codec
from .model import BundleError, Recipe, Reported, StableLayout

TURN_FACTS: frozenset[str] = frozenset(d.name for d in FACTS if d.fact.replay == "volatile")
"""The facts a turn served from a bundle may set freely: those cache replay treats as volatile
(the channel, the runtime line, the owners, ...). They only reach the volatile part."""
BUILTIN = "builtin:"
"""How a recipe names a path inside promptc's template folder."""


class Memo:
    """What one process reuses across the recipes it makes: the names each template source
    includes, the portable form of each selection, each config without its tree, the cuts."""

    def __init__(self, env: jinja2.Environment, cuts: budget.Cuts, plugins: bool) -> None:
        self.env, self.cuts, self.plugins = env, cuts, plugins
        self.referenced: dict[str, tuple[str | None, ...] | None] = {}
        self.selections: dict[Selection, Selection] = {}
        self.configs: dict[int, tuple[ResolvedConfig, ResolvedConfig]] = {}

    def portable(self, selection: Selection) -> Selection:
        if selection not in self.selections:
            self.selections[selection] = _portable_selection(selection)
        return self.selections[selection]

    def config(self, cfg: ResolvedConfig) -> ResolvedConfig:
        """`cfg` without the merged config tree (the same object for the same config)."""
        known = self.configs.get(id(cfg))
        if known is None or known[0] is not cfg:
            known = self.configs[id(cfg)] = (cfg, dataclasses.replace(cfg, tree=EMPTY))
        return known[1]


def make(prompt: Prompt, made: Made, run: RunFacts, memo: Memo) -> Recipe:
    """The recipe of the variant `run` compiled to `prompt`, from what its stages made."""
    cfg = made.config
    volatile = tuple(memo.portable(s) for s in made.selected if s.spec.side != "stable")
    stable_count = sum(1 for s in made.selected if s.spec.side == "stable")
    counted = None if made.notice_files == made.files else budget.apply(made.notice_files, cfg.budgets, memo.cuts)
    layout = tuple((s.id, s.title, s.source, len(s.text)) for s in prompt.sections if s.side == "stable")
    return Recipe(
        config=memo.config(cfg),
        run=fixed_facts(run),
        loaded=made.loaded,
        file_diagnostics=tuple((f.name, f.diagnostics) for f in made.files),
        counted=counted,
        hooks=tuple(name for name, _ in filters.hook_sources(cfg, plugins=memo.plugins)),
        contribution=made.contribution,
        selected=volatile,
        partials=_portable_partials(_used_partials(made.partials, volatile, memo)),
        shown_dir=made.shown_dir,
        filtered_files=made.filtered_files,
        reported=Reported(made.notes, made.section_origins, made.workspace_reason),
        stable=StableLayout(layout, prompt.outline[:stable_count]),
    )


def shared_key(run: RunFacts, made: Made) -> Hashable:
    """What decides a variant's recipe besides the build's inputs: the facts a turn cannot change
    and the contributions (provider plugins see the whole run). Variants alike in these share one."""
    fixed = tuple(getattr(run, d.name) for d in FACTS if d.name not in TURN_FACTS)
    c = made.contribution
    return fixed, c.stable_prefix, c.dynamic_suffix, tuple(c.section_overrides.items()), c.sources


def fixed_facts(run: RunFacts) -> RunFacts:
    """`run` with every turn fact at its default: what every turn of the variant shares."""
    defaults = {f.name: _default(f) for f in dataclasses.fields(RunFacts) if f.name in TURN_FACTS}
    return dataclasses.replace(run, **defaults)


def _default(field: dataclasses.Field) -> Any:
    return field.default_factory() if field.default_factory is not dataclasses.MISSING else field.default


def dumps(recipe: Recipe, pool: codec.Pool) -> str:
    """The recipe's JSON text (deterministic), its large parts put in `pool`."""
    return codec.dumps(recipe, pool)


def loads(text: str, parts: codec.Parts) -> Recipe:
    """A recipe read back, its built-in template paths pointing into this promptc's template folder."""
    recipe = codec.loads(text, parts)
    if not isinstance(recipe, Recipe):
        raise BundleError("unreadable (not a recipe)")
    return dataclasses.replace(
        recipe,
        selected=tuple(_local_selection(s) for s in recipe.selected),
        partials=_local_partials(recipe.partials),
    )


# --------------------------------------------------------------------------- partials used


def _used_partials(partials: Partials, selected: Sequence[Selection], memo: Memo) -> Partials:
    """The partials the volatile sections include or import, at any depth; all of them when a
    template computes a name (any partial could then be the one) or does not parse."""
    wanted: set[str] = set()
    pending = [s.spec.source for s in selected if s.override is None]
    while pending:
        names = _names(pending.pop(), memo)
        if names is None or None in names:
            return partials
        for name in (n for n in names if n is not None and n not in wanted):
            wanted.add(name)
            found = partials.by_name.get(name)
            if found is not None and found.source is not None:
                pending.append(found.source)
    by_name = {name: p for name, p in partials.by_name.items() if name in wanted}
    return dataclasses.replace(partials, by_name=by_name)


def _names(source: str, memo: Memo) -> tuple[str | None, ...] | None:
    if source not in memo.referenced:
        try:
            memo.referenced[source] = tuple(meta.find_referenced_templates(memo.env.parse(source)))
        except jinja2.TemplateSyntaxError:
            memo.referenced[source] = None  # the render reports it; keep every partial it could need
    return memo.referenced[source]


# --------------------------------------------------------------------------- built-in paths


def _templates_root() -> str:
    return str(resources.templates_root()) + os.sep


def _portable(path: str) -> str:
    root = _templates_root()
    return BUILTIN + Path(path[len(root) :]).as_posix() if path.startswith(root) else path


def _local(path: str) -> str:
    return str(resources.templates_root() / path[len(BUILTIN) :]) if path.startswith(BUILTIN) else path


def _portable_selection(selection: Selection) -> Selection:
    spec = dataclasses.replace(selection.spec, path=_portable(selection.spec.path))
    return dataclasses.replace(selection, spec=spec)


def _local_selection(selection: Selection) -> Selection:
    spec = dataclasses.replace(selection.spec, path=_local(selection.spec.path))
    return dataclasses.replace(selection, spec=spec)


def _portable_partials(partials: Partials) -> Partials:
    return _repath(partials, _portable)


def _local_partials(partials: Partials) -> Partials:
    return _repath(partials, _local)


def _repath(partials: Partials, move: Any) -> Partials:
    by_name = {name: _moved(p, move) for name, p in partials.by_name.items()}
    return dataclasses.replace(partials, by_name=by_name, searched=tuple(move(d) for d in partials.searched))


def _moved(partial: Partial, move: Any) -> Partial:
    return dataclasses.replace(partial, path=move(partial.path))
