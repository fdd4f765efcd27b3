"""Read one section file: its frontmatter metadata, checked, and its Jinja source with the
metadata lines left blank, so Jinja's line numbers are the file's."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
from collections.abc import Iterable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._lib import frontmatter, fsutil
from .._lib.errors import Location, TemplateError, did_you_mean
from .._lib.reads import UNRECORDED, Recorder
from ..inputs import yamlsrc
from ..inputs.contributions import SLOTS
from ..model.config import SIDES
from ..model.runfacts import PROMPT_MODES

REQUIRED_KEYS = ("id", "order", "side", "modes")
OPTIONAL_KEYS = ("title", "when", "slot")
ID_PATTERN = r"^[a-z][a-z0-9_]*$"
"""A section id: snake_case."""
_ID = re.compile(ID_PATTERN)
DELIMITERS = frontmatter.Delimiters(("---",), str.strip)
"""A section file's metadata block: only `---` closes it, and whitespace may surround either line."""


@dataclass(frozen=True, slots=True)
class SectionSpec:
    """One section template and its declarative metadata."""

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


SpecCache = MutableMapping[tuple, SectionSpec]
"""Parsed section files keyed on (path, origin, the file's bytes), kept by a Compiler."""
MAX_TEMPLATE_BYTES = 1024 * 1024
"""A section file larger than this is refused (sections are a few kilobytes)."""


def read_section(
    path: Path,
    origin: str = "builtin",
    tracker: Recorder | None = None,
    cache: SpecCache | None = None,
    builtin_ids: frozenset[str] = frozenset(),
) -> SectionSpec:
    """Parse one section file: YAML frontmatter between `---` lines, then the Jinja body.
    Every metadata problem of the file is in the one TemplateError raised. A user section whose
    id is in `builtin_ids` may leave out the INHERITED keys: the spec then holds placeholders
    there, its `key_lines` lack them, and the catalogue fills them from the built-in."""
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
        spec = _parse_section(path, origin, data, builtin_ids if origin != "builtin" else frozenset())
        if cache is not None:
            cache[key] = spec
    return spec


def _parse_section(path: Path, origin: str, data: bytes, builtin_ids: frozenset[str]) -> SectionSpec:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TemplateError(f"cannot read template: {exc}", Location(str(path))) from exc
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")  # as text-mode reading gives
    end = _metadata_end(lines, path)
    located = yamlsrc.parse("\n".join([""] + lines[1:end]), str(path), TemplateError)
    given = _check_metadata(located, path, builtin_ids)
    meta = {**{key: PLACEHOLDERS[key] for key in INHERITED}, **given}
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
        key_lines=tuple((str(key), located.where((key,)).line or 1) for key in given),
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


def _metadata_end(lines: list[str], path: Path) -> int:
    """The index of the line closing the file's metadata block."""
    if not DELIMITERS.opens(lines[0]):
        raise TemplateError("a section file must start with a '---' metadata block", Location(str(path), 1, 1))
    closing = DELIMITERS.closing_line(lines)
    if closing is None:
        raise TemplateError("metadata block is not closed with '---'", Location(str(path), 1, 1))
    return closing


PLACEHOLDERS = {"id": "placeholder", "order": 0, "side": "stable", "modes": ["full"]}
"""Valid stand-ins for missing required keys, so the keys that are present still get checked."""
INHERITED = ("order", "side", "modes")
"""Required keys a section replacing a built-in may leave out: they default to the built-in's."""


def _check_metadata(located: yamlsrc.Located, path: Path, builtin_ids: frozenset[str] = frozenset()) -> dict[str, Any]:
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
        if key not in meta and not (key in INHERITED and meta.get("id") in builtin_ids)
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
