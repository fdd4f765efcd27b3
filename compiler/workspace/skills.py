"""Discover skills, decide which are eligible, and list them within the skills budget (SPEC 6)."""

from __future__ import annotations

import errno
import functools
import hashlib
import os
import re
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

from .. import fsutil
from ..errors import Location, WorkspaceError, one_line
from ..freshness import Tracker
from ..model import ResolvedConfig, Skill, SkillEntry, SkillsBlock
from ..records import frozen
from ..sections.text import replace_surrogates
from . import frontmatter

SKILL_FILE = "SKILL.md"
MAX_DEPTH = 6
"""Deepest directory level (below a root) searched for SKILL.md."""
MAX_SKILL_BYTES = 256_000
SKIPPED_DIRS = frozenset({"node_modules"})
METADATA_NAMESPACES = ("openclaw", "clawdbot")
"""Sub-mappings of `metadata` that may carry `os` / `requires` (both spellings occur in the wild)."""
PLATFORM_ALIASES = {"macos": "darwin", "mac": "darwin", "osx": "darwin", "windows": "win32"}
ELLIPSIS = "..."
MIN_DESCRIPTION_CHARS = len(ELLIPSIS) + 1


# --------------------------------------------------------------------------- discovery

MAX_SKILLS = 2_000
"""SKILL.md files read per compile, across all roots; the rest are left out with a diagnostic."""
MAX_DIRECTORIES = 10_000
"""Directories walked per compile, across all roots; deeper or later ones are left out."""
MAX_REQUIREMENTS = 64
"""`requires` names one skill may list (bins, anyBins, env and config together); a skill with
more is ineligible, so a workspace cannot make every compile check thousands of binaries."""


@dataclass
class _Walk:
    """One discovery pass: what it may still spend, what it saw, what it said."""

    tracker: Tracker
    parsed: MutableMapping[str, tuple[Mapping[str, Any] | None, str | None]]
    allowed: tuple[str, ...]
    diagnostics: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(SKILL.md path, why in a few words) for each file found but not made a skill."""
    limits: dict[str, int] = field(default_factory=lambda: {"directories": MAX_DIRECTORIES, "SKILL.md files": MAX_SKILLS})
    used: dict[str, int] = field(default_factory=dict)
    loops: set[str] = field(default_factory=set)
    """The links a loop diagnostic has named (or passed through): each loop is said once."""

    def exhausted(self) -> bool:
        """Whether a limit was passed: nothing more is walked or read."""
        return any(self.used.get(what, 0) > limit for what, limit in self.limits.items())

    def spend(self, what: str) -> bool:
        """Count one more directory or SKILL.md file; False past its limit (said once)."""
        used = self.used[what] = self.used.get(what, 0) + 1
        if used == self.limits[what] + 1:
            self.diagnostics.append(f"skills: stopped after {self.limits[what]} {what} (the per-compile limit); the rest are not listed")
        return used <= self.limits[what]


@frozen
class _Base:
    """A directory the walk may not leave (the workspace, or an extra skills root)."""

    fd: int
    path: Path
    spellings: tuple[str, ...]
    text: str
    """`str(path)`."""

    def at(self, relative: str) -> str:
        """`str(self.path / relative)` without building a Path (a walk names a thousand of them)."""
        relative = relative.removeprefix("./")
        return self.text if relative == "." else self.text.rstrip("/") + "/" + relative


def discover(
    roots: Sequence[Path],
    tracker: Tracker | None = None,
    *,
    bases: Sequence[Path | None] | None = None,
    identities: Sequence[fsutil.Identity | None] | None = None,
    allowed: Sequence[str] = (),
    parsed: MutableMapping[str, tuple[Mapping[str, Any] | None, str | None]] | None = None,
    skipped: list[tuple[str, str]] | None = None,
) -> tuple[tuple[Skill, ...], tuple[str, ...]]:
    """Skills under each root's `**/SKILL.md`, sorted by name, plus diagnostics.

    A later root overrides an earlier one by name; within one root the first path in sorted
    order wins. A skill without a description is skipped with a diagnostic. Every file and
    directory is opened below its base (`bases[i]`, default the root itself; when
    `identities[i]` is given, the base must still be that directory), so a link that leads
    out of it is skipped unless it leads into one of the resolved `allowed` directories.
    `parsed` caches frontmatter by content digest across calls; `skipped` collects (path, why)
    for every SKILL.md found but left out.
    """
    walk = _Walk(tracker or Tracker(), parsed if parsed is not None else {}, tuple(allowed), skipped=[] if skipped is None else skipped)
    by_name: dict[str, Skill] = {}
    for root, base, identity in zip(roots, bases or [None] * len(roots), identities or [None] * len(roots)):
        by_name.update(_discover_root(Path(root), Path(base or root), identity, walk))
    return tuple(by_name[name] for name in sorted(by_name)), tuple(walk.diagnostics)


def _discover_root(root: Path, base_path: Path, identity: fsutil.Identity | None, walk: _Walk) -> dict[str, Skill]:
    found: dict[str, Skill] = {}
    for skill in _root_skills(root, base_path, identity, walk):
        if skill.name in found:
            walk.diagnostics.append(f"{skill.location}: duplicate skill name {skill.name!r}; {found[skill.name].location} kept")
            walk.skipped.append((skill.location, "duplicate name"))
        else:
            found[skill.name] = skill
    return found


def _root_skills(root: Path, base_path: Path, identity: fsutil.Identity | None, walk: _Walk) -> Iterator[Skill]:
    root, base_path = Path(os.path.abspath(root)), Path(os.path.abspath(base_path))
    try:
        fd = fsutil.open_directory(base_path, identity)
    except fsutil.Refused as refused:
        raise WorkspaceError(f"workspace directory {refused.detail}", Location(str(base_path))) from refused
    except OSError:
        walk.tracker.missing(str(base_path))
        return
    try:
        base = _Base(fd, base_path, fsutil.path_spellings(base_path, fd), str(base_path))
        yield from _walk(base, root.relative_to(base_path).as_posix(), 0, walk, set())
    finally:
        os.close(fd)


@frozen
class _Step:
    """A directory on the walk's current path."""

    identity: tuple[int, int]
    relative: str
    via_link: bool
    """Whether the walk got here through a symlink (the last component was one)."""


def _walk(base: _Base, relative: str, depth: int, walk: _Walk, visited: set[tuple[int, int]],
          parent: int | None = None, trail: tuple[_Step, ...] = ()) -> Iterator[Skill]:  # fmt: skip
    """Depth-first, sorted; hidden dirs and node_modules skipped; link loops cut by identity.
    A child that is no link is opened from its parent's descriptor; a link, from the base."""
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
        has_skill, children = _listing(os.scandir(fd), depth)
        walk.tracker.listing(path, info, (has_skill, children), lambda: _listing(os.scandir(path), depth))
        if has_skill:
            skill = _read_skill(base, f"{relative}/{SKILL_FILE}", walk, fd)
            if skill is not None:
                yield skill
        for child in children:
            yield from _walk(base, f"{relative}/{child}", depth + 1, walk, visited, fd, (*trail, step))
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
        return fsutil.open_beneath(base.fd, relative, base.spellings, directory=True, allowed=walk.allowed), parent is not None
    except FileNotFoundError:
        walk.tracker.missing(path)
    except fsutil.Refused as refused:
        _track_link(path, walk.tracker)
        walk.diagnostics.append(f"{path}: {refused.detail} (skills.load.allowSymlinkTargets can allow it); skipped")
    except OSError as error:
        _track_link(path, walk.tracker)
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
    names = [_shown(Path(link), base.path) for link in chain]
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


def _track_link(path: str, tracker: Tracker) -> None:
    """A skipped entry may become usable (a link retargeted): remember what it was."""
    try:
        tracker.file(path, os.stat(path), b"")
    except OSError:
        tracker.missing(path)


def _listing(entries: Iterator[os.DirEntry], depth: int) -> tuple[bool, tuple[str, ...]]:
    """(whether SKILL.md is here, the child directories to search, sorted)."""
    has_skill, children = False, []
    with entries:  # type: ignore[attr-defined]
        for entry in entries:
            if entry.name == SKILL_FILE:
                has_skill = has_skill or _is_file(entry)
            elif depth < MAX_DEPTH and _searchable(entry):
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
        _track_link(path, walk.tracker)
        if error.errno == errno.ELOOP:
            _note_link_cycle(base, path, walk)
        else:
            walk.diagnostics.append(f"{path}: cannot be read ({error.strerror or error}); skipped")
        walk.skipped.append((path, "link loop" if error.errno == errno.ELOOP else "cannot be read"))
        return None
    return _skill_from(path, raw, walk)


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


def _skill_from(path: str, raw: bytes, walk: _Walk) -> Skill | None:
    """Parse a SKILL.md's bytes (frontmatter parsed once per distinct content: `walk.parsed` is
    keyed on the whole SHA-256, as it may be kept on disk)."""
    digest = hashlib.sha256(raw).hexdigest()
    version = VERSION_PREFIX + digest[:16]
    if digest not in walk.parsed:
        walk.parsed[digest] = skill_metadata(_normalise(raw))
    found, problem = walk.parsed[digest]
    metadata = found or {}
    description = _single_line(metadata.get("description"))
    if not description:
        why = problem or ("no `description` in its frontmatter" if found is not None else "no frontmatter (a `---` block with name and description)")
        walk.diagnostics.append(f"{path}: {why}; skill skipped")
        walk.skipped.append((path, "unreadable frontmatter" if problem else "no description" if found else "no frontmatter"))
        return None
    name = _single_line(metadata.get("name")) or os.path.basename(os.path.dirname(path))
    return Skill(name, description, path, version, metadata)


@functools.cache
def _metadata_block() -> Any:
    """python-frontmatter's YAML block finder, imported only when a SKILL.md is read, with the
    delimiters of workspace files: a first line `---`, closed by the first `---` or `...` line
    (trailing spaces and tabs allowed), so a SKILL.md and an AGENTS.md split the same way."""
    import frontmatter as python_frontmatter  # the python-frontmatter distribution

    class Handler(python_frontmatter.YAMLHandler):
        FM_BOUNDARY = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE)

        def detect(self, text: str) -> bool:
            return text.split("\n", 1)[0].rstrip(" \t") == frontmatter.OPENING_DELIMITER

    return Handler()


def skill_metadata(text: str) -> tuple[Mapping[str, Any] | None, str | None]:
    """A SKILL.md's frontmatter mapping, or None and why not.

    python-frontmatter finds and cuts the block; its normalisation of the body does not matter
    here, because a skill contributes only its metadata (its version hashes the raw bytes). The
    block is read by the same safe YAML rules as workspace frontmatter.
    """
    handler = _metadata_block()
    if not handler.detect(text):
        return None, None
    try:
        block, _ = handler.split(text)
    except ValueError:
        return None, "frontmatter opened on line 1 is never closed"
    return frontmatter.parse_metadata(block)


Parsed = tuple[Mapping[str, Any] | None, str | None]
"""What `skill_metadata` gives: the frontmatter mapping or None, and why not."""


def parsed_data(parsed: Parsed) -> list[Any]:
    """A parse result as JSON data, for the disk store (compiler/parsecache.py)."""
    return list(parsed)


def parsed_from_data(data: Any) -> Parsed | None:
    """The parse result parsed_data gave, or None for anything not that shape."""
    if type(data) is not list or len(data) != 2:
        return None
    metadata, problem = data
    if not (type(metadata) is dict or metadata is None) or not (type(problem) is str or problem is None):
        return None
    return metadata, problem


def _normalise(raw: bytes) -> str:
    """Decode like a workspace file: UTF-8, BOM dropped, bad bytes replaced, LF newlines."""
    text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _single_line(value: Any) -> str:
    """A frontmatter text value with whitespace runs collapsed; '' for anything not text."""
    return " ".join(value.split()) if isinstance(value, str) else ""


VERSION_PREFIX = "sha256:"


def skill_version(raw: bytes) -> str:
    """`sha256:` + the first 16 hex digits of the SHA-256 of the raw SKILL.md bytes."""
    return VERSION_PREFIX + hashlib.sha256(raw).hexdigest()[:16]


# --------------------------------------------------------------------------- eligibility


def eligibility(
    skill: Skill,
    cfg: ResolvedConfig,
    *,
    env: Mapping[str, str],
    which: Callable[[str], str | None],
    platform: str,
) -> str | None:
    """None when the skill may be listed, else the first reason it may not."""
    if skill.name in cfg.skills.disabled:
        return "disabled in config"
    if cfg.skills.allowlist is not None and skill.name not in cfg.skills.allowlist:
        return "not in the agent's skills allowlist"
    if (count := requirement_count(skill)) > MAX_REQUIREMENTS:
        return f"too many requirements ({count}; at most {MAX_REQUIREMENTS} are checked)"
    checks = (
        lambda: _os_mismatch(skill, platform),
        lambda: _missing("binaries not on PATH", _requirement(skill, "bins"), lambda b: which(b) is None),
        lambda: _missing_any_bin(skill, which),
        lambda: _missing("environment variables unset", _requirement(skill, "env"), lambda v: not env.get(v)),
        lambda: _missing("config values not set", _requirement(skill, "config"), lambda p: not cfg.lookup(p)),
    )
    return next((reason for check in checks if (reason := check()) is not None), None)


def requirement_count(skill: Skill) -> int:
    """How many names the skill's `requires` lists, all kinds together."""
    return sum(len(_requirement(skill, kind)) for kind in ("bins", "anyBins", "env", "config"))


def _metadata_value(skill: Skill, key: str) -> Any:
    """`metadata.<key>`, else `metadata.openclaw.<key>`, else `metadata.clawdbot.<key>`."""
    metadata = skill.metadata.get("metadata")
    if not _is_mapping(metadata):
        return None
    candidates = [metadata] + [metadata.get(space) for space in METADATA_NAMESPACES]
    for candidate in candidates:
        if _is_mapping(candidate) and key in candidate:
            return candidate[key]
    return None


def _is_mapping(value: Any) -> TypeGuard[Mapping[str, Any]]:
    """isinstance(value, Mapping), with the common case (parsed metadata is plain dicts) first:
    the ABC check costs a microsecond, and a listing asks thousands of times."""
    return type(value) is dict or isinstance(value, Mapping)


def _requirement(skill: Skill, kind: str) -> tuple[str, ...]:
    """The names listed under `requires.<kind>` (a single string counts as one name)."""
    requires = _metadata_value(skill, "requires")
    if not _is_mapping(requires):
        return ()
    return _names(requires.get(kind))


def _names(value: Any) -> tuple[str, ...]:
    """A string or list of strings as a tuple of names; anything else as none."""
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(item for item in value if isinstance(item, str))
    return ()


def _os_mismatch(skill: Skill, platform: str) -> str | None:
    """A reason when the skill names operating systems and this platform is not one of them."""
    wanted = {
        PLATFORM_ALIASES.get(name.lower(), name.lower())
        for name in _names(_metadata_value(skill, "os"))
    }
    if not wanted or platform.lower() in wanted:
        return None
    return f"only for {', '.join(sorted(wanted))}"


def _missing(label: str, names: tuple[str, ...], is_missing: Callable[[str], bool]) -> str | None:
    """`label: a, b` for the names that fail, or None."""
    failing = [name for name in names if is_missing(name)]
    return f"{label}: {', '.join(failing)}" if failing else None


def _missing_any_bin(skill: Skill, which: Callable[[str], str | None]) -> str | None:
    """`requires.anyBins`: at least one of them must be on PATH."""
    candidates = _requirement(skill, "anyBins")
    if not candidates or any(which(name) is not None for name in candidates):
        return None
    return f"none of these binaries on PATH: {', '.join(candidates)}"


# --------------------------------------------------------------------------- the listed block


def build(
    cfg: ResolvedConfig,
    workspace_root: Path,
    *,
    env: Mapping[str, str],
    which: Callable[[str], str | None],
    platform: str,
    tracker: Tracker | None = None,
    parsed: MutableMapping[str, tuple[Mapping[str, Any] | None, str | None]] | None = None,
    workspace_identity: fsutil.Identity | None = None,
) -> SkillsBlock:
    """The `<available_skills>` block for this agent and every skill's fate.

    Roots: `skills.load.extraDirs` (lowest first; the config stage made them absolute), then
    `<workspace>/skills`. A workspace skill may not lead out of the workspace, an extra root's
    skill not out of that root, except into `skills.load.allowSymlinkTargets`. Locations inside
    the workspace are shown relative to it.
    """
    workspace_root = Path(os.path.abspath(workspace_root))
    extra = [Path(directory) for directory in cfg.skills.extra_dirs]
    skipped: list[tuple[str, str]] = []
    found, diagnostics = discover(
        extra + [workspace_root / "skills"], tracker, bases=[*extra, workspace_root],
        identities=[*[None] * len(extra), workspace_identity], allowed=allowed_targets(cfg), parsed=parsed, skipped=skipped,
    )  # fmt: skip
    diagnostics += tuple(f"{d}: skills.load.extraDirs entry is not a directory" for d in extra if not d.is_dir())
    diagnostics += tuple(
        f"{s.location}: lists {requirement_count(s)} requirements (at most {MAX_REQUIREMENTS}); skill not eligible"
        for s in found if requirement_count(s) > MAX_REQUIREMENTS
    )
    diagnostics = tuple(one_line(d) for d in diagnostics)  # a path or a name may hold a line break
    shown = [_displayed(skill, workspace_root) for skill in found]
    reasons = {
        skill.name: eligibility(skill, cfg, env=env, which=which, platform=platform)
        for skill in shown
    }
    eligible = [skill for skill in shown if reasons[skill.name] is None]
    candidates = eligible[: cfg.skills.max_in_prompt]
    listing = fit_listing(candidates, len(eligible), cfg.skills.max_prompt_chars)
    listed = {skill.name for skill in candidates[: listing.count]}
    within_count = {skill.name for skill in candidates}
    entries = tuple(_entry(skill, reasons[skill.name], listed, within_count) for skill in shown)
    shown_skipped = tuple((_shown(Path(path), workspace_root), why) for path, why in skipped)
    return SkillsBlock(listing.text, entries, listing.note, diagnostics, shown_skipped)


def _shown(location: Path, root: Path) -> str:
    """`location` relative to `root` when inside it (POSIX slashes), else as it is."""
    return location.relative_to(root).as_posix() if location.is_relative_to(root) else str(location)


def allowed_targets(cfg: ResolvedConfig) -> tuple[str, ...]:
    """`skills.load.allowSymlinkTargets`, resolved: where a skill link may lead outside its root."""
    configured = cfg.lookup("skills.load.allowSymlinkTargets") or ()
    return tuple(os.path.realpath(path) for path in configured)


def _displayed(skill: Skill, workspace_root: Path) -> Skill:
    """The skill with its location relative to the workspace when inside it (POSIX slashes)."""
    root = str(workspace_root).rstrip("/") + "/"
    if os.sep == "/" and skill.location.startswith(root):  # the walk names paths as strings under the root
        return Skill(skill.name, skill.description, skill.location[len(root):], skill.version, skill.metadata)
    location = Path(skill.location)
    if location.is_relative_to(workspace_root):
        shown = location.relative_to(workspace_root).as_posix()
        return Skill(skill.name, skill.description, shown, skill.version, skill.metadata)
    return skill


def _entry(
    skill: Skill, ineligible: str | None, listed: set[str], within_count: set[str]
) -> SkillEntry:
    """How one skill fared: listed, ineligible, over the count limit, or cut by the budget. Its
    name and reason are one printable line (a report shows them so; the prompt keeps the name)."""
    if skill.name in listed:
        reason = None
    elif ineligible is not None:
        reason = one_line(f"ineligible: {ineligible}")
    elif skill.name in within_count:
        reason = "skills budget"
    else:
        reason = "over maxSkillsInPrompt"
    return SkillEntry(one_line(skill.name), skill.location, skill.version, skill.name in listed, reason)


@frozen
class Listing:
    """The rendered list and how much of it survived the budget."""

    text: str
    """The note line (if any) and the `<available_skills>` block; empty when nothing fits."""
    count: int
    """How many of the candidate skills are listed."""
    note: str | None
    """What was cut, when anything was."""


def fit_listing(skills: Sequence[Skill], eligible_total: int, max_chars: int) -> Listing:
    """The fullest listing within `max_chars`: all descriptions, then shortened ones, then none,
    then the largest prefix of skills without descriptions.
    """
    if not skills:
        return Listing("", 0, None)

    def fits(count: int, description_chars: int | None) -> bool:
        return len(_render(skills, count, description_chars, eligible_total)) <= max_chars

    count, description_chars = _choose_cut(len(skills), _longest_description(skills), fits)
    if count == 0:
        return Listing("", 0, _note(0, eligible_total, 0))
    text = _render(skills, count, description_chars, eligible_total)
    return Listing(text, count, _note(count, eligible_total, description_chars))


def _choose_cut(
    total: int, longest: int, fits: Callable[[int, int | None], bool]
) -> tuple[int, int | None]:
    """(count, description limit): None keeps descriptions whole, 0 omits them."""
    if fits(total, None):
        return total, None
    shortened = _largest(MIN_DESCRIPTION_CHARS, longest - 1, lambda chars: fits(total, chars))
    if shortened is not None:
        return total, shortened
    if fits(total, 0):
        return total, 0
    return _largest(1, total - 1, lambda count: fits(count, 0)) or 0, 0


def _largest(low: int, high: int, ok: Callable[[int], bool]) -> int | None:
    """The largest value in [low, high] for which the monotone test `ok` holds, or None."""
    best = None
    while low <= high:
        middle = (low + high) // 2
        if ok(middle):
            best, low = middle, middle + 1
        else:
            high = middle - 1
    return best


def _longest_description(skills: Sequence[Skill]) -> int:
    """Length of the longest description."""
    return max(len(skill.description) for skill in skills)


def _render(
    skills: Sequence[Skill], count: int, description_chars: int | None, eligible_total: int
) -> str:
    """The note (when something is cut) and the XML block for the first `count` skills."""
    lines = ["<available_skills>"]
    for skill in skills[:count]:
        lines.extend(_skill_lines(skill, _shorten(skill.description, description_chars)))
    lines.append("</available_skills>")
    note = _note(count, eligible_total, description_chars)
    return "\n".join(([note] if note else []) + lines)


def _skill_lines(skill: Skill, description: str) -> list[str]:
    """One `<skill>` element, indented two spaces, its fields four."""
    fields = [
        ("name", skill.name),
        ("description", description),
        ("location", skill.location),
        ("version", skill.version),
    ]
    inner = [f"    <{tag}>{xml_escape(value)}</{tag}>" for tag, value in fields if value]
    return ["  <skill>", *inner, "  </skill>"]


def _shorten(description: str, limit: int | None) -> str:
    """The description cut to `limit` characters with `...`; whole for None, '' for 0."""
    if limit is None or len(description) <= limit:
        return description
    if limit == 0:
        return ""
    return description[: limit - len(ELLIPSIS)].rstrip() + ELLIPSIS


def _note(count: int, eligible_total: int, description_chars: int | None) -> str | None:
    """One line saying what was left out of the list, or None when nothing was."""
    parts = []
    if count < eligible_total:
        parts.append(f"{count} of {eligible_total} eligible skills listed")
    if description_chars == 0:
        parts.append("descriptions omitted")
    elif description_chars is not None:
        parts.append(f"descriptions shortened to {description_chars} characters")
    return f"(Skills list shortened: {'; '.join(parts)}.)" if parts else None


_XML_ESCAPES = {
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;",
    # Line breaks are legal XML, but one field is one line of the list: keep them as references.
    "\n": "&#10;", "\r": "&#13;", "\x85": "&#133;", "\u2028": "&#8232;", "\u2029": "&#8233;",
}  # fmt: skip
_XML_FORBIDDEN = [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0xD800, 0xE000), 0xFFFE, 0xFFFF]
"""Code points XML 1.0 cannot hold at all, not even as a reference (C0 controls but tab, LF
and CR; surrogates; U+FFFE and U+FFFF)."""
_XML_TABLE = {**dict.fromkeys(_XML_FORBIDDEN, "\ufffd"), **{ord(k): v for k, v in _XML_ESCAPES.items()}}


_XML_SPECIAL = re.compile(r"[&<>\"'\n\r\x85\u2028\u2029\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Any character xml_escape changes (most fields hold none: they are returned as they are)."""


def xml_escape(text: str) -> str:
    """Text safe inside one XML element on one line: the five special characters and line
    breaks as references, characters XML forbids replaced by U+FFFD."""
    if _XML_SPECIAL.search(text) is None:
        return text
    return replace_surrogates(text).translate(_XML_TABLE)
