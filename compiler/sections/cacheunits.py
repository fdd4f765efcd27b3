"""Cut the rendered stable part into cache units: one per section, or for a per-file section its
head and one per workspace file, with a cut file's head apart from its kept tail."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jinja2

from .._lib.text import neutralise, normalise
from ..model.config import CacheConfig
from ..model.prompt import PromptUnit, RenderedSection
from ..model.units import FILE_PREFIX, HEAD_SUFFIX, JOIN, named_heads, unit_name
from ..workspace.truncate import marker_start

PER_FILE_BLOCKS = ("head", "file")
"""A stable section whose template defines these two blocks is one cache unit for its `head`
and one per workspace file (its `file` block, with `file` bound); see project_context.md.j2."""


def section_units(
    template: jinja2.Template | None, section: RenderedSection, context: Mapping[str, Any], marker: str
) -> list[PromptUnit]:
    """A rendered stable section as cache units: one, or (for a per-file section) its head
    and one per file, which joined give the section's text exactly (otherwise it stays one)."""
    whole = [PromptUnit(unit_name("section", section.id), section.text)]
    if template is None or not all(name in template.blocks for name in PER_FILE_BLOCKS):
        return whole
    pieces = [(section.id, "section", _block(template, "head", context, marker))]
    for file in context.get("stable_files", ()):
        pieces.append((file["name"], "file", _block(template, "file", {**context, "file": file}, marker)))
    units = [PromptUnit(unit_name(kind, name), text) for name, kind, text in pieces if text]
    return units if JOIN.join(u.text for u in units) == section.text else whole


def _block(template: jinja2.Template, name: str, context: Mapping[str, Any], marker: str) -> str:
    """One block of a template, normalised like a whole section."""
    return neutralise(normalise("".join(template.blocks[name](template.new_context(dict(context))))), marker)


def split_heads(
    units: tuple[PromptUnit, ...], context: Mapping[str, Any], cache: CacheConfig
) -> tuple[PromptUnit, ...]:
    """Each cut file whose head a tier names as two units, split where its cut marker line starts:
    the head stays byte-identical when an append moves the kept tail, so its tier stays cached."""
    heads = named_heads(cache)
    if not heads:
        return units
    cut = {f["name"] for f in context.get("stable_files", ()) if f.get("truncated")}
    split: list[PromptUnit] = []
    for unit in units:
        name = unit.name.removeprefix(FILE_PREFIX)
        at = marker_start(name, unit.text) if unit.name != name and name in heads and name in cut else None
        if at is None:
            split.append(unit)
            continue
        split += [PromptUnit(unit.name + HEAD_SUFFIX, unit.text[: at - 1]), PromptUnit(unit.name, unit.text[at:])]
    return tuple(split)
