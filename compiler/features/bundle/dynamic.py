"""A turn's dynamic workspace file (HEARTBEAT.md) when a bundle serves it with a workspace: read
from the workspace as it is now, filtered and cut as a compile from the sources does, and refused
when its new length would change what the bundle's stable part holds.

HEARTBEAT.md sits between stable files in the load order, so under the total budget its length
decides what is left for the files after it (BOOTSTRAP.md, MEMORY.md), and whether it is cut
decides the truncation notice. Either would change the stable part, which the bundle keeps as built:
such a turn is an error asking for a rebuild, never a prompt that differs from the sources'.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from ... import pipeline
from ..._lib.errors import Location
from ...model.runfacts import RunFacts
from ...model.workspace import BOOTSTRAP_FILE_NAMES, ContextFile, LoadedWorkspace, WorkspaceFile
from ...workspace import budget, filters, heartbeat, quicklook
from .model import BundleError, Recipe

HEARTBEAT = "HEARTBEAT.md"


def with_file(
    recipe: Recipe, read: WorkspaceFile, root: str, run: RunFacts
) -> tuple[LoadedWorkspace, tuple[ContextFile, ...]]:
    """The workspace half and the filtered-file rows of a turn whose dynamic file is `read` (as
    just read from the workspace at `root`); everything else is as built."""
    if recipe.hooks:
        raise BundleError(
            f"the bundle was built with bootstrap hooks ({', '.join(recipe.hooks)}), which a bundle cannot run"
            f" at turn time: serve it without a workspace to use {read.name} as built",
            Location(read.path),
        )
    cfg = recipe.config
    kept, drops = filters.apply_with_drops((read,), cfg, run, setup_complete=True, workspace=root, plugins=False)
    others = [f for f in recipe.loaded.files if f.name != read.name]
    remaining = cfg.budgets.total_max_chars - sum(
        f.injected_chars for f in others if _order(f.name) < _order(read.name)
    )
    placed = budget.apply(kept, dataclasses.replace(cfg.budgets, total_max_chars=remaining))
    built = next((f for f in recipe.loaded.files if f.name == read.name), None)
    _check_later_files(recipe, read, remaining, built, placed)
    files = _in_order([*others, *placed])
    counted = files if recipe.counted is None else _in_order([*_without(recipe.counted, read.name), *placed])
    signature = budget.signature(counted, cfg.budgets)
    if budget.decide_notice(cfg.budgets.warning, signature, None).show != recipe.loaded.show_truncation_notice:
        raise BundleError(_notice_problem(read.name, recipe.loaded.show_truncation_notice), Location(read.path))
    rows = pipeline.filtered_rows((read,), drops, run)
    filtered = _in_order([*_without(recipe.filtered_files, read.name), *rows])
    loaded = dataclasses.replace(
        recipe.loaded,
        root=root,
        files=files,
        heartbeat_skip=_skip(kept),
        truncation_signature=signature,
        diagnostics=_diagnostics(recipe, kept),
    )
    return loaded, filtered


def _order(name: str) -> int:
    """A file's place in the load order (`memory.md` stands where MEMORY.md does)."""
    return BOOTSTRAP_FILE_NAMES.index("MEMORY.md" if name == "memory.md" else name)


def _in_order(files: Iterable[ContextFile]) -> tuple[ContextFile, ...]:
    return tuple(sorted(files, key=lambda f: _order(f.name)))


def _without(files: Sequence[ContextFile], name: str) -> list[ContextFile]:
    return [f for f in files if f.name != name]


def _skip(kept: Sequence[WorkspaceFile]) -> bool:
    """Whether HEARTBEAT.md holds no task, as the pipeline decides it for the file the filters kept."""
    text = next((f.content for f in kept if f.name == HEARTBEAT and f.content is not None), None)
    return text is not None and not quicklook.has_task(text) and heartbeat.is_effectively_empty(text)


def _diagnostics(recipe: Recipe, kept: Sequence[WorkspaceFile]) -> tuple[str, ...]:
    names = {f.name for f in kept}
    by_file = [(name, notes) for name, notes in recipe.file_diagnostics if name not in names]
    by_file += [(f.name, f.diagnostics) for f in kept]
    by_file.sort(key=lambda item: _order(item[0]))
    return tuple(note for _, notes in by_file for note in notes) + recipe.loaded.skills.diagnostics


def _check_later_files(
    recipe: Recipe, read: WorkspaceFile, remaining: int, built: ContextFile | None, placed: Sequence[ContextFile]
) -> None:
    """Refuse a length of the dynamic file that would place the files after it differently.

    Each later file is placed as it would be with no total budget once at least `needed`
    characters are left after the dynamic file: enough for each of them uncut (or cut only to the
    per-file budget) and the 64 characters below which later files are dropped. Below that, only
    the length the bundle was built with places them as built.
    """
    budgets = recipe.config.budgets
    later = [f for f in (recipe.counted or recipe.loaded.files) if _order(f.name) > _order(read.name)]
    later = [f for f in later if f.status != "skipped"]
    before = remaining - (built.injected_chars if built is not None else 0)
    now = remaining - sum(f.injected_chars for f in placed)
    needed = budget.MIN_REMAINING + sum(_need(f, budgets.max_chars) for f in later)
    if not later or now == before or min(now, before) >= needed:
        return
    was = built.injected_chars if built is not None else 0
    raise BundleError(
        f"{read.name} injects {remaining - now} characters now, {was} when the bundle was built: under the"
        f" total budget (bootstrapTotalMaxChars: {budgets.total_max_chars}) the files after it would be cut"
        " differently from the bundle's stable part; rebuild the bundle",
        Location(read.path),
    )


def _need(row: ContextFile, max_chars: int) -> int:
    """The characters a file needs to be placed as with no total budget: all of it, or the per-file
    budget when that cuts it; a missing file's marker."""
    marker = len(budget.missing_marker(row.name))
    if row.status == "missing":
        return marker
    need = min(row.raw_chars, max_chars)
    return max(need, marker) if row.status == "dropped" and row.raw_chars == 0 else need


def _notice_problem(name: str, shown: bool) -> str:
    change = "no longer shows" if shown else "would show"
    return (
        f"{name} is {'no longer ' if shown else ''}cut now, so the truncation notice above the boundary {change};"
        " the bundle's stable part cannot serve this turn: rebuild the bundle"
    )
