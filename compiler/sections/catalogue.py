"""Discover section templates, validate their metadata and decide which ones a prompt uses."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import os
import re
from collections.abc import Iterable, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._lib import fsutil, resources
from .._lib.errors import Location, TemplateError, did_you_mean
from .._lib.reads import UNRECORDED, Recorder
from ..inputs import yamlsrc
from ..inputs.contributions import SLOTS
from ..model.config import SIDES
from ..model.prompt import SectionOrigin
from ..model.runfacts import PROMPT_MODES
from . import partials as partials_mod

SECTION_SUFFIX = ".md.j2"

REQUIRED_KEYS = ("id", "order", "side", "modes")
OPTIONAL_KEYS = ("title", "when", "slot")
_ID = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True, slots=True)
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
    """Label for reports (from the metadata, else the id in title case)."""
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
    overrides: str | None = None
    """The built-in section this one replaces (`builtin:<file>`), when it has a built-in's id."""

    def location(self, key: str | None = None) -> Location:
        """Where a metadata key (or the file) is."""
        return Location(self.path, dict(self.key_lines).get(key or "", 1), 1)

    @property
    def label(self) -> str:
        """How reports name the file: `builtin:<file>` for a built-in (no install path), else its path."""
        return f"builtin:{os.path.basename(self.path)}" if self.origin == "builtin" else self.path


@dataclass(frozen=True, slots=True)
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
    return resources.templates_root() / SECTIONS_DIR


SpecCache = MutableMapping[tuple, SectionSpec]
"""Parsed section files keyed on (path, origin, the file's bytes), kept by a Compiler."""
MAX_TEMPLATE_BYTES = 1024 * 1024
"""A section file larger than this is refused (sections are a few kilobytes)."""
SECTIONS_DIR = "sections"
"""A template dir's sections sit in it directly, or in this subfolder (as the built-ins do)."""
TEMPLATE_LIKE = (".j2", ".jinja", ".jinja2", ".md", ".tmpl", ".txt")
"""Suffixes of files that look like section templates but are not read as one."""


@dataclass(frozen=True, slots=True)
class Catalogue:
    """What the template dirs hold: the sections (sorted by order) and the partials."""

    sections: tuple[SectionSpec, ...]
    """Every section, user dirs overriding built-ins by id, sorted by order."""
    partials: partials_mod.Partials
    """Every partial, user dirs first."""
    origins: tuple[SectionOrigin, ...] = ()
    """Each section's source file and the built-in it replaces, in order (for reports)."""
    notes: tuple[str, ...] = ()
    """Warnings about the user dirs: files with section metadata that are not read as sections."""


def discover(
    template_dirs: Sequence[str | Path] = (), tracker: Recorder | None = None, cache: SpecCache | None = None
) -> tuple[SectionSpec, ...]:
    """All sections, sorted by order: user dirs (first wins) override built-ins by id."""
    return load(template_dirs, tracker, cache).sections


def load(
    template_dirs: Sequence[str | Path] = (), tracker: Recorder | None = None, cache: SpecCache | None = None
) -> Catalogue:
    """The catalogue, or one TemplateError holding every problem of every section file.

    `tracker` records every directory listed and file read; `cache` reuses parsed files.
    """
    catalogue, problems = scan(template_dirs, tracker, cache)
    if problems:
        raise TemplateError.gathered(problems)
    return catalogue


def scan(
    template_dirs: Sequence[str | Path] = (), tracker: Recorder | None = None, cache: SpecCache | None = None
) -> tuple[Catalogue, list[TemplateError]]:
    """The catalogue built from every section file that reads, and every problem found.

    A user dir holds sections flat (`DIR/*.md.j2`), in `DIR/sections/`, or both, and partials
    in `DIR/partials/`; a dir that contributes neither is a problem naming the files that look
    like templates. A missing dir is raised at once.
    """
    tracker, cache = tracker or UNRECORDED, {} if cache is None else cache
    dirs = [(Path(d), str(d)) for d in template_dirs]
    user_specs: list[SectionSpec] = []
    problems: list[TemplateError] = []
    section_counts = []
    for directory, origin in dirs:
        specs, found, count = _read_user_dir(directory, origin, tracker, cache)
        user_specs += specs
        problems += found
        section_counts.append(count)
    builtins, found = _read_files(builtin_dir(), _list_dir(builtin_dir(), tracker), "builtin", tracker, cache)
    problems += found
    partials = partials_mod.discover([*dirs, (resources.templates_root(), "builtin")], tracker)
    for (directory, _), sections, partial_files in zip(dirs, section_counts, partials.files_per_dir):
        if sections == 0 and partial_files == 0:
            problems.append(_contributes_nothing(directory))
    specs = sorted(_effective(user_specs, builtins), key=lambda spec: spec.order)
    problems += _duplicate_orders(specs)
    origins = tuple(SectionOrigin(spec.id, spec.label, spec.overrides) for spec in specs)
    return Catalogue(tuple(specs), partials, origins, misplaced_notes(template_dirs)), problems


def _read_user_dir(
    directory: Path, origin: str, tracker: Recorder, cache: SpecCache
) -> tuple[list[SectionSpec], list[TemplateError], int]:
    """The sections of one user dir, flat and in `sections/` (ids unique across the two), its
    problems, and how many section files it has."""
    names = _list_dir(directory, tracker)
    specs, problems = _read_files(directory, names, origin, tracker, cache)
    nested = directory / SECTIONS_DIR
    count = len(names)
    if nested.is_dir():
        nested_names = _list_dir(nested, tracker)
        more, found = _read_files(nested, nested_names, origin, tracker, cache)
        specs, problems, count = specs + more, problems + found, count + len(nested_names)
    else:
        tracker.missing(str(nested))  # creating sections/ later is a change
    return specs, problems + _duplicate_ids(specs), count


def _list_dir(directory: Path, tracker: Recorder) -> tuple[str, ...]:
    try:
        info = os.stat(directory)
        names = section_files(directory)
    except (FileNotFoundError, NotADirectoryError) as exc:
        raise TemplateError("template directory not found", Location(str(directory))) from exc
    except OSError as exc:
        raise TemplateError(f"cannot list template directory: {exc.strerror or exc}", Location(str(directory))) from exc
    tracker.listing(str(directory), info, names, lambda: section_files(directory))
    return names


def _read_files(
    directory: Path, names: Sequence[str], origin: str, tracker: Recorder, cache: SpecCache
) -> tuple[list[SectionSpec], list[TemplateError]]:
    specs, problems = [], []
    for name in names:
        try:
            specs.append(read_section(directory / name, origin, tracker, cache))
        except TemplateError as error:
            problems += [TemplateError(problem.message, problem.location) for problem in (error, *error.more)]
    return specs, problems


def section_files(directory: Path) -> tuple[str, ...]:
    """The sorted names of the section files in a directory."""
    with os.scandir(directory) as entries:
        return tuple(sorted(e.name for e in entries if e.name.endswith(SECTION_SUFFIX) and e.is_file()))


def near_misses(directory: Path) -> list[Path]:
    """Files in a template dir (or its `sections/`) that look like templates but are not read:
    other suffixes (`safety.j2`, `safety.MD.J2`), and section files one folder too deep
    (`DIR/mysections/x.md.j2`, `DIR/sections/sub/x.md.j2`)."""
    found = []
    for folder in (directory, directory / SECTIONS_DIR):
        if folder.is_dir():
            for path in sorted(folder.iterdir()):
                name = path.name.lower()
                if (
                    path.is_file()
                    and not path.name.endswith(SECTION_SUFFIX)
                    and (name.endswith(TEMPLATE_LIKE) or ".j2" in name or ".jinja" in name)
                ):
                    found.append(path)
                elif (
                    path.is_dir()
                    and path.name not in (SECTIONS_DIR, partials_mod.PARTIALS_DIR)
                    and not path.name.startswith(".")
                ):
                    found += sorted(
                        p for p in path.iterdir() if p.name.lower().endswith(SECTION_SUFFIX) and p.is_file()
                    )
    return found


def misplaced_sections(directory: Path) -> list[tuple[Path, str]]:
    """Files a user dir holds that open with a section's metadata block but are never read as
    sections, each with what is wrong: a near miss (see near_misses), or a file in `partials/`
    (a partial has no metadata: included, the block would be printed as text)."""
    found = [
        (
            path,
            f"is not read as one: section files are named NAME{SECTION_SUFFIX}, in the template dir or its sections/ folder",
        )
        for path in near_misses(directory)
    ]
    root = directory / partials_mod.PARTIALS_DIR
    if root.is_dir():
        found += [
            (
                path,
                "is in partials/, which holds partials, not sections: move it to the template dir or its sections/ folder",
            )
            for path in sorted(root.rglob("*"))
            if path.is_file()
        ]
    return [(path, why) for path, why in found if _starts_with_metadata(path)]


def _starts_with_metadata(path: Path) -> bool:
    """Whether the file opens with `---` and, within its first lines, a section's `id:` key."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            head = [handle.readline() for _ in range(12)]
    except OSError:
        return False
    return head[0].strip() == "---" and any(line.startswith("id:") for line in head[1:])


def misplaced_notes(template_dirs: Sequence[str | Path]) -> tuple[str, ...]:
    """A warning for each misplaced section file in the user dirs (render prints them; lint
    reports each as a finding at the file)."""
    return tuple(
        f"{path}: has section metadata but {why}"
        for directory in template_dirs
        for path, why in misplaced_sections(Path(directory))
    )


def _contributes_nothing(directory: Path) -> TemplateError:
    misses = near_misses(directory)
    if misses:
        shown = ", ".join(str(path.relative_to(directory)) for path in misses[:8]) + (
            f" and {len(misses) - 8} more" if len(misses) > 8 else ""
        )
        detail = f"{shown} {'looks' if len(misses) == 1 else 'look'} like a template but {'is' if len(misses) == 1 else 'are'} not read"
    else:
        detail = "it holds no section file"
    where = "section files are NAME.md.j2, in the dir or in its sections/ folder; partials go in partials/"
    return TemplateError(
        f"template directory contributes no section and no partial: {detail} ({where})", Location(str(directory))
    )


def _effective(user: Sequence[SectionSpec], builtins: Sequence[SectionSpec]) -> list[SectionSpec]:
    """User sections (the first dir wins by id), marked when they replace a built-in, then the
    built-ins nobody replaced."""
    builtin_by_id = {spec.id: spec for spec in builtins}
    by_id: dict[str, SectionSpec] = {}
    for spec in user:
        replaced = builtin_by_id.get(spec.id)
        by_id.setdefault(spec.id, dataclasses.replace(spec, overrides=replaced.label) if replaced else spec)
    for spec in builtins:
        by_id.setdefault(spec.id, spec)
    return list(by_id.values())


def read_section(
    path: Path, origin: str = "builtin", tracker: Recorder | None = None, cache: SpecCache | None = None
) -> SectionSpec:
    """Parse one section file: YAML frontmatter between `---` lines, then the Jinja body.
    Every metadata problem of the file is in the one TemplateError raised."""
    try:
        data, info = fsutil.read_regular(path, MAX_TEMPLATE_BYTES)
    except fsutil.Refused as exc:
        raise TemplateError(f"cannot read template: it {exc.detail}", Location(str(path))) from exc
    except OSError as exc:
        raise TemplateError(f"cannot read template: {exc.strerror or exc}", Location(str(path))) from exc
    (tracker or UNRECORDED).file(str(path), info, data)
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
        title=meta.get("title") or default_title(meta["id"]),
        when=meta.get("when"),
        slot=meta.get("slot"),
        path=str(path),
        source=source,
        key_lines=tuple((str(key), located.where((key,)).line or 1) for key in meta),
        origin=origin,
    )


def spec_key(key: tuple) -> str:
    """A parsed-spec cache key (path, origin, the file's bytes) as one digest, for the disk store."""
    path, origin, data = key
    return hashlib.sha256(f"{path}\0{origin}\0".encode("utf-8", "surrogatepass") + data).hexdigest()


def spec_data(spec: SectionSpec) -> dict[str, Any]:
    """A freshly parsed SectionSpec as JSON data (see spec_from_data)."""
    data = {field.name: getattr(spec, field.name) for field in dataclasses.fields(spec)}
    data["modes"] = sorted(spec.modes)
    data["key_lines"] = [list(pair) for pair in spec.key_lines]
    return data


_SPEC_TYPES: dict[str, tuple[type, ...]] = {
    "id": (str,),
    "order": (int,),
    "side": (str,),
    "modes": (list,),
    "title": (str,),
    "when": (str, type(None)),
    "slot": (str, type(None)),
    "path": (str,),
    "source": (str,),
    "key_lines": (list,),
    "origin": (str,),
    "overrides": (type(None),),
}


def spec_from_data(data: Any) -> SectionSpec | None:
    """The SectionSpec spec_data gave, or None for anything not exactly that shape."""
    if not isinstance(data, dict) or data.keys() != _SPEC_TYPES.keys():
        return None
    if any(type(data[name]) not in kinds for name, kinds in _SPEC_TYPES.items()):
        return None
    modes, lines = data["modes"], data["key_lines"]
    if not all(type(mode) is str for mode in modes):
        return None
    if not all(
        type(pair) is list and len(pair) == 2 and type(pair[0]) is str and type(pair[1]) is int for pair in lines
    ):
        return None
    return SectionSpec(**{**data, "modes": frozenset(modes), "key_lines": tuple(map(tuple, lines))})


def default_title(section_id: str) -> str:
    """A section's label when its metadata gives none: `house_rules` -> `House Rules`."""
    return section_id.replace("_", " ").title()


def _frontmatter_end(lines: list[str], path: Path) -> int:
    if not lines or lines[0].strip() != "---":
        raise TemplateError("a section file must start with a '---' metadata block", Location(str(path), 1, 1))
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            return index
    raise TemplateError("metadata block is not closed with '---'", Location(str(path), 1, 1))


PLACEHOLDERS = {"id": "placeholder", "order": 0, "side": "stable", "modes": ["full"]}
"""Valid stand-ins for missing required keys, so the keys that are present still get checked."""


def _check_metadata(located: yamlsrc.Located, path: Path) -> dict[str, Any]:
    """The metadata mapping; every problem in it is raised together, in line order."""
    meta = located.value
    if not isinstance(meta, dict):
        raise TemplateError("metadata must be a mapping", Location(str(path), 1, 1))
    problems = []
    for key in meta:
        if key not in REQUIRED_KEYS + OPTIONAL_KEYS:
            hint = did_you_mean(str(key), REQUIRED_KEYS + OPTIONAL_KEYS)
            problems.append(TemplateError(f"unknown metadata key '{key}'{hint}", located.where((key,))))
    problems += [
        TemplateError(f"missing metadata key '{key}'", Location(str(path), 1, 1))
        for key in REQUIRED_KEYS
        if key not in meta
    ]
    values = metadata_problems({**PLACEHOLDERS, **meta})
    problems += [TemplateError(problem, located.where((key,))) for key, problem in values if key in meta]
    if problems:
        problems.sort(key=lambda error: (error.location.line or 0) if error.location else 0)
        raise TemplateError.gathered(problems)
    return meta


def metadata_problems(meta: dict[str, Any]) -> Iterable[tuple[str, str]]:
    """(key, problem) for every bad value; every required key must be present."""
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
    if "title" in meta and (not isinstance(meta["title"], str) or not meta["title"].strip()):
        yield "title", "title must be a non-empty string (or left out: the id in title case)"
    if "when" in meta and (not isinstance(meta["when"], str) or not meta["when"].strip()):
        yield "when", "when must be a Jinja expression string"
    if meta.get("slot") is not None and meta["slot"] not in SLOTS:
        yield "slot", f"unknown slot {meta['slot']!r} (expected {', '.join(SLOTS)})"


def _duplicate_ids(specs: Sequence[SectionSpec]) -> list[TemplateError]:
    seen: dict[str, SectionSpec] = {}
    problems = []
    for spec in specs:
        if spec.id in seen:
            message = f"duplicate section id {spec.id!r} (also in {seen[spec.id].path})"
            problems.append(TemplateError(message, spec.location("id")))
        seen.setdefault(spec.id, spec)
    return problems


def _duplicate_orders(specs: Sequence[SectionSpec]) -> list[TemplateError]:
    """Built-ins sort first among equal orders, so a clash is blamed on the user's file."""
    ordered = sorted(specs, key=lambda spec: (spec.order, spec.origin != "builtin", spec.path))
    problems = []
    for before, after in itertools.pairwise(ordered):
        if before.order == after.order:
            message = f"duplicate section order {after.order} (also used by {before.id!r} in {before.label})"
            problems.append(TemplateError(message, after.location("order")))
    return problems


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
