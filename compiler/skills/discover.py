"""Discover skills: walk the skill roots for SKILL.md files, below their base directories, and
read each one (skillfile.py); which are eligible and how they are listed: listing.py.

The walk looks where OpenClaw looks: a directory holding a SKILL.md is one skill and is not
searched further (a skill's own subfolders hold no skills), and a root is searched at most its
depth limit below itself, except that a `skills` folder directly below a root is searched as a
root of its own."""

from __future__ import annotations

import dataclasses
import errno
import os
from collections.abc import Iterator, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .._lib import fsutil
from .._lib.errors import Location, WorkspaceError
from .._lib.reads import UNRECORDED, Recorder
from ..model.workspace import Skill
from . import skillfile

SKILL_FILE = "SKILL.md"
MAX_DEPTH = 6
"""Deepest directory level (below a root) searched for SKILL.md."""
MAX_EXTRA_DEPTH = 2
"""The same for an extra skills root (`skills.load.extraDirs`) not itself named `skills`."""
NESTED_ROOT = "skills"
"""A folder of this name directly below a root is searched as a root of its own (full depth)."""
MAX_SKILL_BYTES = 256_000
"""A SKILL.md larger than this many bytes is skipped (`skipped: too large`); real ones are a few KiB."""
SKIPPED_DIRS = frozenset({"node_modules"})


# --------------------------------------------------------------------------- discovery

MAX_SKILLS = 2_000
"""SKILL.md files read per compile, across all roots; the rest are left out with a diagnostic."""
MAX_DIRECTORIES = 10_000
"""Directories walked per compile, across all roots; deeper or later ones are left out."""


class _Walk:
    """One discovery pass: what it may still spend, what it saw, what it said (a mutable record,
    so a plain class)."""

    def __init__(
        self,
        tracker: Recorder,
        parsed: MutableMapping[str, skillfile.Parsed],
        allowed: tuple[str, ...],
        skipped: list[tuple[str, str]],
    ) -> None:
        self.tracker, self.parsed, self.allowed = tracker, parsed, allowed
        self.diagnostics: list[str] = []
        self.skipped = skipped
        """(SKILL.md path, why in a few words) for each file found but not made a skill."""
        self.limits = {"directories": MAX_DIRECTORIES, "SKILL.md files": MAX_SKILLS}
        self.used: dict[str, int] = {}
        self.loops: set[str] = set()
        """The links a loop diagnostic has named (or passed through): each loop is said once."""

    def exhausted(self) -> bool:
        """Whether a limit was passed: nothing more is walked or read."""
        return any(self.used.get(what, 0) > limit for what, limit in self.limits.items())

    def spend(self, what: str) -> bool:
        """Count one more directory or SKILL.md file; False past its limit (said once)."""
        used = self.used[what] = self.used.get(what, 0) + 1
        if used == self.limits[what] + 1:
            self.diagnostics.append(
                f"skills: stopped after {self.limits[what]} {what} (the per-compile limit); the rest are not listed"
            )
        return used <= self.limits[what]


@dataclass(frozen=True, slots=True)
class _Base:
    """A directory the walk may not leave (the workspace, or an extra skills root)."""

    fd: int
    path: Path
    spellings: tuple[str, ...]
    text: str
    """`str(path)`."""
    max_depth: int = MAX_DEPTH
    """Deepest directory level below the walk's root searched for SKILL.md."""

    def at(self, relative: str) -> str:
        """`str(self.path / relative)` without building a Path (a walk names a thousand of them)."""
        relative = relative.removeprefix("./")
        return self.text if relative == "." else self.text.rstrip("/") + "/" + relative


def discover(
    roots: Sequence[Path],
    tracker: Recorder | None = None,
    *,
    bases: Sequence[Path | None] | None = None,
    identities: Sequence[fsutil.Identity | None] | None = None,
    allowed: Sequence[str] = (),
    parsed: MutableMapping[str, skillfile.Parsed] | None = None,
    skipped: list[tuple[str, str]] | None = None,
    depths: Sequence[int] | None = None,
) -> tuple[tuple[Skill, ...], tuple[str, ...]]:
    """Skills under each root's `**/SKILL.md`, sorted by name, plus diagnostics.

    A later root overrides an earlier one by name; within one root the first path in sorted
    order wins. A skill without a description is skipped with a diagnostic. Every file and
    directory is opened below its base (`bases[i]`, default the root itself; when
    `identities[i]` is given, the base must still be that directory), so a link that leads
    out of it is skipped unless it leads into one of the resolved `allowed` directories.
    `parsed` caches frontmatter by content digest across calls; `skipped` collects (path, why)
    for every SKILL.md found but left out. `depths[i]` is root i's depth limit (default MAX_DEPTH).
    """
    walk = _Walk(
        tracker or UNRECORDED, parsed if parsed is not None else {}, tuple(allowed), [] if skipped is None else skipped
    )
    by_name: dict[str, Skill] = {}
    per_root = zip(
        roots, bases or [None] * len(roots), identities or [None] * len(roots), depths or [MAX_DEPTH] * len(roots)
    )
    for root, base, identity, depth in per_root:
        by_name.update(_discover_root(Path(root), Path(base or root), identity, walk, depth))
    return tuple(by_name[name] for name in sorted(by_name)), tuple(walk.diagnostics)


def _discover_root(
    root: Path, base_path: Path, identity: fsutil.Identity | None, walk: _Walk, max_depth: int
) -> dict[str, Skill]:
    found: dict[str, Skill] = {}
    for skill in _root_skills(root, base_path, identity, walk, max_depth):
        if skill.name in found:
            walk.diagnostics.append(
                f"{skill.location}: duplicate skill name {skill.name!r}; {found[skill.name].location} kept"
            )
            walk.skipped.append((skill.location, "duplicate name"))
        else:
            found[skill.name] = skill
    return found


def _root_skills(
    root: Path, base_path: Path, identity: fsutil.Identity | None, walk: _Walk, max_depth: int
) -> Iterator[Skill]:
    root, base_path = Path(os.path.abspath(root)), Path(os.path.abspath(base_path))
    try:
        fd = fsutil.open_directory(base_path, identity)
    except fsutil.Refused as refused:
        raise WorkspaceError(f"workspace directory {refused.detail}", Location(str(base_path))) from refused
    except OSError:
        walk.tracker.missing(str(base_path))
        return
    try:
        base = _Base(fd, base_path, fsutil.path_spellings(base_path, fd), str(base_path), max_depth)
        yield from _walk(base, root.relative_to(base_path).as_posix(), 0, walk, set())
    finally:
        os.close(fd)


@dataclass(frozen=True, slots=True)
class _Step:
    """A directory on the walk's current path."""

    identity: tuple[int, int]
    relative: str
    via_link: bool
    """Whether the walk got here through a symlink (the last component was one)."""


def _walk(
    base: _Base,
    relative: str,
    depth: int,
    walk: _Walk,
    visited: set[tuple[int, int]],
    parent: int | None = None,
    trail: tuple[_Step, ...] = (),
) -> Iterator[Skill]:
    """Depth-first, sorted; hidden dirs and node_modules skipped; link loops cut by identity; a
    directory with a SKILL.md is not searched further. A child that is no link is opened from its
    parent's descriptor; a link, from the base. The root is the call without a `parent`."""
    path = base.at(relative)
    opened = None if walk.exhausted() else _open_dir(base, relative, walk, depth, parent)
    if opened is None:
        return
    fd, via_link = opened
    try:
        info = os.fstat(fd)
        step = _Step((info.st_dev, info.st_ino), relative, via_link)
        if step.identity in visited:
            _note_loop_back(base, trail, step, walk)
            return
        if not walk.spend("directories"):
            return
        visited.add(step.identity)
        has_skill, children = _listing(os.scandir(fd), depth, base.max_depth)
        walk.tracker.listing(
            path, info, (has_skill, children), lambda: _listing(os.scandir(path), depth, base.max_depth)
        )
        if has_skill:
            skill = _read_skill(base, f"{relative}/{SKILL_FILE}", walk, fd)
            if skill is not None:
                yield skill
            return
        for child in children:
            below, level = (base, depth + 1) if parent is not None or child != NESTED_ROOT else (_full_depth(base), 0)
            yield from _walk(below, f"{relative}/{child}", level, walk, visited, fd, (*trail, step))
    except OSError as error:
        walk.diagnostics.append(f"{path}: cannot be listed ({error.strerror or error}); skipped")
    finally:
        os.close(fd)


def _open_dir(base: _Base, relative: str, walk: _Walk, depth: int, parent: int | None) -> tuple[int, bool] | None:
    """The directory below `base` and whether a link led there, or None (absent at the top;
    else skipped with a diagnostic)."""
    path = base.at(relative)
    try:
        fd = None if parent is None else fsutil.open_child(parent, os.path.basename(relative), directory=True)
        if fd is not None:
            return fd, False
        return fsutil.open_beneath(
            base.fd, relative, base.spellings, directory=True, allowed=walk.allowed
        ), parent is not None
    except FileNotFoundError:
        walk.tracker.missing(path)
    except fsutil.Refused as refused:
        walk.tracker.refused(path)
        walk.diagnostics.append(f"{path}: {refused.detail} (skills.load.allowSymlinkTargets can allow it); skipped")
    except OSError as error:
        walk.tracker.refused(path)
        if error.errno == errno.ELOOP:
            _note_link_cycle(base, path, walk)
        elif depth > 0 or error.errno != errno.ENOTDIR:
            walk.diagnostics.append(f"{path}: cannot be opened ({error.strerror or error}); skipped")
    return None


def _note_loop_back(base: _Base, trail: tuple[_Step, ...], step: _Step, walk: _Walk) -> None:
    """A directory met again: a loop when it is one the walk is inside of (said once, naming the
    first link below it on the way here); merely a second way in when not (nothing to say)."""
    above = [s.identity for s in trail]
    if step.identity not in above:
        return
    ancestor = trail[above.index(step.identity)]
    link = next((s for s in (*trail[above.index(step.identity) + 1 :], step) if s.via_link), step)
    shown = str(base.path / link.relative)
    if shown not in walk.loops:
        walk.loops.add(shown)
        walk.diagnostics.append(f"{shown}: a link loop (it leads back to {base.path / ancestor.relative}); skipped")


def _note_link_cycle(base: _Base, path: str, walk: _Walk) -> None:
    """Links that lead to each other (ELOOP): one diagnostic for the whole cycle, at its first link met."""
    chain = _link_chain(path)
    if walk.loops.intersection(chain):
        return
    walk.loops.update(chain)
    names = [shown_path(Path(link), base.path) for link in chain]
    walk.diagnostics.append(f"{path}: a link loop ({' -> '.join([*names, names[0]])}); skipped")


def _link_chain(path: str) -> list[str]:
    """The links from `path` on, by path, until one repeats (read only to name them)."""
    chain: list[str] = []
    current = path
    while current not in chain and len(chain) <= fsutil.MAX_SYMLINKS:
        try:
            target = os.readlink(current)
        except OSError:
            break
        chain.append(current)
        current = os.path.normpath(os.path.join(os.path.dirname(current), target))
    return chain or [path]


def _full_depth(base: _Base) -> _Base:
    """The base, searched to MAX_DEPTH (a `skills` folder directly below a root)."""
    return base if base.max_depth == MAX_DEPTH else dataclasses.replace(base, max_depth=MAX_DEPTH)


def _listing(entries: Iterator[os.DirEntry], depth: int, max_depth: int) -> tuple[bool, tuple[str, ...]]:
    """(whether SKILL.md is here, the child directories to search, sorted)."""
    has_skill, children = False, []
    with entries:  # type: ignore[attr-defined]
        for entry in entries:
            if entry.name == SKILL_FILE:
                has_skill = has_skill or _is_file(entry)
            elif depth < max_depth and _searchable(entry):
                children.append(entry.name)
    return has_skill, tuple(sorted(children))


def _is_file(entry: os.DirEntry) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return _is_link(entry)  # a link that cannot be followed (a loop): reading it says why


def _searchable(entry: os.DirEntry) -> bool:
    if entry.name.startswith(".") or entry.name in SKIPPED_DIRS:
        return False
    try:
        return entry.is_dir()
    except OSError:
        return _is_link(entry)  # a link loop: opening it says so


def _is_link(entry: os.DirEntry) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False


def _read_skill(base: _Base, relative: str, walk: _Walk, directory: int) -> Skill | None:
    """One SKILL.md as a Skill, or None with a diagnostic saying why it is skipped."""
    path = base.at(relative)
    if not walk.spend("SKILL.md files"):
        return None
    try:
        raw = _read_bytes(base, relative, walk, directory)
    except fsutil.Refused as refused:
        walk.diagnostics.append(_refusal(path, refused))
        walk.skipped.append((path, refused.reason))
        return None
    except OSError as error:
        walk.tracker.refused(path)
        if error.errno == errno.ELOOP:
            _note_link_cycle(base, path, walk)
        else:
            walk.diagnostics.append(f"{path}: cannot be read ({error.strerror or error}); skipped")
        walk.skipped.append((path, "link loop" if error.errno == errno.ELOOP else "cannot be read"))
        return None
    found = skillfile.read(path, raw, walk.parsed)
    if isinstance(found, Skill):
        return found
    if isinstance(found[0], Skill):  # read line by line: listed, with a warning
        walk.diagnostics.append(found[1])
        return found[0]
    walk.diagnostics.append(found[0])
    walk.skipped.append((path, found[1]))
    return None


def _read_bytes(base: _Base, relative: str, walk: _Walk, directory: int) -> bytes:
    path = base.at(relative)
    fd = fsutil.open_child(directory, SKILL_FILE)
    if fd is None:
        fd = fsutil.open_beneath(base.fd, relative, base.spellings, allowed=walk.allowed)
    try:
        try:
            data, info = fsutil.read_open(fd, MAX_SKILL_BYTES)
        except fsutil.Refused:
            walk.tracker.file(path, os.fstat(fd), b"")
            raise
    finally:
        os.close(fd)
    walk.tracker.file(path, info, data)
    return data


def _refusal(path: str, refused: fsutil.Refused) -> str:
    if refused.reason == "too large":
        return f"{path}: larger than {MAX_SKILL_BYTES} bytes; skipped"
    if refused.reason == "outside workspace":
        return f"{path}: {refused.detail} (skills.load.allowSymlinkTargets can allow it); skipped"
    return f"{path}: {refused.detail}; skipped"


def shown_path(location: Path, root: Path) -> str:
    """`location` relative to `root` when inside it (POSIX slashes), else as it is."""
    return location.relative_to(root).as_posix() if location.is_relative_to(root) else str(location)
