"""Discover the section templates of the template dirs (user dirs overriding built-ins by id) and
decide which ones a prompt uses."""

from __future__ import annotations

import dataclasses
import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .._lib import fsutil, resources
from .._lib.errors import Location, TemplateError
from .._lib.owned import walk_tree
from .._lib.reads import UNRECORDED, Recorder
from ..model.prompt import SectionOrigin
from . import partials as partials_mod
from .sectionfile import DELIMITERS, INHERITED, SectionSpec, SpecCache, read_section

SECTION_SUFFIX = ".md.j2"


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


SECTIONS_DIR = "sections"
"""A template dir's sections sit in it directly, or in this subfolder (as the built-ins do)."""
MISPLACED_DEPTH = 32
"""Folder levels below `partials/` searched for files that open like a section (far deeper than
any partials tree); the walk never follows a link, so a link to `/` is not entered."""
HEAD_BYTES = 64 * 1024
"""How much of a file is read to tell whether it starts like a section file (its first lines)."""
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
    builtins, problems = _read_files(builtin_dir(), _list_dir(builtin_dir(), tracker), "builtin", tracker, cache)
    builtin_ids = frozenset(spec.id for spec in builtins)
    user_specs: list[SectionSpec] = []
    section_counts = []
    for directory, origin in dirs:
        specs, found, count = _read_user_dir(directory, origin, tracker, cache, builtin_ids)
        user_specs += specs
        problems += found
        section_counts.append(count)
    partials = partials_mod.discover([*dirs, (resources.templates_root(), "builtin")], tracker)
    for (directory, _), sections, partial_files in zip(dirs, section_counts, partials.files_per_dir):
        if sections == 0 and partial_files == 0:
            problems.append(_contributes_nothing(directory))
    effective, found = _effective(user_specs, builtins)
    problems += found
    specs = sorted(effective, key=lambda spec: spec.order)
    problems += _duplicate_orders(specs)
    origins = tuple(SectionOrigin(spec.id, spec.label, spec.overrides, spec.order) for spec in specs)
    return Catalogue(tuple(specs), partials, origins, misplaced_notes(template_dirs)), problems


def _read_user_dir(
    directory: Path, origin: str, tracker: Recorder, cache: SpecCache, builtin_ids: frozenset[str]
) -> tuple[list[SectionSpec], list[TemplateError], int]:
    """The sections of one user dir, flat and in `sections/` (ids unique across the two), its
    problems, and how many section files it has."""
    names = _list_dir(directory, tracker)
    specs, problems = _read_files(directory, names, origin, tracker, cache, builtin_ids)
    nested = directory / SECTIONS_DIR
    count = len(names)
    if nested.is_dir():
        nested_names = _list_dir(nested, tracker)
        more, found = _read_files(nested, nested_names, origin, tracker, cache, builtin_ids)
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
    directory: Path,
    names: Sequence[str],
    origin: str,
    tracker: Recorder,
    cache: SpecCache,
    builtin_ids: frozenset[str] = frozenset(),
) -> tuple[list[SectionSpec], list[TemplateError]]:
    specs, problems = [], []
    for name in names:
        try:
            specs.append(read_section(directory / name, origin, tracker, cache, builtin_ids))
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
            for path in sorted(
                folder / name
                for folder, files in walk_tree(root, MISPLACED_DEPTH, follow_links=False)
                for name in files
            )
            if path.is_file()
        ]
    return [(path, why) for path, why in found if _starts_with_metadata(path)]


def _starts_with_metadata(path: Path) -> bool:
    """Whether the file opens with `---` and, within its first lines, a section's `id:` key."""
    try:
        data = fsutil.read_head(path, HEAD_BYTES)
    except (OSError, fsutil.Refused):
        return False
    head = data.decode("utf-8", errors="replace").splitlines(keepends=True)[:12] or [""]
    return DELIMITERS.opens(head[0]) and any(line.startswith("id:") for line in head[1:])


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


def _effective(
    user: Sequence[SectionSpec], builtins: Sequence[SectionSpec]
) -> tuple[list[SectionSpec], list[TemplateError]]:
    """User sections (the first dir wins by id), marked when they replace a built-in and given
    the built-in's order, side and modes where they leave them out, then the built-ins nobody
    replaced; and a problem for each user section missing such a key with no built-in to take it from."""
    builtin_by_id = {spec.id: spec for spec in builtins}
    by_id: dict[str, SectionSpec] = {}
    problems = []
    for spec in user:
        replaced = builtin_by_id.get(spec.id)
        missing = [key for key in INHERITED if key not in dict(spec.key_lines)]
        if missing and replaced is None:
            problems += [TemplateError(f"missing metadata key '{key}'", Location(spec.path, 1, 1)) for key in missing]
            continue
        if replaced is not None:
            spec = dataclasses.replace(
                spec, overrides=replaced.label, **{key: getattr(replaced, key) for key in missing}
            )
        by_id.setdefault(spec.id, spec)
    for spec in builtins:
        by_id.setdefault(spec.id, spec)
    return list(by_id.values()), problems


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

    An overridden slot is used in every mode but `none` (an `execution_bias` override shows in
    minimal mode too). Gates (`when`) are evaluated later, by the renderer.
    """
    return tuple(_select_one(spec, mode, overrides) for spec in specs)


def _select_one(spec: SectionSpec, mode: str, overrides: dict[str, str]) -> Selection:
    override = overrides.get(spec.slot) if spec.slot else None
    if override is not None and mode != "none":
        return Selection(spec, True, f"provider override of slot {spec.slot}", override)
    if mode in spec.modes:
        return Selection(spec, True, f"mode {mode}")
    return Selection(spec, False, f"not in mode {mode} (modes: {', '.join(sorted(spec.modes))})")
