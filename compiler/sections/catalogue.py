"""Discover section templates, validate their metadata and decide which ones a prompt uses."""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, MutableMapping, Sequence

from .. import fsutil, resources
from ..config import yamlsrc
from ..errors import Location, TemplateError
from ..freshness import Tracker
from ..model import PROMPT_MODES, SIDES

SECTION_SUFFIX = ".md.j2"
SLOTS: tuple[str, ...] = ("interaction_style", "tool_call_style", "execution_bias")
"""Sections a provider contribution may replace (SPEC 4.4)."""

REQUIRED_KEYS = ("id", "order", "side", "modes", "title")
OPTIONAL_KEYS = ("when", "slot")
_ID = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class SectionSpec:
    """One section template and its declarative metadata (SPEC 4.1)."""

    id: str
    """Unique snake_case id."""
    order: int
    """Unique sort key within the whole catalogue."""
    side: str
    """`stable` (above the boundary) or `volatile` (below)."""
    modes: frozenset[str]
    """Prompt modes that include the built-in text."""
    title: str
    """Label for reports."""
    when: str | None
    """Optional Jinja expression; the section is omitted when it is false."""
    slot: str | None
    """Provider slot that can replace this section."""
    path: str
    """The template file."""
    source: str
    """The template text with the frontmatter lines blanked, so Jinja line numbers match the file."""
    key_lines: tuple[tuple[str, int], ...]
    """(metadata key, line in the file), so errors can point at the key."""
    origin: str
    """`builtin` or the user template dir it came from."""

    def location(self, key: str | None = None) -> Location:
        """Where a metadata key (or the file) is."""
        return Location(self.path, dict(self.key_lines).get(key or "", 1), 1)


@dataclass(frozen=True)
class Selection:
    """A section's fate for one prompt mode and set of provider overrides."""

    spec: SectionSpec
    """The section."""
    active: bool
    """Whether it is rendered (its `when` gate may still omit it)."""
    reason: str
    """Why it is active or not, for `--list-sections`."""
    override: str | None = None
    """Provider text that replaces the template, when its slot is overridden."""


def builtin_dir() -> Path:
    """The built-in sections directory."""
    return resources.templates_root() / "sections"


SpecCache = MutableMapping[tuple, SectionSpec]
"""Parsed section files keyed on (path, origin, the file's bytes), kept by a Compiler."""
MAX_TEMPLATE_BYTES = 1024 * 1024
"""A section file larger than this is refused (sections are a few kilobytes)."""


def discover(
    template_dirs: Sequence[str | Path] = (), tracker: Tracker | None = None, cache: SpecCache | None = None
) -> tuple[SectionSpec, ...]:
    """All sections, sorted by order: user dirs (first wins) override built-ins by id.

    `tracker` records every directory listed and file read; `cache` reuses parsed files.
    """
    tracker, cache = tracker or Tracker(), {} if cache is None else cache
    by_id: dict[str, SectionSpec] = {}
    for directory, origin in [(Path(d), str(d)) for d in template_dirs] + [(builtin_dir(), "builtin")]:
        for spec in _read_dir(directory, origin, tracker, cache):
            by_id.setdefault(spec.id, spec)
    specs = sorted(by_id.values(), key=lambda spec: spec.order)
    _check_unique_orders(specs)
    return tuple(specs)


def _read_dir(directory: Path, origin: str, tracker: Tracker, cache: SpecCache) -> tuple[SectionSpec, ...]:
    try:
        info = os.stat(directory)
        names = section_files(directory)
    except (FileNotFoundError, NotADirectoryError) as exc:
        raise TemplateError("template directory not found", Location(str(directory))) from exc
    except OSError as exc:
        raise TemplateError(f"cannot list template directory: {exc.strerror or exc}", Location(str(directory))) from exc
    tracker.listing(str(directory), info, names, lambda: section_files(directory))
    specs = tuple(read_section(directory / name, origin, tracker, cache) for name in names)
    _check_unique_ids(specs)
    return specs


def section_files(directory: Path) -> tuple[str, ...]:
    """The sorted names of the section files in a directory."""
    with os.scandir(directory) as entries:
        return tuple(sorted(e.name for e in entries if e.name.endswith(SECTION_SUFFIX) and e.is_file()))


def read_section(
    path: Path, origin: str = "builtin", tracker: Tracker | None = None, cache: SpecCache | None = None
) -> SectionSpec:
    """Parse one section file: YAML frontmatter between `---` lines, then the Jinja body."""
    try:
        data, info = fsutil.read_regular(path, MAX_TEMPLATE_BYTES)
    except fsutil.Refused as exc:
        raise TemplateError(f"cannot read template: it {exc.detail}", Location(str(path))) from exc
    except OSError as exc:
        raise TemplateError(f"cannot read template: {exc.strerror or exc}", Location(str(path))) from exc
    (tracker or Tracker()).file(str(path), info, data)
    key = (str(path), origin, data)
    spec = None if cache is None else cache.get(key)
    if spec is None:
        spec = _parse_section(path, origin, data)
        if cache is not None:
            cache[key] = spec
    return spec


def _parse_section(path: Path, origin: str, data: bytes) -> SectionSpec:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TemplateError(f"cannot read template: {exc}", Location(str(path))) from exc
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")  # as text-mode reading did
    end = _frontmatter_end(lines, path)
    located = yamlsrc.parse("\n".join([""] + lines[1:end]), str(path), TemplateError)
    meta = _check_metadata(located, path)
    source = "\n" * (end + 1) + "\n".join(lines[end + 1 :])
    return SectionSpec(
        id=meta["id"],
        order=meta["order"],
        side=meta["side"],
        modes=frozenset(meta["modes"]),
        title=meta["title"],
        when=meta.get("when"),
        slot=meta.get("slot"),
        path=str(path),
        source=source,
        key_lines=tuple((str(key), located.where((key,)).line or 1) for key in meta),
        origin=origin,
    )


def _frontmatter_end(lines: list[str], path: Path) -> int:
    if not lines or lines[0].strip() != "---":
        raise TemplateError("a section file must start with a '---' metadata block", Location(str(path), 1, 1))
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            return index
    raise TemplateError("metadata block is not closed with '---'", Location(str(path), 1, 1))


def _check_metadata(located: yamlsrc.Located, path: Path) -> dict[str, Any]:
    meta = located.value
    if not isinstance(meta, dict):
        raise TemplateError("metadata must be a mapping", Location(str(path), 1, 1))
    for key in meta:
        if key not in REQUIRED_KEYS + OPTIONAL_KEYS:
            match = difflib.get_close_matches(str(key), REQUIRED_KEYS + OPTIONAL_KEYS, n=1)
            hint = f" (did you mean '{match[0]}'?)" if match else ""
            raise TemplateError(f"unknown metadata key '{key}'{hint}", located.where((key,)))
    for key in REQUIRED_KEYS:
        if key not in meta:
            raise TemplateError(f"missing metadata key '{key}'", Location(str(path), 1, 1))
    for key, problem in metadata_problems(meta):
        raise TemplateError(problem, located.where((key,)))
    return meta


def metadata_problems(meta: dict[str, Any]) -> Iterable[tuple[str, str]]:
    """(key, problem) for every bad value; every required key must be present (lint reuses this)."""
    if not isinstance(meta["id"], str) or not _ID.match(meta["id"]):
        yield "id", f"id must be snake_case, got {meta['id']!r}"
    if isinstance(meta["order"], bool) or not isinstance(meta["order"], int):
        yield "order", f"order must be a whole number, got {meta['order']!r}"
    if meta["side"] not in SIDES:
        yield "side", f"unknown side {meta['side']!r} (expected stable or volatile)"
    modes = meta["modes"]
    if not isinstance(modes, list) or not modes:
        yield "modes", "modes must be a non-empty list"
    else:
        for mode in modes:
            if mode not in PROMPT_MODES:
                yield "modes", f"unknown mode {mode!r} (expected {', '.join(PROMPT_MODES)})"
    if not isinstance(meta["title"], str) or not meta["title"].strip():
        yield "title", "title must be a non-empty string"
    if "when" in meta and (not isinstance(meta["when"], str) or not meta["when"].strip()):
        yield "when", "when must be a Jinja expression string"
    if meta.get("slot") is not None and meta["slot"] not in SLOTS:
        yield "slot", f"unknown slot {meta['slot']!r} (expected {', '.join(SLOTS)})"


def _check_unique_ids(specs: Sequence[SectionSpec]) -> None:
    seen: dict[str, SectionSpec] = {}
    for spec in specs:
        if spec.id in seen:
            raise TemplateError(f"duplicate section id {spec.id!r} (also in {seen[spec.id].path})", spec.location("id"))
        seen[spec.id] = spec


def _check_unique_orders(specs: Sequence[SectionSpec]) -> None:
    for before, after in zip(specs, specs[1:]):
        if before.order == after.order:
            message = f"duplicate section order {after.order} (also used by {before.id!r} in {before.path})"
            raise TemplateError(message, after.location("order"))


def select(specs: Sequence[SectionSpec], mode: str, overrides: dict[str, str]) -> tuple[Selection, ...]:
    """Decide per section whether this mode uses it; a provider override of a slot replaces it.

    An overridden slot is used in every mode but `none` (SPEC 4.2: an `execution_bias` override
    shows in minimal mode too). Gates (`when`) are evaluated later, by the renderer.
    """
    return tuple(_select_one(spec, mode, overrides) for spec in specs)


def _select_one(spec: SectionSpec, mode: str, overrides: dict[str, str]) -> Selection:
    override = overrides.get(spec.slot) if spec.slot else None
    if override is not None and mode != "none":
        return Selection(spec, True, f"provider override of slot {spec.slot}", override)
    if mode in spec.modes:
        return Selection(spec, True, f"mode {mode}")
    return Selection(spec, False, f"not in mode {mode} (modes: {', '.join(sorted(spec.modes))})")
